"""What shape inference must keep of an op: Assert (an op's own shape error) and Depend (run checks first).

When FAST_RUN replaces ``x.shape`` by the shape an op's ``infer_shape``
computes, the op no longer runs, and neither do the checks it makes of its
inputs (reshape's element count, an index in bounds, equal lengths to join).
An op states those checks in ``shape_checks(node, input_shapes)``: a list of
variables whose computation raises the op's own error (class and message) when
the op would. The rewrite (opkit.core.rewrites.ShapeInference) makes every
inferred dimension ``depend`` on them, so a shape is never more permissive than
running the op.
"""

from __future__ import annotations

import operator

import numpy as np

from opkit.core.c_source import SectionOp, render
from opkit.core.graph import Apply, Constant
from opkit.core.op import Op
from opkit.core.tensor.types.variable import as_tensor_variable, constant
from opkit.core.tensor.types.c_interface import c_dtype
from opkit.core.builtin_ops import Shape_i

# relation: its Python test of (lhs, rhs); its C test is the macro `relation` of templates/shape_checks.c.j2
RELATIONS = {
    "eq": operator.eq,
    "ne": operator.ne,
    "ge": operator.ge,
    "in_range": lambda a, b: -b <= a < b,
    "broadcasts": lambda a, b: a == 1 or a == b,
}
EXCEPTIONS = {"ValueError": ValueError, "IndexError": IndexError, "LinAlgError": np.linalg.LinAlgError}


def _message_pieces(template):
    """Return the literal texts of `template` between its ``{}`` fields (one more than the fields)."""
    import string  # only when C code is made: importing opkit.tensor does not need it

    pieces = [""]
    for literal, field, _, _ in string.Formatter().parse(template):
        pieces[-1] += literal
        if field is not None:
            pieces.append("")
    return pieces


def _integer_scalar(value):
    value = constant(np.int64(value)) if isinstance(value, (int, np.integer)) else as_tensor_variable(value)
    if value.ndim != 0 or np.dtype(value.dtype).kind not in "iub":
        raise TypeError(f"a shape check takes integer scalars, got {value} of type {value.type}")
    return value


class Assert(Op):
    """Return `lhs` if ``relation(lhs, rhs)`` holds, else raise `exception` with `template` formatted by the args.

    Inputs: lhs, rhs, then the integer scalars that fill the template's ``{}``.
    The message is the one the checked op gives, so FAST_RUN's shape raises as
    FAST_COMPILE's run does.
    """

    __props__ = ("exception", "template", "relation")
    view_map = {0: [0]}

    def __init__(self, exception, template, relation):
        if exception not in EXCEPTIONS or relation not in RELATIONS:
            raise ValueError(f"Assert: exception must be one of {sorted(EXCEPTIONS)} and relation one of "
                             f"{sorted(RELATIONS)}, got {exception!r} and {relation!r}")
        self.exception, self.template, self.relation = exception, str(template), relation

    def make_node(self, lhs, rhs, *args):
        inputs = [_integer_scalar(v) for v in (lhs, rhs, *args)]
        return Apply(self, inputs, [inputs[0].type()])

    def perform(self, node, inputs, output_storage):
        lhs, rhs, *args = [int(v) for v in inputs]
        if not RELATIONS[self.relation](lhs, rhs):
            raise EXCEPTIONS[self.exception](self.template.format(*args))
        output_storage[0][0] = inputs[0]

    def c_code(self, node, name, inputs, outputs, sub):
        return render("shape_checks.c.j2", "assert_", relation_kind=self.relation, exception=self.exception,
                      pieces=_message_pieces(self.template), out=outputs[0], inputs=list(inputs),
                      ctypes=[c_dtype(v.dtype) for v in node.inputs], fail=sub["fail"])

    def c_code_cache_version(self):
        return (3,)

    def infer_shape(self, node, input_shapes):
        return [()]

    def shape_checks(self, node, input_shapes):
        return [node.outputs[0]]

    def __str__(self):
        return f"Assert{{{self.relation}: {self.exception}}}"


