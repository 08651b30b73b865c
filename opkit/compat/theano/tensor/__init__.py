"""theano.tensor: opkit.tensor's names and Theano's (basic.py), plus the submodule paths Theano ops import from.

``theano.tensor.elemwise``, ``subtensor`` and ``type`` hold opkit's classes of those names (and
``values_eq_approx_remove_inf``/``_nan``); ``theano.tensor.basic`` holds the same names plus Theano's dtype lists (``int_dtypes``...) and
``extract_constant``; ``theano.tensor.opt`` holds no-op rewrite decorators; ``theano.tensor.blas``
and ``blas_headers`` are opkit's BLAS for C ops (``ldflags``, ``blas_header_text``).
"""

from opkit.compat.theano.tensor.basic import *  # noqa: F403
from opkit.compat.theano.tensor.basic import __all__ as _names
from opkit.compat.theano.tensor import (basic, blas, blas_headers, constants, elemwise, nnet, opt,  # noqa: F401
                                        subtensor, type, type_other, var)  # noqa: A004

__all__ = [*_names, "basic", "blas", "blas_headers", "elemwise", "nnet", "opt", "subtensor", "type", "type_other",
           "var"]


# Each name opkit.tensor gains (issue 48's functions) is here too, looked up on first use.
from opkit.lazy import lazy_names as _lazy_names  # noqa: E402

__getattr__, __dir__ = _lazy_names(globals(), search=(
    "opkit.tensor", "opkit.compat.theano.tensor.subtensor", "opkit.compat.theano.tensor.type_other",
    "opkit.compat.theano.tensor.var", "opkit.compat.theano.tensor.elemwise", "opkit.compat.theano.tensor.extra_ops",
    "opkit.compat.theano.tensor.sort", "opkit.compat.theano.tensor.type", "opkit.compat.theano.tensor.constants",
    "opkit.compat.theano.gof", "opkit.compat.theano.gradient", "opkit.compat.pytensor.tensor.shape"))

# theano.tensor.sort is the function, its module loaded first (Theano's order; see pytensor.tensor's __init__).
import opkit.compat.theano.tensor.sort as _sort_module  # noqa: E402  (not `from . import`: __getattr__ has sort)

del _sort_module
globals().pop("sort", None)
