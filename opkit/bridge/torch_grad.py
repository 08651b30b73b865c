"""The gradient of an opkit op for torch's autograd: its L_op graph, compiled by opkit as its own function.

For input types (dtype, ndim per input) and cotangent types, `GradGraph` builds
the op's gradient on fresh variables as opkit.grad does (its L_op, or a NullType
naming the op where it has none) and compiles the connected gradients into one
opkit function, once (the bridge keeps one per types). A disconnected gradient
is zeros; an undefined one (NullType) raises when torch asks for it, with the
op's reason.
"""

from __future__ import annotations

from opkit.core.gradient import node_input_grads
from opkit.core.gradient_types import DisconnectedType, NullType
from opkit.core.tensor.types.type import TensorType
from opkit.link.function import function


def input_variables(op, input_types):
    """Return fresh variables of `input_types` ((dtype, ndim) pairs) for `op`: its itypes where it names them.

    As op.compute does: an ``as_op`` op names its input types (static shapes
    included), any other op gets tensors of the inputs' dtypes and ranks.
    """
    itypes = getattr(op, "itypes", None)
    if itypes is not None and len(itypes) == len(input_types) and all(
            getattr(t, "dtype", None) == dtype and getattr(t, "ndim", None) == ndim
            for t, (dtype, ndim) in zip(itypes, input_types)):
        return [t(f"x{i}") for i, t in enumerate(itypes)]
    return [TensorType(dtype, (None,) * ndim)(f"x{i}") for i, (dtype, ndim) in enumerate(input_types)]


class GradGraph:
    """The L_op of `op` on inputs of `input_types` and cotangents of `cotangent_types` ((dtype, ndim) pairs)."""

    def __init__(self, op, input_types, cotangent_types, where):
        self.where = where
        self.inputs = input_variables(op, input_types)
        node = op.make_node(*self.inputs)
        self.cotangents = [TensorType(dtype, (None,) * ndim)(f"g{i}")
                           for i, (dtype, ndim) in enumerate(cotangent_types)]
        if len(self.cotangents) != len(node.outputs):
            raise TypeError(f"{where}: {len(self.cotangents)} output gradients for {len(node.outputs)} outputs")
        # opkit.grad's own step: an op without grad gives each input a NullType saying so (torch's backward
        # raises it with the op's name), an integer output a zero gradient, a wrong count an error naming the op
        grads = node_input_grads(node, self.cotangents)
        # per input: None (disconnected: zeros), a NullType's reason (str), or the index of a computed gradient
        self.kinds, self.outputs = [], []
        for g in grads:
            if g is None or isinstance(g.type, DisconnectedType):
                self.kinds.append(None)
            elif isinstance(g.type, NullType):
                self.kinds.append(g.type.why_null)
            else:
                self.kinds.append(len(self.outputs))
                self.outputs.append(g)
        self.dtypes = [self.outputs[k].type.dtype if isinstance(k, int) else x.type.dtype
                       for k, x in zip(self.kinds, self.inputs)]
        self._function = None

    def function(self):
        """Return the compiled function of the computed gradients (compiled on first use)."""
        if self._function is None:
            self._function = function(self.inputs + self.cotangents, self.outputs, name=f"grad of {self.where}",
                                      on_unused_input="ignore")
        return self._function