class Depend(SectionOp):
    """Return the first input once the others (checks) are computed: their errors come first."""

    __props__ = ()
    view_map = {0: [0]}
    section_files = ("depend.c",)

    def make_node(self, value, *checks):
        value = as_tensor_variable(value)
        return Apply(self, [value, *[as_tensor_variable(c) for c in checks]], [value.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        return list(node.inputs[1:])

    def __str__(self):
        return "Depend"


_depend = Depend()


def depend(value, *checks):
    """Return `value` computed after `checks` (None entries ignored); `value` itself if there are none."""
    checks = [c for c in checks if c is not None]
    return _depend(value, *checks) if checks else value


def combine(checks):
    """Return one variable that computes every check of `checks` (in order), or None if there are none."""
    unique = list({id(c): c for c in checks if c is not None}.values())
    return depend(unique[0], *unique[1:]) if unique else None


def static_int(value):
    """Return the int a dimension is known to be (an int or a constant), else None."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, Constant) and np.ndim(value.data) == 0:
        return int(value.data)
    return None


def check_chain(checks):
    """Return Assert nodes for `checks`, each computed after the one before (numpy's order of errors).

    `checks`: (exception, template, relation, lhs, rhs, args) tuples. A check
    that constants already satisfy is left out. Return the last Assert, or None.
    """
    last = None
    for exception, template, relation, lhs, rhs, args in checks:
        a, b = static_int(lhs), static_int(rhs)
        if a is not None and b is not None and RELATIONS[relation](a, b):
            continue
        lhs = depend(_integer_scalar(lhs), last)
        last = Assert(exception, template, relation)(lhs, rhs, *args)
    return last


def shape_template(ndim, separator=", "):
    """Return the template of a shape as Python prints it, (2, 3), (4,) or (); numpy's errors use ','."""
    if ndim == 1:
        return "({},)"
    return "(" + separator.join(["{}"] * ndim) + ")"


def broadcast_into_checks(value_dims, target_dims):
    """Checks that a value of `value_dims` broadcasts into `target_dims`, as ``result[...] = value``."""
    template = (f"could not broadcast input array from shape {shape_template(len(value_dims), ',')} into shape "
                f"{shape_template(len(target_dims), ',')}")
    args = (*value_dims, *target_dims)
    offset = len(target_dims) - len(value_dims)
    return [("ValueError", template, "eq", v, 1, args) if offset + k < 0 else
            ("ValueError", template, "broadcasts", v, target_dims[offset + k], args)
            for k, v in enumerate(value_dims)]


def broadcast_into_error(value_shape, target_shape):
    """Raise numpy's ValueError if an array of `value_shape` does not broadcast into `target_shape`."""
    offset = len(target_shape) - len(value_shape)
    if any(v != 1 and (offset + k < 0 or v != target_shape[offset + k]) for k, v in enumerate(value_shape)):
        template = (f"could not broadcast input array from shape {shape_template(len(value_shape), ',')} into "
                    f"shape {shape_template(len(target_shape), ',')}")
        raise ValueError(template.format(*value_shape, *target_shape))


def known_nonnegative(dim):
    """Return True if `dim` is a length read from a shape (or a nonnegative constant): it needs no check."""
    while dim.owner is not None and isinstance(dim.owner.op, Depend):
        dim = dim.owner.inputs[0]
    value = static_int(dim)
    return value >= 0 if value is not None else dim.owner is not None and isinstance(dim.owner.op, Shape_i)


def nonempty_checks(dims, message):
    """Checks that every dimension in `dims` is nonzero (numpy: a reduction with no identity of an empty axis)."""
    return [("ValueError", message.replace("{", "{{").replace("}", "}}"), "ne", d, 0, ()) for d in dims]
