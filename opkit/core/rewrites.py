"""Graph rewrites run by FAST_RUN: merge, shape inference, constant folding, dead nodes.

Dead-node removal needs no pass of its own: a FunctionGraph is what its
outputs reach, so a node no output uses is gone from ``toposort()``.
"""

from __future__ import annotations

from opkit.core.graph import Constant
from opkit.core.builtin_ops import Shape, Shape_i
from opkit.core.shape_inference import ShapeInference
from opkit.core.tensor.shapes.shape_ops import make_vector
from opkit.core.tensor.types.shape_checks import depend
from opkit.core.tensor.shapes.alloc import alloc_like
from opkit.core.tensor.shapes.fill import Fill
from opkit.core.tensor.fused.fusion import fuse_elementwise
from opkit.core.tensor.shapes.check_rewrites import simplify_checks as simplify
from opkit.core.tensor.reductions.scalar_reduce import scalar_reductions
from opkit.core.tensor.shapes.check_rewrites import redundant_allocs, static_sum_to_shape
from opkit.core.tensor.shapes.proven_sum_to_shape import proven_sum_to_shape
from opkit.core.tensor.reductions.reduce_fusion import fuse_reductions


def merge(fgraph):
    """Merge equal constants, then nodes applying equal ops to the same inputs."""
    constants, pairs = {}, []
    for variable in fgraph.constants():
        try:
            key = variable.signature()
            hash(key)
        except TypeError:
            continue
        kept = constants.setdefault(key, variable)
        if kept is not variable:
            pairs.append((variable, kept))
    fgraph.replace_all(pairs, "merge")
    seen, pairs = {}, []
    for node in fgraph.toposort():
        try:
            key = (node.op, tuple(map(id, node.inputs)))
            hash(key)
        except TypeError:
            continue
        kept = seen.setdefault(key, node)
        if kept is not node and not getattr(node.op, "destroy_map", None):
            pairs.extend(zip(node.outputs, kept.outputs))
            # later nodes now see kept's outputs: re-key them on the next run
    if pairs:
        fgraph.replace_all(pairs, "merge")
        merge(fgraph)


def constant_folding(fgraph):
    """Compute nodes whose inputs are all constants (unless the op declines).

    A node whose perform raises stays in the graph: the function then raises
    when it is called, with the note naming the node, as it would unfolded.
    """
    failed = set()
    changed = True
    while changed:
        changed = False
        for node in fgraph.toposort():
            if id(node) in failed or not node.inputs or not all(isinstance(v, Constant) for v in node.inputs):
                continue
            if not _folds(node.op, fgraph, node) or not _has_python_impl(node.op):
                continue
            storage = [[None] for _ in node.outputs]
            # An op that overwrites an input gets a copy: the constant's data is the user's graph's too.
            destroyed = {i for positions in (getattr(node.op, "destroy_map", None) or {}).values() for i in positions}
            if destroyed:
                import copy  # only an op that overwrites a constant input needs it: a warm process does not import it
            values = [copy.deepcopy(v.data) if i in destroyed else v.data for i, v in enumerate(node.inputs)]
            try:
                _perform(node, values, storage)
            except Exception:  # noqa: BLE001  (raised again, with its node named, when the function runs)
                failed.add(id(node))
                continue
            new = [out.type.make_constant(cell[0]) for out, cell in zip(node.outputs, storage)]
            fgraph.replace_all(zip(node.outputs, new), "constant_folding")
            changed = True
            break


def _perform(node, values, storage):
    perform_function = getattr(node.op, "perform_function", None)
    if perform_function is None:
        node.op.perform(node, values, storage)
    else:
        perform_function(node)(values, storage)


def _has_python_impl(op):
    has = getattr(op, "has_perform", None)
    return bool(has()) if has is not None else hasattr(op, "perform")


