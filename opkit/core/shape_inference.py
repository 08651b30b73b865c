"""Symbolic shapes of variables through each op's ``infer_shape``, keeping the checks the op makes.

The contract: ``infer_shape(node, input_shapes)`` returns one shape tuple per
output; ``shape_checks(node, input_shapes)`` (optional) returns variables whose
computation raises the error the op raises for those inputs (see
opkit.core.tensor.types.shape_checks). A node's *token* computes its own checks and
its inputs' tokens, and every inferred dimension of the node depends on it: a
shape computed here raises whenever running the graph up to that node would
raise on the shapes. An op without ``shape_checks`` is trusted to raise
nowhere its infer_shape does not; opkit's own ops all declare theirs
(tests/tensor/test_trust3_shapes.py keeps them honest).
"""

from __future__ import annotations

from opkit.core.graph import Constant, Variable


class ShapeInference:
    """Symbolic shapes of variables, through each op's ``infer_shape`` and ``shape_checks``."""

    def __init__(self):
        self._shapes = {}    # variable -> tuple of int64 scalar variables, or None
        self._nodes = {}     # node -> (shapes or None, token or None)
        self._carried = {}   # id(dimension) -> the token it already depends on

    def shape_of(self, variable):
        """Return a tuple of int64 scalar variables, or None for shapeless types."""
        if variable in self._shapes:
            return self._shapes[variable]
        ndim = getattr(variable.type, "ndim", None)
        result = None
        if ndim is not None:
            result = self._from_op(variable)
            if result is None:
                result = tuple(self._as_dim(d, s) for d, s in zip(self._from_shape_i(variable, ndim),
                                                                    variable.type.shape))
        self._shapes[variable] = result
        return result

    def token_of(self, variable):
        """Return a variable computing every check `variable`'s shape relies on, or None.

        Where no infer_shape answers for its op, that is `variable` itself: only running the op checks it.
        """
        self.shape_of(variable)
        if variable.owner is None:
            return None
        shapes, token = self._nodes.get(variable.owner, (None, None))
        return variable if shapes is None else token

    def _from_op(self, variable):
        node = variable.owner
        if node is None or getattr(node.op, "infer_shape", None) is None:
            return None
        if node not in self._nodes:
            self._nodes[node] = self._infer(node)
        shapes = self._nodes[node][0]
        return None if shapes is None else shapes[variable.index]

    def _infer(self, node):
        """Return (guarded shapes of node's outputs, or None; node's token)."""
        from opkit.core.tensor.types.shape_checks import combine, depend

        input_shapes = [self.shape_of(v) for v in node.inputs]
        try:
            shapes = node.op.infer_shape(node, input_shapes)
        except NotImplementedError:
            return None, None
        checks = list(getattr(node.op, "shape_checks", _no_checks)(node, input_shapes))
        result = []
        for out, shape in zip(node.outputs, shapes):
            static = getattr(out.type, "shape", None)
            if shape is None or static is None or len(tuple(shape)) != len(static):
                result.append(None)
                continue
            shape = tuple(shape)
            # A length the type states becomes a constant: infer_shape's expression for it may be a check.
            checks += [d for d, s in zip(shape, static) if s is not None and _is_computed(d)]
            result.append(tuple(self._as_dim(d, s) for d, s in zip(shape, static)))
        checks += [self.token_of(v) for v in node.inputs]
        token = combine(checks)
        if token is None:
            return result, None
        guarded = []
        for shape in result:
            if shape is not None:
                shape = tuple(self._guard(d, token, depend) for d in shape)
            guarded.append(shape)
        return guarded, token

    def _guard(self, dim, token, depend):
        if self._carried.get(id(dim)) is token:
            return dim
        guarded = depend(dim, token)
        self._carried[id(guarded)] = token
        return guarded

    @staticmethod
    def _from_shape_i(variable, ndim):
        from opkit.core.builtin_ops import Shape_i

        return tuple(Shape_i(i)(variable) for i in range(ndim))

    @staticmethod
    def _as_dim(dim, static):
        from opkit.core.tensor.types.variable import as_tensor_variable, constant

        if static is not None:
            return constant(static, dtype="int64")
        if isinstance(dim, int) or hasattr(dim, "__index__"):
            return constant(int(dim), dtype="int64")
        return as_tensor_variable(dim)


def _no_checks(node, input_shapes):
    return []


def _is_computed(dim):
    return isinstance(dim, Variable) and not isinstance(dim, Constant)
