"""Use opkit ops from PyTorch: ``as_torch_op(op)`` is a ``torch.library`` custom op in the ``opkit`` namespace.

- Eager: CPU tensors reach the op's compiled module as numpy views of their
  memory (no copy, strides kept) through ``op.compute`` (compiled once per input
  dtypes and ranks); its outputs come back with ``torch.from_numpy`` (no copy
  when C-contiguous and writable, which opkit's fresh outputs are).
- torch.compile: a fake implementation gives the outputs' dtypes from the op's
  make_node and their shapes from its ``infer_shape``, evaluated on torch's
  (symbolic) sizes (opkit.bridge.torch_fake), so ``fullgraph=True`` traces
  through the op without a graph break.
- Autograd: the op's ``grad`` (L_op) runs as a second custom op,
  ``opkit::<name>_grad``, whose body is the gradient graph compiled by opkit as
  its own function (opkit.bridge.torch_grad), once per input types.
- dtypes map by name both ways (opkit.bridge.torch_dtypes); bfloat16 and the
  other torch-only dtypes are refused naming the dtype and the op. A tensor
  on a GPU is refused: opkit ops have no GPU kernels yet.

Needs the ``opkit-sdk[torch]`` extra.
"""

from __future__ import annotations

import hashlib
import inspect
import re

import torch
from torch._library.custom_ops import CustomOpDef

from opkit.bridge.torch_dtypes import DtypeNotMapped, as_array, as_tensor, to_opkit_dtype, to_torch_dtype
from opkit.bridge.torch_fake import ShapeNotKnown, evaluate_shape, symbolic_shapes
from opkit.bridge.torch_grad import GradGraph, input_variables
from opkit.bridge.weak_args import number_arrays
from opkit.core.code_identity import python_identity
from opkit.core.op import Op
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.weak import is_weak_number

__all__ = ["as_torch_op", "DtypeNotMapped", "ShapeNotKnown"]

NAMESPACE = "opkit"
# custom op name -> _Bridge. torch cannot unregister an operator, so a registered one is kept for the process
# (its name is a digest of the op's code and props: equal ops share it, any other op gets its own).
_bridges: dict = {}
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def as_torch_op(op: Op, *, n_inputs: int | None = None, n_outputs: int | None = None):
    """Return the torch custom op (``torch.ops.opkit.<name>``) running the opkit op `op` (one per op).

    Call it on tensors: ``as_torch_op(VectorTimesVector())(x, y)``. The number of inputs is
    that of ``op.itypes`` or of ``op.make_node``'s parameters, the number of outputs that of
    ``op.otypes`` or 1: give `n_inputs` / `n_outputs` for an op taking ``*inputs`` or making
    several outputs.
    """
    if not isinstance(op, Op):
        raise TypeError(f"as_torch_op expects an opkit Op instance, got {op!r}")
    n_inputs = _count_inputs(op) if n_inputs is None else int(n_inputs)
    if n_outputs is None:
        otypes = getattr(op, "otypes", None)
        n_outputs = 1 if otypes is None else len(otypes)
    digest = hashlib.sha256(f"{python_identity(op)}:{n_inputs}:{n_outputs}".encode()).hexdigest()[:16]
    name = f"{_UNSAFE.sub('_', type(op).__name__)[:40]}_{digest}"
    bridge = _bridges.get(name)
    if bridge is None:
        bridge = _bridges[name] = _Bridge(op, name, n_inputs, int(n_outputs))
    return bridge.forward


def _count_inputs(op):
    itypes = getattr(op, "itypes", None)
    if itypes is not None:
        return len(itypes)
    parameters = inspect.signature(op.make_node).parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        raise TypeError(f"as_torch_op({op}): its make_node takes any number of inputs; say how many the torch op "
                        "takes with as_torch_op(op, n_inputs=N)")
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)


def _called_as_torch_op(exc, op, where, arrays):
    """Return `exc` (op.compute's error) as the torch op's: the call the user made, and what to do."""
    text = str(exc)
    prefix = f"{type(op).__name__}.compute: "
    if not text.startswith(prefix):
        return exc
    text = text[len(prefix):].replace("the op does not take inputs of types", "the op's make_node refused inputs", 1)
    called = ", ".join(f"{a.dtype} of rank {a.ndim}" for a in arrays)
    hint = ("\npass tensors of dtypes the op takes (convert them first, e.g. x.to(torch.float64))"
            if isinstance(exc, TypeError) else "")
    return type(exc)(f"as_torch_op({where}) called on ({called}): {text}{hint}")


