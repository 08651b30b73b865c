"""Elemwise: a scalar function applied over broadcast arrays."""

from __future__ import annotations

import numpy as np

from opkit.core.c_source import SectionOp
from opkit.core.gradient_registry import registered
from opkit.core.graph import Apply, Variable
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable, constant
from opkit.core.tensor.types.weak import is_weak_number, weak_constant_data
from opkit.core.c_source import render
from opkit.core.tensor.scalars.scalar_ops import has_c_dtype, program_operand_dtypes
from opkit.core.tensor.scalars.user_scalar import is_user_scalar_op
from opkit.core.tensor.elementwise.elemwise_c import scalar_step_name
from opkit.core.tensor.scalars.scalar_ops import program_operand_dtypes
from opkit.core.tensor.scalars.user_scalar import is_user_scalar_op, scalar_node
from opkit.core.tensor.elementwise.elemwise_c import elemwise_c_code


def _shape_str(shape):
    return str(tuple(shape))


def broadcast_shape(shapes, what="inputs"):
    """Return numpy's broadcast shape of several shapes; raise ValueError naming them if they clash.

    Works on concrete shapes and on static ones (None = unknown): an axis is
    statically known only when every shape that has it knows it, since a known
    length and an unknown one may still clash when the graph runs.
    """
    shapes = [tuple(s) for s in shapes]
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + s for s in shapes]
    result = []
    for axis in range(ndim):
        sizes = {s[axis] for s in padded}
        known = {n for n in sizes if n is not None and n != 1}
        if len(known) > 1:
            raise ValueError(f"{what} with shapes {', '.join(map(_shape_str, shapes))} cannot be broadcast "
                             f"together: axis {axis} has lengths {sorted(known)}")
        if None in sizes:
            result.append(None)
        elif known:
            result.append(known.pop())
        else:
            result.append(1)
    return tuple(result)


def broadcast_checks(inputs, input_shapes, what):
    """Return [a BroadcastAxis raising broadcast_shape's error] if the shapes of `inputs` may clash, else []."""
    static = [v.type.shape for v in inputs]
    ndim = max((len(s) for s in static), default=0)
    for axis in range(ndim):
        lengths = [s[axis - ndim + len(s)] for s in static if axis - ndim + len(s) >= 0]
        others = [n for n in lengths if n != 1]
        if len(others) > 1 and None in others:
            flat = [d for shape in input_shapes for d in shape]
            return [BroadcastAxis([len(s) for s in static], 0, what)(*flat)]
    return []


class BroadcastAxis(SectionOp):
    """The length of one axis of the broadcast of several runtime shapes (shape inference).

    Inputs: every dimension of every shape (int64 scalars), `ndims` saying how
    many belong to each; it raises the same ValueError as the elementwise node
    would when they cannot be broadcast, so `x.shape` never hides that error
    (broadcast.c, shared with Elemwise; its code: elemwise.c.j2's broadcast_axis).
    """

    section_files = ("broadcast.c",)

    __props__ = ("ndims", "axis", "what")

    def __init__(self, ndims, axis, what="inputs"):
        self.ndims = tuple(int(n) for n in ndims)
        self.axis = int(axis)
        self.what = str(what)

    def make_node(self, *dims):
        dims = [as_tensor_variable(d) for d in dims]
        if len(dims) != sum(self.ndims):
            raise TypeError(f"{self} takes {sum(self.ndims)} dimensions, got {len(dims)}")
        for d in dims:
            if d.ndim != 0 or np.dtype(d.dtype).kind not in "iu":
                raise TypeError(f"{self} takes integer scalars, got {d} of type {d.type}")
        return Apply(self, dims, [TensorType("int64", ())()])

    def perform(self, node, inputs, output_storage):
        shapes, position = [], 0
        for n in self.ndims:
            shapes.append(tuple(int(d) for d in inputs[position:position + n]))
            position += n
        output_storage[0][0] = np.asarray(broadcast_shape(shapes, self.what)[self.axis], dtype="int64")

    def infer_shape(self, node, input_shapes):
        return [()]

    def shape_checks(self, node, input_shapes):
        return [node.outputs[0]]  # it raises where the broadcast would

    def has_c_code(self, node):
        return all(v.dtype == "int64" for v in node.inputs)

    def c_code(self, node, name, inputs, outputs, sub):
        return render("elemwise.c.j2", "broadcast_axis", inputs=list(inputs), out=outputs[0], ndims=list(self.ndims),
                      axis=self.axis, what=self.what, fail=sub["fail"])

    def c_code_cache_version(self):
        # Not SectionOp's (it hashes the files at every call): the module's content, which holds the
        # section file's text and the rendered template, is its cache key in any case.
        return (2,)

    def __str__(self):
        return f"BroadcastAxis{{{self.axis}}}"


