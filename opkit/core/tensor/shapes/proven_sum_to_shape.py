"""SumToShape whose input shape inference proves already has the target shape: the input itself.

FAST_RUN runs it once, as the rewrite "sum_to_shape" after the last "shrink" (opkit/core/rewrites.py);
``Mode().excluding("sum_to_shape")`` leaves it out.

A gradient graph carries ``SumToShape(g, shape(x))`` wherever x may have been broadcast when the graph
runs (sum_to_shape.py). Where shape inference (opkit.core.shape_inference) proves that g's length along
every axis *is* the target's, SumToShape sums nothing and returns g itself (its view_map): the node goes.

The proof, axis by axis: the target's length and one of g's inferred lengths are the same value.
Lengths compare by what they compute (``_Lengths.key``), not by which variable holds them:

- a constant is its value, and a static length of a Shape_i's input is that constant;
- a Depend is its value (its checks are handled below);
- ``Shape_i(i)(v)`` is v's length i;
- ``BroadcastAxis`` of lengths that are all the same length (or 1) is that length; otherwise it is the
  broadcast of the set of its lengths (the same set, the same length, whatever the op's axis or message);
- ``vector[k]`` of a constant k (what SumToShape's own inferred shape reads; Subtensor's ``constant_entry``
  says a node is one) is the vector's k-th entry: MakeVector's k-th input, Shape(x)'s x length k, a
  constant's value, or a reshape's ResolvedShape target entry where that is a length (a -1 is resolved to
  another value);
- any other node is its op applied to its inputs' keys (the merge rewrite's rule).

Whatever is not proven keeps its node: a length 1 that only the run time knows (numpy broadcasts it) has
another key than the length it was broadcast to, so SumToShape stays and sums it.

Checks: dropping the node stops computing the target vector for it, and with it the checks that vector
carries (a broadcast clash, a reshape's length). The node goes only where no check is lost: each target
length is a constant, a Shape_i of a graph input (it never raises), or a length computing g already computes
(check_rewrites._Proofs). That the vector has other clients proves nothing: a later rewrite may drop them.
"""

from __future__ import annotations

import numpy as np

from opkit.core.builtin_ops import Shape, Shape_i
from opkit.core.graph import Constant
from opkit.core.shape_inference import ShapeInference
from opkit.core.tensor.elementwise.elemwise import BroadcastAxis
from opkit.core.tensor.shapes.check_rewrites import _Proofs
from opkit.core.tensor.shapes.reshape import ResolvedShape
from opkit.core.tensor.shapes.shape_ops import MakeVector
from opkit.core.tensor.shapes.sum_to_shape import SumToShape
from opkit.core.tensor.types.shape_checks import Depend

# How deep a length's graph is read for its key: a deeper one gets a key of its own (proves nothing).
KEY_DEPTH = 100

_ONE = ("constant", 1)


class _Lengths:
    """Keys of lengths (int scalars): two lengths with the same key have the same value when the graph runs."""

    def __init__(self):
        self._keys = {}  # id(variable) -> (variable, key): the variable is kept, so its id is not reused

    def key(self, variable, depth=0):
        found = self._keys.get(id(variable))
        if found is not None:
            return found[1]
        key = self._compute(variable, depth)
        self._keys[id(variable)] = (variable, key)
        return key

    def _own(self, variable):
        return ("variable", id(variable))

    def _compute(self, variable, depth):
        if isinstance(variable, Constant):
            data = np.asarray(variable.data)
            if data.ndim == 0 and data.dtype.kind in "iu":
                return ("constant", int(data))
            return self._own(variable)
        node = variable.owner
        if node is None or depth > KEY_DEPTH:
            return self._own(variable)
        op = node.op
        if isinstance(op, Depend):
            return self.key(node.inputs[0], depth + 1)
        if isinstance(op, Shape_i):
            source = node.inputs[0]
            static = getattr(source.type, "shape", None)
            if static is not None and op.i < len(static) and static[op.i] is not None:
                return ("constant", int(static[op.i]))
            return ("shape_i", op.i, id(source))
        if isinstance(op, BroadcastAxis):
            return self._broadcast(node, depth)
        constant_entry = getattr(op, "constant_entry", None)  # Subtensor's vector[k] (subtensor.py)
        found = constant_entry(node) if constant_entry is not None else None
        if found is not None:
            entry = self._entry(*found, depth + 1)
            if entry is not None:
                return entry
        if getattr(op, "destroy_map", None):
            return self._own(variable)
        try:
            key = ("apply", op, variable.index, tuple(self.key(v, depth + 1) for v in node.inputs))
            hash(key)
        except TypeError:
            return self._own(variable)
        return key

    def _broadcast(self, node, depth):
        """The key of numpy's broadcast length along the op's axis: a function of the set of lengths there."""
        op, inputs = node.op, node.inputs
        ndim = max(op.ndims)
        keys, position = set(), 0
        for n in op.ndims:
            offset = op.axis - (ndim - n)
            if offset >= 0:
                keys.add(self.key(inputs[position + offset], depth + 1))
            position += n
        keys.discard(_ONE)
        if not keys:
            return _ONE
        if len(keys) == 1:
            return keys.pop()  # lengths all equal (or 1): the broadcast is that length, and nothing clashes
        return ("broadcast", frozenset(keys))

    def _entry(self, vector, k, depth):
        """The key of an int vector's k-th entry where its graph says it, else None.

        MakeVector: its k-th input; Shape(x): x's length k; a constant: its value; ResolvedShape (a reshape's
        target with its -1 resolved): the target's k-th entry where that is a length (never -1), which the
        reshape keeps (it raises where the lengths do not hold its elements).
        """
        if k < 0 or vector.ndim != 1 or (vector.type.shape[0] is not None and k >= vector.type.shape[0]):
            return None
        if isinstance(vector, Constant):
            data = np.asarray(vector.data).reshape(-1)
            return ("constant", int(data[k])) if k < len(data) and data.dtype.kind in "iu" else None
        node = vector.owner
        if node is None or depth > KEY_DEPTH:
            return None
        if isinstance(node.op, Depend):
            return self._entry(node.inputs[0], k, depth + 1)
        if isinstance(node.op, MakeVector):
            return self.key(node.inputs[k], depth + 1) if k < len(node.inputs) else None
        if isinstance(node.op, Shape):
            source = node.inputs[0]
            return self.key(self._length(source, k), depth + 1) if k < source.ndim else None
        if isinstance(node.op, ResolvedShape):
            entry = self._entry(node.inputs[0], k, depth + 1)
            return entry if entry is not None and _is_length(entry) else None
        return None

    def _length(self, source, k):
        """Shape_i(k)(source): a new variable each time, but its key is by source and k."""
        return Shape_i(k)(source)

    def entries(self, vector):
        """Return the variables (or ints) of an int64 shape vector's entries, or None where they are unknown."""
        if isinstance(vector, Constant):
            return [int(v) for v in np.asarray(vector.data).reshape(-1)]
        node = vector.owner
        if node is None:
            return None
        if isinstance(node.op, MakeVector):
            return list(node.inputs)
        if isinstance(node.op, Shape):
            source = node.inputs[0]
            return [Shape_i(i)(source) for i in range(source.ndim)]
        return None