class _Bridge:
    """The custom ops (forward and gradient) of one opkit op and what they keep per input types."""

    def __init__(self, op, name, n_inputs, n_outputs):
        self.op, self.where = op, str(op)
        self.n_inputs, self.n_outputs = n_inputs, n_outputs
        self.copy_if_shared = bool(getattr(op, "view_map", None))
        self.copy_inputs = bool(getattr(op, "destroy_map", None))  # the op writes into them: never the caller's
        self._nodes = {}  # ((dtype, ndim) per input) -> (node, symbolic output shapes or the ShapeNotKnown)
        self._grads = {}  # (input types, cotangent types) -> GradGraph
        inputs = ", ".join(f"Tensor x{i}" for i in range(n_inputs))
        outputs = "Tensor" if n_outputs == 1 else "(" + ", ".join(["Tensor"] * n_outputs) + ")"
        gradient_inputs = ", ".join([f"Tensor x{i}" for i in range(n_inputs)] +
                                    [f"Tensor g{i}" for i in range(n_outputs)])
        self.forward = torch.library.custom_op(f"{NAMESPACE}::{name}", self.run, mutates_args=(),
                                               schema=f"({inputs}) -> {outputs}")
        self.forward.register_fake(self.fake)
        self.gradient = torch.library.custom_op(f"{NAMESPACE}::{name}_grad", self.run_grad, mutates_args=(),
                                                schema=f"({gradient_inputs}) -> Tensor[]")
        self.gradient.register_fake(self.fake_grad)
        self.forward.register_autograd(self.backward, setup_context=self.setup_context)
        self.forward.__class__ = _BridgedOp  # Python numbers among its arguments: opkit's weak constants

    def number_constants(self, spec):
        """Return ((position, torch dtype, value), ...): opkit's constant for each Python number (see weak_args).

        `spec` holds the call's Python numbers and (torch dtype, ndim) for its tensors.
        """
        operands = [a if is_weak_number(a) else (to_opkit_dtype(a[0], self.where), a[1]) for a in spec]
        constants = number_arrays(self.op, operands, f"as_torch_op({self.where})")
        return tuple((i, to_torch_dtype(c.dtype.name, self.where), c.tolist()) for i, c in sorted(constants.items()))

    # ---- eager: the op's compiled module on the tensors' memory ----

    def run(self, *tensors):
        where = self.where
        try:  # CPU tensors torch can share as they are: one call each (as_array says why not, otherwise)
            arrays = [t.numpy() for t in tensors]
        except Exception:
            arrays = [as_array(t, where) for t in tensors]
        if self.copy_inputs:
            arrays = [a.copy() for a in arrays]
        try:
            result = self.op.compute(*arrays)
        except (TypeError, ValueError) as exc:  # name the torch call, not op.compute (which the user never called)
            error = _called_as_torch_op(exc, self.op, where, arrays)
            if error is exc:
                raise
            raise error from (exc.__cause__ or exc)  # make_node's own error stays the cause, not compute's wrapper
        if self.n_outputs == 1:
            if isinstance(result, list):
                raise TypeError(f"{where} made {len(result)} outputs; bridge it with as_torch_op(op, "
                                f"n_outputs={len(result)})")
            return as_tensor(result, arrays, self.copy_if_shared)
        if not isinstance(result, list) or len(result) != self.n_outputs:
            made = len(result) if isinstance(result, list) else 1
            raise TypeError(f"{where} made {made} outputs, not the {self.n_outputs} its torch op was made with")
        return tuple(as_tensor(r, arrays, self.copy_if_shared) for r in result)

    # ---- torch.compile and meta tensors: dtypes from make_node, shapes from infer_shape ----

    def _node(self, tensors):
        types = tuple((to_opkit_dtype(t.dtype, self.where), t.dim()) for t in tensors)
        found = self._nodes.get(types)
        if found is None:
            node = self.op.make_node(*input_variables(self.op, types))
            for i, out in enumerate(node.outputs):
                if not isinstance(out.type, TensorType):
                    raise DtypeNotMapped(f"{self.where}: output {i} is of type {out.type}, which has no torch "
                                         "counterpart (the torch bridge maps tensor types)")
                to_torch_dtype(out.type.dtype, self.where)
            if len(node.outputs) != self.n_outputs:
                raise TypeError(f"{self.where} makes {len(node.outputs)} outputs, not the {self.n_outputs} its torch "
                                f"op was made with; bridge it with as_torch_op(op, n_outputs={len(node.outputs)})")
            try:
                shapes = symbolic_shapes(self.op, node, self.where)
            except ShapeNotKnown as exc:
                shapes = exc
            found = self._nodes[types] = (node, shapes)
        return found

    def fake(self, *tensors):
        node, shapes = self._node(tensors)
        if isinstance(shapes, ShapeNotKnown):
            raise ShapeNotKnown(str(shapes))
        sizes = [tuple(t.shape) for t in tensors]
        device = tensors[0].device if tensors else torch.device("cpu")
        outputs = tuple(torch.empty(evaluate_shape(shape, node, sizes, self.where),
                                    dtype=to_torch_dtype(out.type.dtype, self.where), device=device)
                        for shape, out in zip(shapes, node.outputs))
        return outputs[0] if self.n_outputs == 1 else outputs

    # ---- autograd: the op's L_op, compiled by opkit ----

    def setup_context(self, ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    def backward(self, ctx, *grads):
        inputs = ctx.saved_tensors
        graph = self._grad_graph(inputs + grads)
        for i, (kind, needed) in enumerate(zip(graph.kinds, ctx.needs_input_grad)):
            if needed and isinstance(kind, str):  # an undefined gradient torch asks for: the op's reason
                raise NotImplementedError(f"the gradient of {self.where} for input {i}: {kind}")
        results = self.gradient(*inputs, *grads)
        return tuple(r if needed else None for r, needed in zip(results, ctx.needs_input_grad))

    def _grad_graph(self, tensors):
        types = tuple((to_opkit_dtype(t.dtype, self.where), t.dim()) for t in tensors)
        graph = self._grads.get(types)
        if graph is None:
            graph = self._grads[types] = GradGraph(self.op, types[:self.n_inputs], types[self.n_inputs:],
                                                   self.where)
        return graph

    def run_grad(self, *tensors):
        graph = self._grad_graph(tensors)
        arrays = [as_array(t, self.where) for t in tensors]
        computed = graph.function()(*arrays) if graph.outputs else []
        # disconnected gradients, and undefined ones torch does not ask for (backward checked): zeros
        return [as_tensor(computed[kind], arrays, True) if isinstance(kind, int)
                else torch.zeros_like(x, dtype=to_torch_dtype(dtype, self.where), memory_format=torch.contiguous_format)
                for kind, x, dtype in zip(graph.kinds, tensors, graph.dtypes)]

    def fake_grad(self, *tensors):
        graph = self._grad_graph(tensors)
        return [torch.empty_like(x, dtype=to_torch_dtype(dtype, self.where), memory_format=torch.contiguous_format)
                for x, dtype in zip(tensors, graph.dtypes)]


class _BridgedOp(CustomOpDef):
    """The custom op of a bridged op: a Python number among its arguments becomes opkit's weak constant.

    ``as_torch_op(mul)(float32_tensor, 2.0)`` passes 2.0 as the float32 constant ``mul`` makes
    of it, as ``mul.compute`` and torch's own ``x * 2.0`` do (torch's schema takes tensors only).
    """

    def __call__(self, *args, **kwargs):
        if any(map(is_weak_number, args)):
            args = list(args)
            spec = tuple(a if is_weak_number(a) else (a.dtype, a.dim()) for a in args)
            for position, dtype, value in _number_constants(self._name, spec):
                args[position] = torch.tensor(value, dtype=dtype)
        return super().__call__(*args, **kwargs)


@torch.compiler.assume_constant_result
def _number_constants(name, spec):
    """The constants of a call's Python numbers: torch.compile runs this once while tracing, as a constant."""
    return _bridges[name].number_constants(spec)


def bridge_of(custom_op):
    """Return the _Bridge behind a custom op made by as_torch_op (for tests and tools)."""
    return _bridges[custom_op._name]