class Elemwise(SectionOp):
    """Apply `scalar_op` elementwise with numpy broadcasting and numpy's dtype rules.

    Its fixed C (broadcast, output, loops; the scalar functions' helpers) is the
    support_code of the section files below; the code of each node is rendered
    from opkit/templates/elemwise.c.j2 (see elemwise_c).
    """

    section_files = ("broadcast.c", "elemwise.c", "scalar_math.c", "scalar_logic.c", "../scalars/scalar_special.c")

    __props__ = ("scalar_op",)

    def __init__(self, scalar_op, inplace_pattern=None, name=None, nfunc_spec=None):
        # PyTensor's signature. inplace_pattern ({output: input}) is kept but not acted on: the output is
        # always a new array (allowed to overwrite is not obliged to), so it is not part of equality.
        self.scalar_op = scalar_op
        self.inplace_pattern = dict(inplace_pattern or {})
        self.name = name
        self.nfunc_spec = nfunc_spec

    def make_node(self, *inputs):
        if len(inputs) != self.scalar_op.nin:
            raise TypeError(f"{self} takes {self.scalar_op.nin} inputs, got {len(inputs)}")
        # A Python number stays a value until the loop dtypes are known: it may not fit 64 bits.
        inputs = [i if is_weak_number(i) else as_tensor_variable(i) for i in inputs]
        operands = self.scalar_op.weak_operands([_operand(i) for i in inputs])
        out_dtype = self.scalar_op.output_dtype(operands)  # TypeError/OverflowError where numpy refuses
        if not all(isinstance(o, str) for o in operands):
            loop_dtypes = self.scalar_op.operand_dtypes(operands, out_dtype)
            inputs = [i if isinstance(o, str) else _weak_input(i, o, d, f"{self}")
                      for i, o, d in zip(inputs, operands, loop_dtypes)]
        shape = broadcast_shape([i.type.shape for i in inputs], f"the inputs of {self}")
        return Apply(self, inputs, [TensorType(out_dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        broadcast_shape([np.shape(i) for i in inputs], f"the inputs of {self}")
        with np.errstate(all="ignore"):
            result = self.scalar_op.ufunc(*inputs)
        output_storage[0][0] = np.asarray(result, dtype=node.outputs[0].dtype)

    def infer_shape(self, node, input_shapes):
        ndim = node.outputs[0].ndim
        static = node.outputs[0].type.shape
        ndims = [v.ndim for v in node.inputs]
        flat = [d for shape in input_shapes for d in shape]
        result = []
        for axis in range(ndim):
            if static[axis] is not None:
                result.append(static[axis])
                continue
            dims = []
            for variable, shape in zip(node.inputs, input_shapes):
                offset = axis - (ndim - len(shape))
                if offset >= 0 and variable.type.shape[offset] != 1:
                    dims.append(shape[offset])
            if len(dims) == 1:
                result.append(dims[0])  # every other input has length 1 (or no axis) here
            else:
                # Several lengths that may clash: numpy's rule, checked when the graph runs.
                result.append(BroadcastAxis(ndims, axis, f"the inputs of {self}")(*flat))
        return [tuple(result)]

    def shape_checks(self, node, input_shapes):
        return broadcast_checks(node.inputs, input_shapes, f"the inputs of {self}")

    def has_c_code(self, node):
        """C only where it computes numpy's exact result: no float16 or complex, see scalar_ops."""
        if not all(has_c_dtype(v.dtype) for v in node.inputs + node.outputs):
            return False
        steps = self._steps(node)
        operand_dtypes = program_operand_dtypes(steps, [v.dtype for v in node.inputs])
        return all(op.has_c(dtype, loop) for (op, _, dtype), loop in zip(steps, operand_dtypes))

    def _steps(self, node):
        return [(self.scalar_op, tuple(range(len(node.inputs))), node.outputs[0].dtype)]

    def fusable(self, node):
        """Return True if this node may join a fused loop (see fusion)."""
        return True

    def c_compile_args(self, c_compiler=None):
        # Never fuse a multiply and an add into one rounding: numpy rounds each operation.
        return [*super().c_compile_args(c_compiler), "-ffp-contract=off", *self._user_c("c_compile_args")]

    def _scalar_ops(self):
        """The scalar ops this op computes (a fused op: every step's)."""
        return (self.scalar_op,)

    def _user_c(self, method):
        """What the user scalar ops (user_scalar.ScalarOp) among _scalar_ops give for a C method, as a list."""
        found = []
        for op in self._scalar_ops():
            if is_user_scalar_op(op):
                value = getattr(op, method)()
                found.extend([value] if isinstance(value, str) else list(value or ()))
        return [v for v in found if v]

    def c_support_code(self):
        return [super().c_support_code(), *self._user_c("c_support_code")]

    def c_support_code_apply(self, node, name):
        """The section files' apply code, and each user scalar op's for its step (on its scalar node)."""
        codes = [super().c_support_code_apply(node, name)]
        steps = self._steps(node)
        for k, ((op, _, _), dtypes) in enumerate(zip(steps, program_operand_dtypes(steps, [v.dtype for v in
                                                                                         node.inputs]))):
            if is_user_scalar_op(op):
                codes.append(op.c_support_code_apply(scalar_node(op, dtypes), scalar_step_name(name, k)))
        return [c for c in codes if c]

    def c_headers(self, c_compiler=None):
        return [*super().c_headers(c_compiler), *self._user_c("c_headers")]

    def c_header_dirs(self, c_compiler=None):
        return [*super().c_header_dirs(c_compiler), *self._user_c("c_header_dirs")]

    def c_libraries(self, c_compiler=None):
        return [*super().c_libraries(c_compiler), *self._user_c("c_libraries")]

    def c_lib_dirs(self, c_compiler=None):
        return [*super().c_lib_dirs(c_compiler), *self._user_c("c_lib_dirs")]

    def c_code(self, node, name, inputs, outputs, sub):
        return elemwise_c_code(node, name, inputs, outputs, sub, self._steps(node))

    def c_code_cache_version(self):
        # Not SectionOp's (it hashes the files at every call, milliseconds a node): the module's content,
        # which holds the section files' text and the rendered templates, is its cache key in any case.
        return (7,)

    # the gradient rules build ops of every layer: gradients/elemwise_grad.py registers them
    grad = registered("grad")
    R_op = registered("R_op")

    def __str__(self):
        return getattr(self, "name", None) or str(self.scalar_op)


def _weak_input(value, number, dtype, what):
    """Return the constant a weak operand (`value`, the Python `number`) becomes in the loop's `dtype`.

    The user's constant itself when it has that dtype already, so that it stays in
    the graph; else a new constant that remembers it (``tag.weak_source``),
    through which grad reaches the user's constant as through a cast. The value
    is converted as numpy converts it (opkit.core.tensor.types.weak: an error, never a wrap).
    """
    data = weak_constant_data(number, dtype, what)
    if isinstance(value, Variable) and value.dtype == np.asarray(data).dtype:
        return value
    retyped = constant(data)
    if isinstance(value, Variable):
        retyped.tag["weak_source"] = value.tag.get("weak_source", value)
    return retyped


def _operand(value):
    """Return the dtype name of a tensor input, or the Python number of a weak one (see weak)."""
    if is_weak_number(value):
        return value
    if value.owner is None and "weak_value" in value.tag:
        return value.tag["weak_value"]
    return value.dtype
