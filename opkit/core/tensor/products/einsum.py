"""numpy's einsum for tensors: ``einsum("ij,jk->ik", a, b)``, built from diagonal, dimshuffle, mul and sum.

The subscripts are numpy's: letters per operand, ``->`` and the output's letters (without it, the letters
that appear once, sorted, after the ellipsis's axes), ``...`` for broadcast axes. A letter repeated in one
operand takes its diagonal (``"ii->i"``, ``"ii"`` the trace). Each operand's axes are put in one common order
(dimshuffle, length-1 axes where it lacks a letter), the operands multiplied elementwise and the letters not in
the output summed away: FAST_RUN fuses the product into the sum's loop (one C loop, no intermediate the
size of every letter's length together; a two-operand contraction is not a BLAS call). The result dtype is
numpy's (the operands' result type; bool operands give bool as numpy's). Gradients are the pieces' own.
`optimize` (PyTensor's and numpy's contraction-order flag) is accepted and ignored.
"""

from __future__ import annotations

import string

import numpy as np

from opkit.core.tensor.elementwise.basic import mul
from opkit.core.tensor.reductions.reduction import sum as sum_
from opkit.core.tensor.reductions.statistics import any as any_
from opkit.core.tensor.shapes.alloc import cast
from opkit.core.tensor.shapes.diagonal import diagonal
from opkit.core.tensor.types.variable import as_tensor_variable

_LETTERS = string.ascii_letters


def _parse(subscripts, operands):
    """Return ([each operand's letters], the output's letters) with the ellipses spelled out as letters."""
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: subscripts must be a string, got {subscripts!r}")
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    parts = inputs.split(",")
    if len(parts) != len(operands):
        raise ValueError(f"einsum: the subscripts {subscripts!r} name {len(parts)} operand(s), got {len(operands)}")
    bad = sorted(set(spec) - set(_LETTERS) - set(",.->"))
    if bad:
        raise ValueError(f"einsum: invalid subscript character(s) {bad} in {subscripts!r}; use letters, ',', '...' "
                         "and '->'")
    if "-" in output or ">" in output or "-" in inputs or ">" in inputs:
        raise ValueError(f"einsum: subscripts {subscripts!r} have a misplaced '->'")
    used = set(spec)
    spare = [c for c in _LETTERS if c not in used]
    widest = 0
    letters = []
    for part, x in zip(parts, operands):
        explicit = part.replace("...", "")
        if "." in explicit or part.count("...") > 1:
            raise ValueError(f"einsum: operand subscripts {part!r} have a '.' that is not one '...'")
        if "..." in part:
            width = x.ndim - len(explicit)
            if width < 0:
                raise ValueError(f"einsum: operand {len(letters)} has {x.ndim} dimensions, fewer than the "
                                 f"{len(explicit)} letters of {part!r}")
            widest = max(widest, width)
            part = part.replace("...", "".join(spare[len(spare) - width:]) if width else "")
        elif len(part) != x.ndim:
            raise ValueError(f"einsum: operand {len(letters)} has {x.ndim} dimensions but its subscripts {part!r} "
                             f"name {len(part)}")
        letters.append(part)
    ellipsis = "".join(spare[len(spare) - widest:]) if widest else ""
    if arrow:
        explicit = output.replace("...", "")
        if "." in explicit or output.count("...") > 1:
            raise ValueError(f"einsum: output subscripts {output!r} have a '.' that is not one '...'")
        if widest and "..." not in output:
            raise ValueError(f"einsum: the operands have broadcast axes ('...') but the output {output!r} does not")
        output = output.replace("...", ellipsis)
        if len(set(output)) != len(output):
            raise ValueError(f"einsum: output subscripts {output!r} name a letter twice")
        missing = sorted(set(output) - set("".join(letters)))
        if missing:
            raise ValueError(f"einsum: output letters {missing} are in no operand")
    else:
        counts = {c: "".join(letters).count(c) for c in set("".join(letters)) - set(ellipsis)}
        output = ellipsis + "".join(sorted(c for c, n in counts.items() if n == 1))
    return letters, output


def _take_diagonals(x, letters):
    """`x` with each letter repeated in `letters` reduced to its diagonal (moved last), and its new letters."""
    while len(set(letters)) != len(letters):
        c = next(c for c in letters if letters.count(c) > 1)
        first = letters.index(c)
        second = letters.index(c, first + 1)
        x = diagonal(x, 0, first, second)
        letters = "".join(l for i, l in enumerate(letters) if i not in (first, second)) + c
    return x, letters


def einsum(subscripts, *operands, optimize=None):
    """Return numpy.einsum(subscripts, *operands) as a graph (see the module's docstring)."""
    if not operands:
        raise ValueError("einsum: no operands")
    operands = [as_tensor_variable(x) for x in operands]
    letters, output = _parse(subscripts, operands)
    dtype = str(np.result_type(*(np.dtype(x.dtype) for x in operands)))
    order = list(dict.fromkeys("".join(letters)))
    order = [c for c in order if c not in output] + list(output)  # the summed letters first, the output's last
    aligned = []
    for x, part in zip(operands, letters):
        x, part = _take_diagonals(x, part)
        aligned.append(x.dimshuffle([part.index(c) if c in part else "x" for c in order]))
    product = aligned[0]
    for x in aligned[1:]:
        product = mul(product, x)
    summed = [i for i, c in enumerate(order) if c not in output]
    if dtype == "bool":
        result = any_(product, axis=summed) if summed else product
    else:
        result = sum_(product, axis=summed) if summed else product
    # numpy's einsum keeps the operands' type (int8 sums wrap in int8): the int64 sum cast back wraps the same
    return cast(result, dtype) if result.dtype != dtype else result