def infer_shapes(fgraph):
    """Replace Shape / Shape_i of computed variables with their inferred shapes (and the op's checks)."""
    inference = ShapeInference()
    pairs = []
    for node in fgraph.toposort():
        if not isinstance(node.op, (Shape, Shape_i)) or node.inputs[0].owner is None:
            continue
        dims = inference.shape_of(node.inputs[0])
        if dims is None:
            continue
        if isinstance(node.op, Shape_i):
            replacement = dims[node.op.i]
        else:
            # every dimension carries the checks; a 0-d variable's empty shape needs them too
            replacement = make_vector(*dims) if dims else depend(make_vector(), inference.token_of(node.inputs[0]))
        if replacement.type == node.outputs[0].type:
            pairs.append((node.outputs[0], replacement))
    fgraph.replace_all(pairs, "infer_shapes")


def fill_to_alloc(fgraph):
    """Replace ``fill(model, value)`` by ``value`` allocated to the model's shape (see tensor/shapes/fill.py).

    The next shape pass replaces the model's shape by its inferred one, so the
    model itself is computed only if something else needs it.
    """
    pairs = []
    for node in fgraph.toposort():
        if isinstance(node.op, Fill):
            model, value = node.inputs
            replacement = alloc_like(value, model)
            if replacement.type == node.outputs[0].type:
                pairs.append((node.outputs[0], replacement))
    fgraph.replace_all(pairs, "fill_to_alloc")


def fusion(fgraph):
    """Fuse trees of elementwise nodes into one loop (see opkit.core.tensor.fused.fusion)."""
    fuse_elementwise(fgraph)


def simplify_checks(fgraph):
    """Drop the checks of a Depend that its value already computes (see opkit.core.tensor.shapes.check_rewrites)."""
    simplify(fgraph)


def shrink(fgraph):
    """Reductions of 0-d values, SumToShape to g's own static shape and Allocs of ones another input's
    shape proves become what they compute.

    See opkit.core.tensor.reductions.scalar_reduce and opkit.core.tensor.shapes.check_rewrites.
    """
    scalar_reductions(fgraph)
    static_sum_to_shape(fgraph)
    redundant_allocs(fgraph)


def sum_to_shape(fgraph):
    """Drop each SumToShape whose input shape inference proves has the target shape, where no check is lost
    (see opkit.core.tensor.shapes.proven_sum_to_shape). Once, after the last shrink: its proofs infer the
    shapes of the graph behind each SumToShape."""
    proven_sum_to_shape(fgraph)


def reduce_fusion(fgraph):
    """Fuse reductions with their elementwise input (see opkit.core.tensor.reductions.reduce_fusion)."""
    fuse_reductions(fgraph)


def gradient_ops(fgraph):
    """Replace each gradient-only op (zero_grad, grad_clip...: ``forward_identity``) by its input."""
    pairs = [(node.outputs[0], node.inputs[0]) for node in fgraph.toposort()
             if getattr(node.op, "forward_identity", False)]
    if pairs:
        fgraph.replace_all(pairs, "gradient_ops")


REWRITES = {
    "merge": merge,
    "shape": infer_shapes,
    "constant_folding": constant_folding,
    "fusion": fusion,
    "fill": fill_to_alloc,
    "reduce_fusion": reduce_fusion,
    "checks": simplify_checks,
    "shrink": shrink,
    "sum_to_shape": sum_to_shape,
    "gradient_ops": gradient_ops,
}

PIPELINES = {
    "fast_run": ("gradient_ops", "fill", "merge", "shape", "merge", "checks", "merge", "shrink", "constant_folding",
                 "shrink", "sum_to_shape", "merge", "fusion", "reduce_fusion"),
    "fast_compile": ("merge",),
    None: (),
}


def rewrite(fgraph, names):
    """Run the named rewrites on `fgraph` in order."""
    for name in names:
        REWRITES[name](fgraph)


def _folds(op, fgraph, node):
    """Call ``op.do_constant_folding``: Theano's ``(node)`` or PyTensor's ``(fgraph, node)``."""
    import inspect

    try:
        parameters = inspect.signature(op.do_constant_folding).parameters
    except (TypeError, ValueError):
        return op.do_constant_folding(node)
    positional = [p for p in parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return op.do_constant_folding(fgraph, node) if len(positional) >= 2 else op.do_constant_folding(node)
