"""Shared fixtures: no test touches the user's real compile cache."""

import pytest


@pytest.fixture(scope="session", autouse=True)
def private_compiledir(tmp_path_factory):
    """Point OPKIT_COMPILEDIR and config.compiledir at a session temporary directory."""
    from opkit.config import config

    path = tmp_path_factory.mktemp("opkit-compiledir")
    old = config.compiledir
    with pytest.MonkeyPatch.context() as patch:
        # The environment variable reaches subprocesses, which read config afresh.
        patch.setenv("OPKIT_COMPILEDIR", str(path))
        config.compiledir = str(path)
        try:
            yield path
        finally:
            config.compiledir = old


TINY_EXTENSION = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef TINY_OFFSET
#define TINY_OFFSET 0
#endif

static PyObject *add(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "add() takes two ints");
        return NULL;
    }
    long a = PyLong_AsLong(args[0]), b = PyLong_AsLong(args[1]);
    if (PyErr_Occurred())
        return NULL;
    return PyLong_FromLong(a + b + @OFFSET@ + TINY_OFFSET);
}

static PyMethodDef methods[] = {
    {"add", (PyCFunction)(void (*)(void))add, METH_FASTCALL, "Add two ints."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "@NAME@", NULL, -1, methods};

PyMODINIT_FUNC PyInit_@NAME@(void) { return PyModule_Create(&moddef); }
"""


def make_tiny_source(name, offset=0):
    """Return the C++ source of extension module `name` whose add(a, b) returns a + b + offset."""
    return TINY_EXTENSION.replace("@NAME@", name).replace("@OFFSET@", str(offset))


@pytest.fixture
def tiny_source():
    """Return make_tiny_source: a hand-written CPython extension with one METH_FASTCALL function."""
    return make_tiny_source
