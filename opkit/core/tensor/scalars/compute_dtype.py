"""A user scalar op computed without C in its node's output dtype, never in a narrower one.

numpy chooses a function's loop from its inputs alone: ``np.sqrt`` of int8 runs the float16 loop and
``np.multiply`` of two int8 wraps in int8. A scalar op's ``output_types_preference`` may give a wider
output (upgrade_to_float: float32; int_out: int64), and its C computes there (an integer operand is
promoted, or cast to the output's C type as PyTensor's c_code does). Its ``perform``, Elemwise's and a
fused loop's (FAST_COMPILE, DebugMode's reference) compute there too:

- a numpy ufunc (what nfunc_spec names: numpy's, scipy.special's) runs the loop whose outputs are the
  node's output dtypes, found as numpy finds loops (``signature`` with the outputs fixed, safe casts of
  the inputs: ldexp keeps its integer exponent), on the operands as they are, else on the operands
  ``computing_operand`` converts; where the ufunc has no such loop (sqrt into float32 from float64, or
  into int64), numpy's own loop on the converted operands, and the result is cast;
- any other function (a Python ``impl``, per element; a dotted path to a plain function) takes the
  operands ``computing_operand`` converts.

An operand is converted to the output dtype where numpy casts it safely (int8 -> int64, float16 ->
float32), and an integer or bool operand of a float or complex output always (as PyTensor's perform
and C do: int32 -> float32). A wider float operand is never rounded down first: the computation keeps
its precision and the result is rounded once, as C computes ``z = x - y`` with double operands.
"""

from __future__ import annotations

import functools

import numpy as np


def target_dtype(out_dtypes):
    """Return the one dtype an operand is computed in for outputs `out_dtypes` (their common dtype)."""
    return np.result_type(*[np.dtype(d) for d in out_dtypes])


def computing_operand(dtype, target):
    """Return the dtype an operand of `dtype` takes to compute a result of dtype `target` (see module)."""
    dtype, target = np.dtype(dtype), np.dtype(target)
    if dtype == target:
        return dtype
    if np.can_cast(dtype, target, "safe") or (dtype.kind in "biu" and target.kind in "fc"):
        return target
    return dtype


def converted(values, target):
    """Return each of `values` (arrays or numpy scalars) in the dtype computing_operand gives it."""
    result = []
    for value in values:
        dtype = getattr(value, "dtype", None)
        wanted = dtype if dtype is None else computing_operand(dtype, target)
        result.append(value if wanted is None or wanted == dtype else value.astype(wanted))
    return result


@functools.lru_cache(maxsize=4096)
def _resolves(ufunc, in_dtypes, out_dtypes):
    """True if `ufunc` has a loop for inputs of `in_dtypes` (cast safely) giving `out_dtypes` (None: any)."""
    kwargs = {} if out_dtypes is None else {"signature": (None,) * len(in_dtypes) + out_dtypes, "casting": "safe"}
    try:
        with np.errstate(all="ignore"):
            ufunc(*[np.empty(0, d) for d in in_dtypes], **kwargs)
    except TypeError:  # numpy's UFuncTypeError: no such loop
        return False
    return True


def call_in(function, arrays, out_dtypes):
    """Return `function` of `arrays` computed in `out_dtypes` (dtype names, one per output); see module.

    A ufunc runs the first of: the loop giving `out_dtypes` from the operands as they are, then from the
    converted operands (computing_operand); numpy's own loop on the converted operands, then on the
    operands as they are. Another function takes the converted operands. The caller casts the result
    to the output dtypes (a no-op where the loop gave them).
    """
    out_dtypes = tuple(str(np.dtype(d)) for d in out_dtypes)
    wider = converted(arrays, target_dtype(out_dtypes))
    if not isinstance(function, np.ufunc):
        return function(*wider)
    if function.nout == len(out_dtypes) and function.nin == len(arrays):
        for operands, outs in ((arrays, out_dtypes), (wider, out_dtypes), (wider, None)):
            if _resolves(function, tuple(str(np.asarray(a).dtype) for a in operands), outs):
                if outs is None:
                    return function(*operands)
                return function(*operands, signature=(None,) * len(operands) + outs, casting="safe")
    return function(*arrays)
