"""TensorType's C interface: a ``PyArrayObject*`` checked for ndim and dtype on extract.

The C is the macros of opkit/templates/tensor_type.c.j2; what DeepCopyOp, ViewOp, Shape and Shape_i do
for a tensor is the `code` section of the tensor_*.c files beside this module (registered below).
"""

from __future__ import annotations

import functools
import pathlib

import numpy as np

from opkit.core.c_source import render
from opkit.core import builtin_ops


@functools.lru_cache(maxsize=None)
def c_dtype(dtype):
    """Return the numpy C type name for a dtype (float64 -> npy_float64)."""
    return "npy_bool" if str(dtype) == "bool" else f"npy_{np.dtype(dtype).name}"


@functools.lru_cache(maxsize=None)
def c_typenum(dtype):
    """Return the numpy type-number constant for a dtype (float64 -> NPY_FLOAT64)."""
    return "NPY_BOOL" if str(dtype) == "bool" else f"NPY_{np.dtype(dtype).name.upper()}"


# Rendered in place of a variable's C name and its failure code, then replaced by them: the variables of
# one dtype share one rendered text (a warm process reads one kept text, not one per variable).
NAME, FAIL = "opkit_placeholder_name_", "opkit_placeholder_fail_;"


@functools.lru_cache(maxsize=8192)  # modules name variables V0, V1, ...: the same texts, compile after compile
def _render(macro, **values):
    return render("tensor_type.c.j2", macro, **values)  # the C of every method below (opkit/templates)


def _render_for(name, macro, fail=None, **values):
    """Return _render(macro, name=name, [fail=fail,] **values), from the text rendered for the placeholders."""
    if fail is None:
        return _render(macro, name=NAME, **values).replace(NAME, name)
    return _render(macro, name=NAME, fail=FAIL, **values).replace(NAME, name).replace(FAIL, fail)


class TensorCInterface:
    """C methods of TensorType (mixed into the class): macros of opkit/templates/tensor_type.c.j2."""

    def c_declare(self, name, sub, check_input=True):
        return _render_for(name, "declare", ctype=c_dtype(self.dtype))

    def c_init(self, name, sub):
        return _render_for(name, "init")

    def c_extract(self, name, sub, check_input=True):
        """Borrow an array that is exactly what the C code reads; convert anything else (or fail).

        Inputs (`check_input`) must be numpy.ndarrays of this ndim and an equivalent dtype; an
        unaligned or byte-swapped one is copied, an equivalent type number (np.longlong for
        int64) is viewed as the declared one, and an ndarray subclass raises TypeError (it may
        carry a mask the C code would drop). Values made by the module or returned by a Python
        op (`check_input=False`) are converted the same way, and non-arrays through numpy.
        """
        return _render_for(name, "extract", typenum=c_typenum(self.dtype), ndim=self.ndim,
                           dtype=str(self.dtype), check_input=int(bool(check_input)), fail=sub["fail"])

    def c_support_code(self):
        return _render("support")  # opkit_tensor_extract, from opkit/templates/tensor_extract.h

    def c_sync(self, name, sub):
        return _render_for(name, "sync")

    def c_cleanup(self, name, sub):
        return _render_for(name, "cleanup")

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
    files = TENSOR_C_FILES
    builtin_ops.register_deep_copy_op_c_code(tensor_type_class, files["deep_copy"], version=(1,))
    builtin_ops.register_view_op_c_code(tensor_type_class, files["view"], version=(1,))
    builtin_ops.register_shape_c_code(tensor_type_class, files["shape"], version=(1,))
    builtin_ops.register_shape_i_c_code(tensor_type_class, files["shape_i"], files["shape_i_check"], version=(1,))
