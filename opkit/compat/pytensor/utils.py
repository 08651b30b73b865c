"""pytensor.utils: ``PYTHON_INT_BITWIDTH`` (the bits of a C long, what a Python int becomes), ``to_return_values``."""

import numpy as np

PYTHON_INT_BITWIDTH = np.dtype("int_").itemsize * 8



def to_return_values(values):
    """Return the only value of `values`, or `values` itself when there are several (PyTensor's helper)."""
    return values[0] if len(values) == 1 else values


__all__ = ["PYTHON_INT_BITWIDTH", "to_return_values"]

# PyTensor's small helpers (pytensor/utils.py, BSD-3), and lazy_scipy_module (also at opkit.compat.pytensor).
import hashlib  # noqa: E402
import struct  # noqa: E402

from opkit.compat.theano.gof.utils import difference, uniq  # noqa: E402
from opkit.lazy import load as _load  # noqa: E402


def lazy_scipy_module(name):
    """PyTensor's ``lazy_scipy_module("special")``: here ``scipy.special`` itself, imported on the call."""
    return _load(f"scipy.{name}")  # lazy: scipy, an optional dependency, on the call


LOCAL_BITWIDTH = struct.calcsize("P") * 8  # the width of a pointer, not of a C long


def get_unbound_function(unbound):
    """Return the function of a bound method (``__func__``), or `unbound` itself."""
    return getattr(unbound, "__func__", unbound)


def hash_from_code(msg):
    """Return 'm' and the SHA256 hex digest of a string or bytes."""
    return f"m{hashlib.sha256(msg.encode() if isinstance(msg, str) else msg).hexdigest()}"


def unzip(iterable, n, strict=False):
    """Unzip pairs (or n-tuples) into n tuples; n empty tuples if `iterable` is empty."""
    return tuple(zip(*iterable, strict=strict)) or ((),) * n


__all__ += ["LOCAL_BITWIDTH", "difference", "get_unbound_function", "hash_from_code", "lazy_scipy_module", "uniq",
            "unzip"]
