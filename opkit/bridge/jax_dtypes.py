"""The dtypes opkit and JAX share, mapped both ways; anything else is refused with an error naming it.

They come from opkit's one dtype table (opkit.core.scalar_type.DTYPES), as the torch bridge's do.
"""

from __future__ import annotations

import numpy as np

from opkit.core.scalar_type import DTYPES

# Both frameworks spell these the numpy way; the handler (templates/jax_ffi.cpp) maps XLA's element types too.
# JAX has a dtype of the same name for every one (it has more: bfloat16, float8 kinds, int4: not mapped).
SHARED_DTYPES = tuple(DTYPES)
_WIDE = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}


class DtypeNotMapped(TypeError):
    """A dtype of one framework has no counterpart in the other."""


def opkit_dtype(dtype, where) -> str:
    """Return the opkit dtype (a name) of the JAX dtype `dtype`; `where` names the op's input."""
    name = _name(dtype)
    if name not in SHARED_DTYPES:
        raise DtypeNotMapped(f"{where} has dtype {name}, which opkit has no type for; opkit's JAX bridge maps "
                             f"{', '.join(SHARED_DTYPES)}.\nHint: cast it first, e.g. x.astype('float32').")
    return name


def jax_dtype(dtype, where, x64_enabled=True) -> np.dtype:
    """Return the JAX dtype of the opkit dtype `dtype`; `where` names the op's output."""
    name = _name(dtype)
    if name not in SHARED_DTYPES:
        raise DtypeNotMapped(f"{where} has dtype {name}, which JAX has no type for here; opkit's JAX bridge maps "
                             f"{', '.join(SHARED_DTYPES)}.")
    if not x64_enabled and name in _WIDE:
        raise DtypeNotMapped(f"{where} has dtype {name}, which JAX turns into {_WIDE[name]} while jax_enable_x64 "
                             "is off.\nHint: jax.config.update('jax_enable_x64', True), or give the op inputs "
                             "that make a 32-bit output.")
    return np.dtype(name)


def _name(dtype) -> str:
    try:
        return np.dtype(dtype).name
    except TypeError:
        return str(dtype)
