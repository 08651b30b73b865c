"""The opkit graphs the JAX bridge compiles for an op: its node, its JVP and its VJP; and static shapes.

Nothing here imports JAX: types are (dtype name, ndim) pairs, shapes tuples of ints.
"""

from __future__ import annotations

from opkit.bridge.weak_args import refused
from opkit.core.gradient import Lop, Rop
from opkit.core.graph import Constant, graph_inputs
from opkit.core.shape_inference import ShapeInference
from opkit.core.tensor.shapes.alloc import cast, zeros_like
from opkit.core.tensor.types.type import TensorType
from opkit.link.function import function


def tensor_types(signature):
    """Return shape-free opkit tensor types for ((dtype, ndim), ...): one module serves every shape."""
    return [TensorType(dtype, shape=(None,) * ndim) for dtype, ndim in signature]


def node_outputs(op, signature):
    """Return the output variables of `op` applied to fresh shape-free variables (their types: dtype, ndim).

    make_node's TypeError or ValueError comes back naming the op and the call (the original as its cause).
    """
    variables = [t() for t in tensor_types(signature)]
    try:
        node = op.make_node(*variables)
    except (TypeError, ValueError, OverflowError) as exc:
        raise refused(op, signature, f"as_jax_op({op})", exc) from exc
    return variables, list(node.outputs)


def output_shapes(op, signature, shapes):
    """Return each output's static shape, from the op's infer_shape on the static input `shapes`.

    Raises ValueError when an output's shape depends on the inputs' values (or the op has no infer_shape):
    XLA must know every output's shape before the call.
    """
    variables = [TensorType(dtype, shape=shape)() for (dtype, _), shape in zip(signature, shapes)]
    node = op.make_node(*variables)
    if getattr(op, "infer_shape", None) is None:
        raise ValueError(f"{op} has no infer_shape, and JAX needs each output's shape before the call.\n"
                         "Hint: give the op infer_shape(node, input_shapes) returning one shape tuple per output.")
    inference = ShapeInference()
    result = []
    for position, out in enumerate(node.outputs):
        if getattr(out.type, "ndim", None) is None:
            raise TypeError(f"output {position} of {op} is of type {out.type}, not a tensor; opkit's JAX bridge "
                            "passes only tensors")
        dims = inference.shape_of(out)
        if dims is None or any(not isinstance(v, Constant) for v in graph_inputs(list(dims))):
            raise ValueError(f"the shape of output {position} of {op} depends on the values of its inputs (its "
                             f"infer_shape cannot tell it from the shapes {list(shapes)}), and JAX needs it before "
                             "the call: opkit's JAX bridge cannot run this op")
        result.append(_evaluate(dims))
    return result


def _evaluate(dims):
    if all(isinstance(d, Constant) for d in dims):
        return tuple(int(d.data) for d in dims)
    # only constants feed these: Python's linker folds them without compiling C
    return tuple(int(v) for v in function([], list(dims), mode="FAST_COMPILE")())


def compile_graph(inputs, outputs, name, givens=None):
    """Return (the opkit function of the graph, False), trusting its inputs (XLA has checked dtype and rank)."""
    compiled = function(inputs, outputs, name=name, on_unused_input="ignore", givens=givens or None)
    compiled.trust_input = True
    return compiled, False


def jvp_graph(op, signature, wrt, out_positions):
    """Return (inputs, outputs, givens) of the JVP: inputs are the op's inputs then a tangent per `wrt` position.

    The outputs are the tangents of the outputs at `out_positions`, from the op's R_op; an op without
    R_op gets them by transposing its L_op (the L_op of the L_op with respect to its cotangents).
    """
    xs, outs = node_outputs(op, signature)
    chosen = [outs[j] for j in out_positions]
    tangents = [xs[i].type() for i in wrt]
    givens = {}
    try:
        results = Rop(chosen, [xs[i] for i in wrt], tangents, disconnected_outputs="ignore")
    except NotImplementedError as exc:
        if "R_op" not in str(exc):
            raise
        cotangents = [o.type() for o in chosen]
        pulled = Lop(chosen, [xs[i] for i in wrt], cotangents, disconnected_inputs="ignore")
        results = Lop(pulled, cotangents, tangents, disconnected_inputs="ignore")
        # linear in the cotangents, the result may still read their shapes: give it zeros of the outputs' shape
        used = set(map(id, graph_inputs(list(results))))
        givens = {c: zeros_like(o) for c, o in zip(cotangents, chosen) if id(c) in used}
    return xs + tangents, _cast_like(results, chosen), givens


def vjp_graph(op, signature, wrt, out_positions):
    """Return (inputs, outputs) of the VJP: the op's inputs then a cotangent per output at `out_positions`.

    The outputs are the cotangents of the inputs at `wrt`, from the op's L_op (grad).
    """
    xs, outs = node_outputs(op, signature)
    chosen = [outs[j] for j in out_positions]
    cotangents = [o.type() for o in chosen]
    results = Lop(chosen, [xs[i] for i in wrt], cotangents, disconnected_inputs="ignore")
    return xs + cotangents, _cast_like(results, [xs[i] for i in wrt])


def _cast_like(results, models):
    """Cast each result to its model's dtype (JAX wants a tangent of its primal's dtype), in the graph."""
    return [r if r.type.dtype == m.type.dtype else cast(r, m.type.dtype) for r, m in zip(results, models)]

