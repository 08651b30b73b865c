"""The call-path module (templates/fastcall.cpp): opkit.Function's C base and Op.compute's C dispatcher.

It is compiled once and cached like any module (its key is its source's content).
"""

from __future__ import annotations

import pathlib

from opkit.core.tensor.types.type import TensorType
from opkit.cop.compile import compile_generated
from opkit.cop.generate.codegen import GeneratedModule

SOURCE = pathlib.Path(__file__).resolve().parent.parent / "templates" / "fastcall.cpp"


_loaded = None  # the module, once built or loaded


def _module():
    global _loaded
    if _loaded is None:
        source = SOURCE.read_text(encoding="utf-8")
        _loaded = compile_generated(GeneratedModule(source), "opkit call path (FunctionBase)")
    return _loaded


def function_base():
    """Return (FunctionBase, enable_vectorcall) from the compiled call-path module."""
    module = _module()
    return module.FunctionBase, module.enable_vectorcall


def loaded_eager_compute_type():
    """Return EagerCompute (the C method descriptor that serves Op.compute's warm calls, opkit.link.eager),
    or None if this process has not loaded the call-path module (it is never compiled for this)."""
    return None if _loaded is None else _loaded.EagerCompute


def input_signature(types):
    """Return the (typenum, ndim) per input that FunctionBase checks in C (None: check in Python).

    The C check takes an exact ndarray of this ndim, aligned and in native byte order, whose
    typenum is this one or equivalent to it (NPY_LONGLONG for int64 on Linux: the module's
    extract views it as declared); anything else goes to the Python filter, which converts
    it (unaligned, byte-swapped, lists, scalars) or raises TypeError (subclasses such as np.ma).
    """
    import numpy as np

    # a static length is checked by the Python filter, so only shape-free tensors go through C
    return tuple((np.dtype(t.dtype).num, t.ndim) if type(t) is TensorType and all(s is None for s in t.shape)
                 else None for t in types)
