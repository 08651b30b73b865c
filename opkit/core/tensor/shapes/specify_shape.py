"""SpecifyShape: a view of a tensor that states (and checks at run time) part of its shape."""

from __future__ import annotations

import functools

from opkit.core.c_source import render
from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.tensor.types.shape_checks import check_chain, shape_template
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable


class SpecifyShape(Op):
    """Return the input itself, typed with the static `shape` (None entries: unknown); raise if it differs.

    What ``TensorType.convert_variable`` inserts to give a variable a more
    specific type, as PyTensor's ``specify_shape``. C: the macro `specify_shape` of
    templates/specify_shape.c.j2 (a check per stated length).
    """

    __props__ = ("shape",)
    view_map = {0: [0]}

    def __init__(self, shape):
        self.shape = tuple(None if s is None else int(s) for s in shape)

    def make_node(self, x):
        x = as_tensor_variable(x)
        if x.ndim != len(self.shape):
            raise ValueError(f"specify_shape: {x} has {x.ndim} dimensions but the shape {self.shape} has "
                             f"{len(self.shape)}")
        merged = []
        for axis, (known, stated) in enumerate(zip(x.type.shape, self.shape)):
            if known is not None and stated is not None and known != stated:
                raise ValueError(f"specify_shape: axis {axis} of {x} has static length {known}, not {stated}")
            merged.append(known if stated is None else stated)
        return Apply(self, [x], [TensorType(x.dtype, merged)()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        for axis, (stated, got) in enumerate(zip(self.shape, x.shape)):
            if stated is not None and stated != got:
                raise ValueError(f"specify_shape: expected shape {_text(self.shape)}, got {x.shape} "
                                 f"(axis {axis} has length {got}, not {stated})")
        output_storage[0][0] = x

    def c_code(self, node, name, inputs, outputs, sub):
        return _specify_shape_code(inputs[0], outputs[0], sub["fail"], self.shape)

    def c_code_cache_version(self):
        return (2,)

    def infer_shape(self, node, input_shapes):
        return [tuple(s if s is not None else d for s, d in zip(self.shape, input_shapes[0]))]

    def shape_checks(self, node, input_shapes):
        dims = input_shapes[0]
        got = shape_template(len(dims))
        return [check_chain([
            ("ValueError", f"specify_shape: expected shape {_text(self.shape)}, got {got} (axis {axis} has length "
             f"{{}}, not {stated})", "eq", dims[axis], stated, (*dims, dims[axis]))
            for axis, stated in enumerate(self.shape) if stated is not None])]

    def grad(self, inputs, output_grads):
        return [output_grads[0]]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else self(eval_points[0])]

    def __str__(self):
        return f"SpecifyShape{{{_text(self.shape)}}}"


@functools.lru_cache(maxsize=4096)  # its code is made again and again with the same names
def _specify_shape_code(x, z, fail, shape):
    return render("specify_shape.c.j2", "specify_shape", x=x, z=z, fail=fail, shape=shape, text=_text(shape))


def _text(shape):
    return "(" + ", ".join("?" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def specify_shape(x, shape):
    """Return `x` with the static `shape` (a tuple of ints and None), checked when the graph runs."""
    x = as_tensor_variable(x)
    shape = tuple(shape)
    if len(shape) == x.ndim and all(s is None or s == k for s, k in zip(shape, x.type.shape)):
        return x  # nothing to state that the type does not already say
    return SpecifyShape(shape)(x)
