"""theano.tensor.basic: opkit.tensor's names, plus Theano's dtype-name lists and ``extract_constant``."""

from opkit.core.graph import Constant
from opkit.tensor import *  # noqa: F403
from opkit.tensor import __all__ as _names

int_dtypes = ["int8", "int16", "int32", "int64"]
uint_dtypes = ["uint8", "uint16", "uint32", "uint64"]
float_dtypes = ["float16", "float32", "float64"]
complex_dtypes = ["complex64", "complex128"]
discrete_dtypes = ["bool", *int_dtypes, *uint_dtypes]
continuous_dtypes = [*float_dtypes, *complex_dtypes]
all_dtypes = [*discrete_dtypes, *continuous_dtypes]


def extract_constant(x, elemwise=True, only_process_constants=False):
    """Theano's helper: the data of a constant (a 0-d one as a numpy scalar); any other variable as it is."""
    if isinstance(x, Constant):
        data = x.data
        return data[()] if getattr(data, "ndim", None) == 0 else data
    return x


def shape_padleft(t, n_ones=1):
    """Theano's helper: `t` with `n_ones` broadcastable axes in front (a dimshuffle)."""
    return t.dimshuffle(["x"] * n_ones + list(range(t.ndim)))


def shape_padright(t, n_ones=1):
    """Theano's helper: `t` with `n_ones` broadcastable axes at the end (a dimshuffle)."""
    return t.dimshuffle(list(range(t.ndim)) + ["x"] * n_ones)


__all__ = [*_names, "shape_padleft", "shape_padright", "int_dtypes", "uint_dtypes", "float_dtypes", "complex_dtypes", "discrete_dtypes",
           "continuous_dtypes", "all_dtypes", "extract_constant"]
