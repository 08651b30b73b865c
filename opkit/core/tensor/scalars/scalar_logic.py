"""Scalar functions of comparisons, bitwise logic, switch and cast.

Comparisons compute in numpy's loop dtypes, not in their bool output: numpy
compares int64 with uint64 exactly (its mixed loop), so the C code does too
(opkit_lt and friends); a Python int out of the other operand's range becomes
an int64/uint64 constant, which numpy's comparison gives the same answer as
its own special case (beyond 64 bits, +-inf: see weak). Bitwise ops are
numpy's bitwise_* (logical on bool) and refuse floats as numpy does.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from opkit.core.tensor.scalars.scalar_ops import ScalarOp, mark_builtins
from opkit.core.tensor.types.weak import fits_64_bits


def _strong_dtype(value, strong):
    """Return the dtype numpy gives a weak Python scalar next to the `strong` dtypes, if it fits."""
    dtype = np.result_type(*strong, value) if strong else np.asarray(value).dtype
    if dtype.kind in "iu" and isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            dtype = np.asarray(value).dtype  # int64 or uint64 (or object: refused below)
    if dtype.kind not in "biufc":
        raise OverflowError(f"cannot compare the Python integer {value} with no integer or float array: "
                            f"it does not fit 64 bits")
    return dtype


def _compare_weak(operands):
    """A Python int beyond 64 bits next to an integer array compares as +-inf would: exactly, as in numpy."""
    if not any(isinstance(o, str) and np.dtype(o).kind in "iu" for o in operands):
        return operands
    return [(math.inf if o > 0 else -math.inf) if isinstance(o, int) and not fits_64_bits(o) else o for o in operands]


def _compare_loop(ufunc):
    def loop(operands, out_dtype):
        strong = [np.dtype(o) for o in operands if isinstance(o, str)]
        dtypes = [np.dtype(o) if isinstance(o, str) else _strong_dtype(o, strong) for o in operands]
        return ufunc.resolve_dtypes((*dtypes, None))[:-1]

    return loop


def _switch_loop(operands, out_dtype):
    cond = operands[0]
    return [cond if isinstance(cond, str) else np.asarray(cond).dtype, out_dtype, out_dtype]


def _switch(cond, a, b):
    return np.where(cond, a, b)


def _compare(name, ufunc):
    return ScalarOp(name, 2, ufunc, loop=_compare_loop(ufunc), weak=_compare_weak, c_macro=name)


# The C expression of each is a macro of opkit/templates/scalar_ops.c.j2 (c_macro): comparisons
# call scalar_logic.c's exact opkit_lt and friends.
lt = _compare("lt", np.less)
gt = _compare("gt", np.greater)
le = _compare("le", np.less_equal)
ge = _compare("ge", np.greater_equal)
eq = _compare("eq", np.equal)
neq = _compare("neq", np.not_equal)
and_ = ScalarOp("and_", 2, np.bitwise_and, c_kinds="iub", c_macro="and_")
or_ = ScalarOp("or_", 2, np.bitwise_or, c_kinds="iub", c_macro="or_")
xor = ScalarOp("xor", 2, np.bitwise_xor, c_kinds="iub", c_macro="xor")
invert = ScalarOp("invert", 1, np.invert, c_kinds="iub", c_macro="invert")
# A condition is true where it is nonzero (NaN included), as in np.where.
switch = ScalarOp("switch", 3, _switch, loop=_switch_loop, c_macro="switch")


class CastScalarOp(ScalarOp):
    """A conversion: C only where C converts exactly as numpy does, warnings included (see cast)."""

    def has_c(self, out_dtype, operand_dtypes=()):
        out = np.dtype(out_dtype)
        for operand in map(np.dtype, operand_dtypes):
            if operand.kind == "f" and out.kind in "iu":
                return False  # out-of-range float to integer is undefined in C
            if operand.kind == "f" and out.kind == "f" and out.itemsize < operand.itemsize:
                return False  # numpy warns when a value overflows the narrower float; C would not
        return super().has_c(out_dtype, operand_dtypes)

    def __reduce__(self):
        """Pickle as the call of cast that makes it (its conversion is a local function)."""
        dtype = self.name[len("cast{"):-1]
        if cast(dtype) is self:
            return (cast, (dtype,))
        return super().__reduce__()


@functools.lru_cache(maxsize=None)
def cast(dtype):
    """Return the scalar function converting to `dtype` as ndarray.astype does.

    C exists where C's conversion is numpy's: to bool (nonzero), between
    integers (modulo 2**bits, as gcc defines it), integer to float (rounded to
    nearest) and float to a wider float. A float to integer conversion of an
    out-of-range value is undefined in C, and numpy warns when a float
    overflows a narrower one: those run numpy.
    """
    dtype = str(np.dtype(dtype))

    def convert(x):
        return np.asarray(x).astype(dtype)

    def loop(operands, out_dtype):
        operand = operands[0]
        return [operand if isinstance(operand, str) else np.asarray(operand).dtype]

    convert.__name__ = f"cast_{dtype}"
    return CastScalarOp(f"cast{{{dtype}}}", 1, convert, loop=loop, c_macro="cast")


ALL = {op.name: op for op in (lt, gt, le, ge, eq, neq, and_, or_, xor, invert, switch)}

mark_builtins(globals())
