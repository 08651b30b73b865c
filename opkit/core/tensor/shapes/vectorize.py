"""PyTensor's vectorize(func, signature=None): numpy.vectorize for graphs, without PyTensor's Blockwise.

``vectorize(func, signature="(m,n),(n)->(m)")`` returns a function of tensors with extra (batch) axes in front of
the signature's core axes. Where every input has only its core axes, it is `func` itself. opkit has no
Blockwise op, so batch axes are unrolled: their lengths must be known when the graph is built (static shapes);
`func` is applied to each batch element (numpy's broadcasting of the batch axes, length 1 against n) and the
results stacked, so the graph grows with the batch's size (meant for small batches; a graph of elementwise ops
is already vectorized: call it directly). Batch axes of unknown length raise NotImplementedError. Without a
signature every input is a scalar core, as PyTensor's ("()->()" for each input); outputs may have any shape.
C and gradients are those of `func`'s graph, of indexing and of stack.
"""

from __future__ import annotations

import itertools
import re

from opkit.core.tensor.shapes.join import stack
from opkit.core.tensor.types.variable import TensorVariable

_DIMS = r"\((?:\w+(?:,\s*\w+)*)?\)"
_SIGNATURE = re.compile(rf"^\s*{_DIMS}(?:\s*,\s*{_DIMS})*\s*->\s*{_DIMS}(?:\s*,\s*{_DIMS})*\s*$")


def parse_signature(signature):
    """Return ([each input's core dimension names], [each output's]) of a gufunc signature, as numpy reads it."""
    if not isinstance(signature, str) or not _SIGNATURE.match(signature):
        raise ValueError(f"vectorize: not a valid gufunc signature: {signature!r} (e.g. '(m,n),(n)->(m)')")
    inputs, outputs = signature.replace(" ", "").split("->")
    read = lambda side: [tuple(d for d in group.split(",") if d) for group in re.findall(r"\(([^)]*)\)", side)]
    return read(inputs), read(outputs)


def _broadcast(shapes, what):
    """numpy's broadcast of static batch shapes (ints), or ValueError."""
    width = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(width):
        lengths = {s[axis - width + len(s)] for s in shapes if axis - width + len(s) >= 0}
        lengths.discard(1)
        if len(lengths) > 1:
            raise ValueError(f"{what}: the batch axes {shapes} do not broadcast")
        out.append(lengths.pop() if lengths else 1)
    return tuple(out)


def vectorize(func, signature=None):
    """Return `func` vectorized over leading batch axes (see the module's docstring)."""
    if not callable(func):
        raise TypeError(f"vectorize: func must be callable, got {func!r}")
    core_in, core_out = parse_signature(signature) if signature is not None else (None, None)

    def vectorized(*inputs):
        signatures = core_in if core_in is not None else [()] * len(inputs)
        if len(inputs) != len(signatures):
            raise ValueError(f"vectorize: {len(inputs)} input(s), the signature {signature!r} has {len(signatures)}")
        for x in inputs:
            if not isinstance(x, TensorVariable):
                raise TypeError(f"vectorize: inputs must be TensorVariables, got {type(x).__name__}")
        batch_shapes = []
        for x, core in zip(inputs, signatures):
            if x.ndim < len(core):
                raise ValueError(f"vectorize: input {x} has {x.ndim} dimensions, fewer than the signature's "
                                 f"{len(core)} core dimensions {core}")
            batch_shapes.append(x.type.shape[:x.ndim - len(core)])
        if not any(batch_shapes):
            outputs = func(*inputs)
            _check_outputs(outputs, core_out, signature)
            return outputs
        unknown = [x for x, b in zip(inputs, batch_shapes) if None in b]
        if unknown:
            raise NotImplementedError(f"vectorize: the batch axes of {unknown[0]} (shape {unknown[0].type.shape}) "
                                      "have lengths not known when the graph is built; opkit unrolls batch axes "
                                      "(it has no Blockwise op): give them static lengths (shape=...)")
        batch = _broadcast([tuple(b) for b in batch_shapes], "vectorize")
        results = []
        for index in itertools.product(*(range(n) for n in batch)):
            core_inputs = []
            for x, b in zip(inputs, batch_shapes):
                own = index[len(batch) - len(b):]
                core_inputs.append(x[tuple(0 if n == 1 else i for n, i in zip(b, own))] if b else x)
            outputs = func(*core_inputs)
            _check_outputs(outputs, core_out, signature)
            results.append(list(outputs) if isinstance(outputs, (list, tuple)) else [outputs])
        stacked = [stack([r[k] for r in results]) for k in range(len(results[0]))]
        stacked = [s.reshape((*batch, *s.shape[1:]), ndim=len(batch) + s.ndim - 1) if len(batch) != 1 else s
                   for s in stacked]
        return stacked if isinstance(outputs, (list, tuple)) else stacked[0]

    vectorized.__name__ = f"vectorized_{getattr(func, '__name__', 'func')}"
    return vectorized


def _check_outputs(outputs, core_out, signature):
    if outputs is None:
        raise ValueError("vectorize: func returned no outputs")
    count = len(outputs) if isinstance(outputs, (list, tuple)) else 1
    if core_out is not None and count != len(core_out):
        raise ValueError(f"vectorize: func returned {count} output(s), the signature {signature!r} has "
                         f"{len(core_out)}")
