"""TensorType's C interface: a ``PyArrayObject*`` checked for ndim and dtype on extract.

What DeepCopyOp, ViewOp, Shape and Shape_i do for a tensor is the `code` section of the tensor_*.c
files beside this module (registered below).
"""

from __future__ import annotations

import functools
import pathlib

import numpy as np


@functools.lru_cache(maxsize=None)
def c_dtype(dtype):
    """Return the numpy C type name for a dtype (float64 -> npy_float64)."""
    return "npy_bool" if str(dtype) == "bool" else f"npy_{np.dtype(dtype).name}"


@functools.lru_cache(maxsize=None)
def c_typenum(dtype):
    """Return the numpy type-number constant for a dtype (float64 -> NPY_FLOAT64)."""
    return "NPY_BOOL" if str(dtype) == "bool" else f"NPY_{np.dtype(dtype).name.upper()}"


# Shared by every tensor variable of a module (identical support code appears once): the slow
# half of c_extract, reached only when the array is not already exactly what the C code reads.
EXTRACT_SUPPORT = r"""
#ifndef OPKIT_TENSOR_EXTRACT
#define OPKIT_TENSOR_EXTRACT
// Return a new reference to `obj` as a plain, aligned, native-order ndarray of exactly `typenum`
// with `ndim` dimensions, converting what numpy would convert without loss (an equivalent type
// number such as NPY_LONGLONG for NPY_INT64, an unaligned or byte-swapped array), or set
// TypeError and return NULL. `check_input` is 0 for values the module made itself or a Python
// op returned: anything numpy turns into such an array is then accepted.
static PyArrayObject* opkit_tensor_extract(PyObject* obj, int ndim, int typenum, const char* dtype,
                                           int check_input)
{
    PyArrayObject* arr;
    if (!PyArray_Check(obj)) {
        if (check_input) {
            PyErr_Format(PyExc_TypeError, "expected a numpy.ndarray, got %s", Py_TYPE(obj)->tp_name);
            return NULL;
        }
        arr = (PyArrayObject*)PyArray_FromAny(obj, PyArray_DescrFromType(typenum), 0, 0,
                                              NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED, NULL);
        if (!arr) return NULL;
    } else if (!PyArray_CheckExact(obj)) {
        // A subclass may carry meaning the C code would silently drop (np.ma's mask, np.matrix).
        PyErr_Format(PyExc_TypeError,
                     "expected a plain numpy.ndarray, got %s, a subclass of numpy.ndarray: the compiled code "
                     "reads only the data and would drop what the subclass adds (such as a mask); "
                     "pass np.asarray(value) to compute on the data alone", Py_TYPE(obj)->tp_name);
        return NULL;
    } else {
        arr = (PyArrayObject*)obj;
        Py_INCREF(arr);
    }
    if (PyArray_NDIM(arr) != ndim) {
        PyErr_Format(PyExc_TypeError, "expected an array with ndim %d, got ndim %d", ndim, PyArray_NDIM(arr));
        Py_DECREF(arr);
        return NULL;
    }
    if (PyArray_TYPE(arr) != typenum && !PyArray_EquivTypenums(PyArray_TYPE(arr), typenum)) {
        PyErr_Format(PyExc_TypeError, "expected an array of dtype %s, got an array of dtype %S (typenum %d)",
                     dtype, (PyObject*)PyArray_DESCR(arr), PyArray_TYPE(arr));
        Py_DECREF(arr);
        return NULL;
    }
    if (!PyArray_ISALIGNED(arr) || !PyArray_ISNOTSWAPPED(arr)) {
        // Reading raw bytes would give wrong numbers: copy to an aligned, native-order array.
        PyArrayObject* copy = (PyArrayObject*)PyArray_FromArray(arr, PyArray_DescrFromType(typenum),
                                                                NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED);
        Py_DECREF(arr);
        if (!copy) return NULL;
        arr = copy;
    }
    if (PyArray_TYPE(arr) != typenum) {
        // An equivalent type number: a view tagged with the declared one, for C code that compares them.
        PyArrayObject* view = (PyArrayObject*)PyArray_View(arr, PyArray_DescrFromType(typenum), NULL);
        Py_DECREF(arr);
        if (!view) return NULL;
        arr = view;
    }
    return arr;
}
#endif
"""


class TensorCInterface:
    """C methods of TensorType (mixed into the class)."""

    def c_declare(self, name, sub, check_input=True):
        return f"PyArrayObject* {name} = NULL;\ntypedef {c_dtype(self.dtype)} dtype_{name};"

    def c_init(self, name, sub):
        return f"{name} = NULL;"

    def c_extract(self, name, sub, check_input=True):
        """Borrow an array that is exactly what the C code reads; convert anything else (or fail).

        Inputs (`check_input`) must be numpy.ndarrays of this ndim and an equivalent dtype; an
        unaligned or byte-swapped one is copied, an equivalent type number (np.longlong for
        int64) is viewed as the declared one, and an ndarray subclass raises TypeError (it may
        carry a mask the C code would drop). Values made by the module or returned by a Python
        op (`check_input=False`) are converted the same way, and non-arrays through numpy.
        """
        typenum, array = c_typenum(self.dtype), f"((PyArrayObject*)py_{name})"
        return f"""
if (PyArray_CheckExact(py_{name}) && PyArray_TYPE({array}) == {typenum} && PyArray_NDIM({array}) == {self.ndim}
        && PyArray_ISALIGNED({array}) && PyArray_ISNOTSWAPPED({array})) {{
    {name} = {array};
    Py_INCREF({name});
}} else {{
    {name} = opkit_tensor_extract(py_{name}, {self.ndim}, {typenum}, "{self.dtype}", {int(bool(check_input))});
    if (!{name}) {{
        {sub['fail']}
    }}
}}"""

    def c_support_code(self):
        return EXTRACT_SUPPORT

    def c_sync(self, name, sub):
        return f"""
if (!{name}) {{
    Py_XDECREF(py_{name});
    Py_INCREF(Py_None);
    py_{name} = Py_None;
}} else if ((void*)py_{name} != (void*){name}) {{
    Py_XDECREF(py_{name});
    py_{name} = (PyObject*){name};
    Py_INCREF(py_{name});
}}"""

    def c_cleanup(self, name, sub):
        return f"Py_XDECREF({name});\n{name} = NULL;"

    def c_element_type(self):
        return c_dtype(self.dtype)

    def c_headers(self, c_compiler=None):
        return ["<numpy/arrayobject.h>", "<cmath>"]

    def c_code_cache_version(self):
        return (2,)


# what DeepCopyOp, ViewOp, Shape, Shape_i and Shape_i's guard do for a tensor: `#section code` files here
TENSOR_C_FILES = {op: pathlib.Path(__file__).with_name(f"tensor_{op}.c")
                  for op in ("deep_copy", "view", "shape", "shape_i", "shape_i_check")}


def register_tensor_c_code(tensor_type_class):
    """Register the built-in ops' C code for TensorType: the section files TENSOR_C_FILES."""
    from opkit.core import builtin_ops

    files = TENSOR_C_FILES
    builtin_ops.register_deep_copy_op_c_code(tensor_type_class, files["deep_copy"], version=(1,))
    builtin_ops.register_view_op_c_code(tensor_type_class, files["view"], version=(1,))
    builtin_ops.register_shape_c_code(tensor_type_class, files["shape"], version=(1,))
    builtin_ops.register_shape_i_c_code(tensor_type_class, files["shape_i"], files["shape_i_check"], version=(1,))
