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
from opkit.core.tensor.types.shape_checks import combine, depend
from opkit.core.builtin_ops import Shape_i
from opkit.core.tensor.types.variable import as_tensor_variable, constant
from opkit.config import config


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
        input_shapes = [self.shape_of(v) for v in node.inputs]
        try:
            result, checks = self._op_shapes(node, input_shapes)
        except NotImplementedError:
            return None, None
        except Exception as exc:  # noqa: BLE001 (an op's own code: Theano's rule, warn and run the op)
            infer_shape_failed(node, exc)
            return None, None
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

    def _op_shapes(self, node, input_shapes):
        """Return (the shapes the op's infer_shape gives, as dimension variables or None; its checks)."""
        shapes = node.op.infer_shape(node, input_shapes)
        if not isinstance(shapes, (list, tuple)) or len(shapes) != len(node.outputs):
            raise TypeError(f"infer_shape returned {shapes!r:.200}, not a list of one shape per output "
                            f"({len(node.outputs)})")
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
        return result, checks

    def _guard(self, dim, token, depend):
        if self._carried.get(id(dim)) is token:
            return dim
        guarded = depend(dim, token)
        self._carried[id(guarded)] = token
        return guarded

    @staticmethod
    def _from_shape_i(variable, ndim):
        return tuple(Shape_i(i)(variable) for i in range(ndim))

    @staticmethod
    def _as_dim(dim, static):
        if static is not None:
            return constant(static, dtype="int64")
        if isinstance(dim, int) or hasattr(dim, "__index__"):
            return constant(int(dim), dtype="int64")
        if not isinstance(dim, Variable):
            raise TypeError(f"infer_shape gave the dimension {dim!r:.80}, not an int or an integer scalar variable")
        dim = as_tensor_variable(dim)
        if getattr(dim.type, "ndim", None) != 0 or str(getattr(dim.type, "dtype", "")).rstrip("0123456789") \
                not in ("int", "uint", "bool"):
            raise TypeError(f"infer_shape gave the dimension {dim} of type {dim.type}, not an integer scalar")
        return dim


class ShapeInferenceError(RuntimeError):
    """An op's infer_shape raised (other than NotImplementedError) with config.on_shape_error = "raise"."""


def infer_shape_failed(node, exc):
    """Warn that `node`'s infer_shape raised `exc` (its shapes then come from running the op), or raise with
    config.on_shape_error = "raise"."""
    import logging


    op = node.op
    message = (f"infer_shape of {op} (op {type(op).__module__}.{type(op).__qualname__}) raised "
               f"{type(exc).__name__}: {exc}")
    if config.on_shape_error == "raise":
        raise ShapeInferenceError(f"{message}\n(config.on_shape_error is 'raise'; with 'warn', the default, opkit "
                                  f"warns and runs the op for its output shapes)") from exc
    logging.getLogger("opkit.shape_inference").warning(
        "%s; opkit runs the op for its output shapes instead.\nHint: fix infer_shape, or raise "
        "NotImplementedError where it cannot tell; OPKIT_FLAGS=on_shape_error=raise makes this an error "
        "(for op authors' tests).", message)


def _no_checks(node, input_shapes):
    return []


def _is_computed(dim):
    return isinstance(dim, Variable) and not isinstance(dim, Constant)
