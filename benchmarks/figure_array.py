"""`(x*y + z)*2 - x` on 10^7 float64: opkit against numpy and one hand-written C loop."""

from __future__ import annotations

import numpy as np

from context import Context
from report import OPKIT, Figure, Target
from timing import call_sampler, interleave

ONE_LOOP = "one C loop"
SIZE = 10**7

# The physical reference: one pass over the inputs into a fresh output, built with the
# same compiler and flags as opkit's own modules (opkit.cop.toolchain.extension.build_extension).
LOOP_SOURCE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <numpy/arrayobject.h>

static PyObject* expression(PyObject*, PyObject* const* args, Py_ssize_t nargs)
{
    if (nargs != 3) { PyErr_SetString(PyExc_TypeError, "expression(x, y, z)"); return NULL; }
    PyArrayObject* in[3];
    for (int i = 0; i < 3; i++) {
        if (!PyArray_Check(args[i]) || PyArray_TYPE((PyArrayObject*)args[i]) != NPY_FLOAT64
            || PyArray_NDIM((PyArrayObject*)args[i]) != 1
            || !PyArray_IS_C_CONTIGUOUS((PyArrayObject*)args[i])) {
            PyErr_SetString(PyExc_TypeError, "expects contiguous 1-d float64 arrays");
            return NULL;
        }
        in[i] = (PyArrayObject*)args[i];
    }
    npy_intp n = PyArray_DIM(in[0], 0);
    if (PyArray_DIM(in[1], 0) != n || PyArray_DIM(in[2], 0) != n) {
        PyErr_SetString(PyExc_ValueError, "shape mismatch"); return NULL;
    }
    PyArrayObject* out = (PyArrayObject*)PyArray_EMPTY(1, &n, NPY_FLOAT64, 0);
    if (!out) return NULL;
    const double* __restrict x = (const double*)PyArray_DATA(in[0]);
    const double* __restrict y = (const double*)PyArray_DATA(in[1]);
    const double* __restrict z = (const double*)PyArray_DATA(in[2]);
    double* __restrict o = (double*)PyArray_DATA(out);
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp i = 0; i < n; i++)
        o[i] = (x[i] * y[i] + z[i]) * 2.0 - x[i];
    Py_END_ALLOW_THREADS
    return (PyObject*)out;
}

static PyMethodDef methods[] = {
    {"expression", (PyCFunction)(void (*)(void))expression, METH_FASTCALL, "(x*y + z)*2 - x"},
    {NULL, NULL, 0, NULL},
};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "@NAME@", NULL, -1, methods};

PyMODINIT_FUNC PyInit_@NAME@(void)
{
    import_array();
    return PyModule_Create(&moddef);
}
"""


def expression(T):
    x, y, z = T.dvector("x"), T.dvector("y"), T.dvector("z")
    return [x, y, z], (x * y + z) * 2 - x


def numpy_expression(x, y, z):
    return (x * y + z) * 2 - x


def build_one_loop(ctx: Context):
    """Compile LOOP_SOURCE with opkit's builder and return its `expression` function."""
    from opkit.cop.toolchain.extension import build_extension
    from opkit.cop.load.loader import load_module

    name = "opkit_bench_one_loop"
    path = build_extension(LOOP_SOURCE.replace("@NAME@", name), name, ctx.workdir / "one_loop")
    return load_module(path, name).expression


def big_array(ctx: Context) -> Figure:
    """Time the expression with a fresh output per call (memory-bandwidth bound: few rounds)."""
    import opkit
    import opkit.tensor as ot

    rng = np.random.default_rng(0)
    size = SIZE // 10 if ctx.quick else SIZE
    x, y, z = (rng.standard_normal(size) for _ in range(3))
    inputs, output = expression(ot)
    contenders = {OPKIT: opkit.function(inputs, output), ONE_LOOP: build_one_loop(ctx),
                  "numpy": numpy_expression, **ctx.pytensor_functions(expression, trust_input=False)}
    expected = numpy_expression(x, y, z)
    for label, fn in contenders.items():
        np.testing.assert_allclose(fn(x, y, z), expected, rtol=1e-9, err_msg=label)
    budget = 0.03 if ctx.quick else 0.1
    samplers = {label: call_sampler(fn, (x, y, z), budget, unit=1e-3) for label, fn in contenders.items()}
    stats = interleave(samplers, ctx.rounds(7, 2))
    notes = [f"{size} float64 elements per input; every call allocates its output "
             f"(opkit never hands a returned array back to a later call); a sample is ~{budget * 1e3:g} ms "
             "of back-to-back calls", "one C loop: compiled by opkit.cop.toolchain.extension.build_extension, same flags"]
    title = f"(x*y + z)*2 - x on {size:.0e} float64, fresh output"
    return Figure("big_array", title, "ms", stats, ONE_LOOP, Target("ratio", 1.1), notes)
