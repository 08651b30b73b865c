"""The standard elementwise math ops: abs, sign, tanh, sin, cos, log1p, expm1, sigmoid, softplus,
floor, ceil, round, minimum, clip, int_div (floor_div) and mod (numpy's results and dtypes; see scalar_math)."""

from __future__ import annotations

from opkit.core.tensor.elementwise.elemwise import Elemwise
from opkit.core.tensor.scalars import scalar_math

abs = Elemwise(scalar_math.abs)
sign = Elemwise(scalar_math.sign)
tanh = Elemwise(scalar_math.tanh)
sin = Elemwise(scalar_math.sin)
cos = Elemwise(scalar_math.cos)
log1p = Elemwise(scalar_math.log1p)
expm1 = Elemwise(scalar_math.expm1)
sigmoid = Elemwise(scalar_math.sigmoid)
softplus = Elemwise(scalar_math.softplus)
floor = Elemwise(scalar_math.floor)
ceil = Elemwise(scalar_math.ceil)
round = Elemwise(scalar_math.round)
minimum = Elemwise(scalar_math.minimum)
_clip = Elemwise(scalar_math.clip)
int_div = Elemwise(scalar_math.int_div)
floor_div = int_div  # as in Theano and PyTensor: numpy's floor_divide under both names
mod = Elemwise(scalar_math.mod)


def clip(x, lo, hi):
    """Return `x` limited to [lo, hi] elementwise, as np.clip (NaN stays NaN; lo > hi gives hi)."""
    return _clip(x, lo, hi)
