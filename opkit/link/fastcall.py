"""The C base class of opkit.Function (templates/fastcall.cpp), compiled once and cached."""

from __future__ import annotations

import functools
from importlib import resources


@functools.lru_cache(maxsize=None)
def function_base():
    """Return (FunctionBase, enable_vectorcall) from the compiled call-path module."""
    from opkit.cop.codegen import GeneratedModule
    from opkit.cop.compile import compile_generated

    source = resources.files("opkit").joinpath("templates", "fastcall.cpp").read_text(encoding="utf-8")
    module = compile_generated(GeneratedModule(source), "opkit call path (FunctionBase)")
    return module.FunctionBase, module.enable_vectorcall


def input_signature(types):
    """Return the (typenum, ndim) per input that FunctionBase checks in C (None: check in Python).

    The C check takes an exact ndarray of this ndim, aligned and in native byte order, whose
    typenum is this one or equivalent to it (NPY_LONGLONG for int64 on Linux: the module's
    extract views it as declared); anything else goes to the Python filter, which converts
    it (unaligned, byte-swapped, lists, scalars) or raises TypeError (subclasses such as np.ma).
    """
    import numpy as np

    from opkit.core.tensor.type import TensorType

    # a static length is checked by the Python filter, so only shape-free tensors go through C
    return tuple((np.dtype(t.dtype).num, t.ndim) if type(t) is TensorType and all(s is None for s in t.shape)
                 else None for t in types)
