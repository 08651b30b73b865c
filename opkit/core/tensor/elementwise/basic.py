"""The arithmetic elementwise ops of `opkit.tensor` (add, mul, exp, ...) and Dot; the reductions are in reduction.py."""

from __future__ import annotations

import numpy as np

from opkit.core.gradient_registry import registered
from opkit.core.c_source import SectionOp
from opkit.core.graph import Apply
from opkit.core.tensor.elementwise.elemwise import Elemwise
from opkit.core.tensor.scalars import scalar_ops
from opkit.core.tensor.types.shape_checks import check_chain, shape_template
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable

add = Elemwise(scalar_ops.add)
sub = Elemwise(scalar_ops.sub)
mul = Elemwise(scalar_ops.mul)
true_div = Elemwise(scalar_ops.true_div)
neg = Elemwise(scalar_ops.neg)
exp = Elemwise(scalar_ops.exp)
log = Elemwise(scalar_ops.log)
sqr = Elemwise(scalar_ops.sqr)
sqrt = Elemwise(scalar_ops.sqrt)
maximum = Elemwise(scalar_ops.maximum)
pow = Elemwise(scalar_ops.pow)


def upcast(*dtypes):
    """Return the dtype numpy promotes `dtypes` to, as a string."""
    return str(np.result_type(*[np.dtype(d) for d in dtypes]))


class Dot(SectionOp):
    """numpy.dot for vectors and matrices; C in dot.c (numpy's own dot, no Python call)."""

    __props__ = ()
    section_files = ("broadcast.c", "elemwise.c", "dot.c")

    def make_node(self, x, y):
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        if x.ndim not in (1, 2) or y.ndim not in (1, 2):
            raise TypeError(f"dot takes vectors and matrices, got {x.ndim}-d and {y.ndim}-d")
        xs, ys = x.type.shape, y.type.shape
        if xs[-1] is not None and ys[0] is not None and xs[-1] != ys[0]:
            raise ValueError(f"dot: shapes {xs} and {ys} are not aligned")
        shape = xs[:-1] + ys[1:]
        return Apply(self, [x, y], [TensorType(upcast(x.dtype, y.dtype), shape)()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(np.dot(*inputs), dtype=node.outputs[0].dtype)

    def infer_shape(self, node, input_shapes):
        xs, ys = input_shapes
        return [tuple(xs[:-1]) + tuple(ys[1:])]

    def shape_checks(self, node, input_shapes):
        xs, ys = input_shapes
        template = (f"shapes {shape_template(len(xs), ',')} and {shape_template(len(ys), ',')} not aligned: "
                    f"{{}} (dim {len(xs) - 1}) != {{}} (dim 0)")
        return [check_chain([("ValueError", template, "eq", xs[-1], ys[0], (*xs, *ys, xs[-1], ys[0]))])]

    grad = registered("grad")  # Dot's gradient builds dots and transposes: gradients/reduce_grad.py

    def R_op(self, inputs, eval_points):
        x, y = inputs
        ex, ey = eval_points
        terms = []
        if ex is not None:
            terms.append(dot(ex, y))
        if ey is not None:
            terms.append(dot(x, ey))
        if not terms:
            return [None]
        return [terms[0] if len(terms) == 1 else add(*terms)]


_dot = Dot()


def dot(x, y):
    """Return numpy.dot(x, y) symbolically (vectors and matrices)."""
    return _dot(x, y)