def _is_length(key):
    """Whether a key is of a length read from a shape, or of a nonnegative constant: never a reshape's -1."""
    return key[0] == "shape_i" or key[0] == "constant" and key[1] >= 0


def _proven(node, lengths, inference):
    """Return the target's entries if g's length along each axis is proven to be the target's, else None."""
    g, vector = node.inputs
    targets = lengths.entries(vector)
    if targets is None or len(targets) != g.ndim:
        return None
    dims = inference.shape_of(g)
    for axis, target in enumerate(targets):
        want = ("constant", target) if isinstance(target, int) else lengths.key(target)
        have = set()
        if g.type.shape[axis] is not None:
            have.add(("constant", int(g.type.shape[axis])))
        if dims is not None:
            have.add(lengths.key(dims[axis]))
        if want not in have:
            return None
    return targets


def _loses_no_check(node, targets, proofs):
    """Whether dropping `node` keeps every check its target vector computes (see the module).

    Another client of the vector is no proof: a later rewrite may drop it too.
    """
    g, vector = node.inputs
    if isinstance(vector, Constant):
        return True
    if vector.owner is not None and isinstance(vector.owner.op, Shape):
        source = vector.owner.inputs[0]  # Shape(x) raises where computing x does
        return source.owner is None or proofs.proves(g, source)
    for target in targets:
        if isinstance(target, Constant):
            continue
        owner = target.owner
        if owner is not None and isinstance(owner.op, Shape_i) and owner.inputs[0].owner is None:
            continue  # the length of a graph input: it raises nothing
        if not proofs.proves(g, target):
            return False
    return True


def _quiet_inference():
    """A ShapeInference for proofs only: each op's infer_shape, none of its checks (a proof computes nothing;
    _loses_no_check keeps the checks). An op whose infer_shape raises proves nothing, silently: the shape
    rewrite warns (or raises, with on_shape_error='raise') where a function asks for a shape; a proof asks none."""
    class QuietInference(ShapeInference):
        def _op_shapes(self, node, input_shapes):
            try:
                shapes = node.op.infer_shape(node, input_shapes)
                if not isinstance(shapes, (list, tuple)) or len(shapes) != len(node.outputs):
                    raise TypeError(f"infer_shape of {node.op} returned {len(shapes)} shapes")
                result = []
                for out, shape in zip(node.outputs, shapes):
                    static = getattr(out.type, "shape", None)
                    if shape is None or static is None or len(tuple(shape)) != len(static):
                        result.append(None)
                    else:
                        result.append(tuple(self._as_dim(d, s) for d, s in zip(tuple(shape), static)))
            except NotImplementedError:
                raise
            except Exception as exc:  # noqa: BLE001 (the op's own code: its shapes are then unknown here)
                raise NotImplementedError(str(exc)) from exc
            return result, []

    return QuietInference()


def proven_sum_to_shape(fgraph):
    """Replace SumToShape(g, shape) by g where shape inference proves g has that shape (see the module).

    One node at a time, in order: a later node's proof that no check is lost reads the graph without the
    nodes dropped before it (a check only a dropped node's target computed proves nothing), and a chain
    SumToShape(SumToShape(g, s), s) goes whole.
    """
    lengths, inference, proofs = _Lengths(), _quiet_inference(), _Proofs()
    for node in fgraph.toposort():
        if not isinstance(node.op, SumToShape):
            continue
        g = node.inputs[0]
        if g.type != node.outputs[0].type:
            continue  # the output's type states more (a constant target): keep the node that makes it so
        targets = _proven(node, lengths, inference)
        if targets is not None and _loses_no_check(node, targets, proofs):
            fgraph.replace_all([(node.outputs[0], g)], "proven_sum_to_shape")
            proofs = _Proofs()  # what a variable's graph computes has changed
