"""Weak Python numbers (NEP 50): a Python bool, int, float or complex next to an array.

numpy 2 never looks at such a number's value to pick a dtype: the operation's
dtype comes from the arrays, and the number is then converted to it. That
conversion is numpy's own (`np.asarray(value, dtype=...)`): it rounds a float
to a narrower float (overflowing to inf), and it refuses an integer the dtype
cannot hold with OverflowError ("Python integer 1000 out of bounds for int8").
It never wraps an integer modulo 2**bits (`astype` would: that is how
`clip(int8, -1000, 1000)` once clipped to -24).

Some functions keep an out-of-range integer's meaning instead of refusing it,
as numpy does: comparisons compare exactly (`int8 < 1000` is True, also for
integers beyond 64 bits) and `clip` drops a bound beyond the array's range
(see the `weak` hooks of scalar_logic and scalar_math). np.where alone wraps
such an integer (an unsafe cast): opkit's switch raises OverflowError instead.
"""

from __future__ import annotations

import numbers

import numpy as np


def is_weak_number(value):
    """Return True if `value` is a Python number (bool, int, float, complex), not a numpy scalar."""
    return isinstance(value, numbers.Number) and not isinstance(value, np.generic)


def fits_64_bits(value):
    """Return True unless `value` is a Python int neither int64 nor uint64 can hold."""
    return not isinstance(value, int) or -2**63 <= value < 2**64


# np.where alone converts a weak Python int with an unsafe cast, wrapping it (numpy issue 27006, open):
# opkit's switch refuses it as every numpy ufunc does, rather than return a wrapped number.
_NOTES = {"switch": "; np.where would wrap it modulo 2**bits (numpy issue 27006), opkit's switch refuses it "
                    "as numpy's ufuncs do: cast the other operand to a wider dtype first"}


def weak_constant_data(value, dtype, what):
    """Return `value` converted to `dtype` as numpy converts a weak Python number (a 0-d array).

    Raises OverflowError (numpy's message, naming the function `what`) where numpy refuses the
    value; warns as numpy does where a float overflows a narrower float (to inf).
    """
    try:
        return np.asarray(value, dtype=dtype)
    except OverflowError as exc:
        raise OverflowError(f"{exc} (a Python number given to {what}{_NOTES.get(what, '')})") from None
