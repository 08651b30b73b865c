"""proven_sum_to_shape: a SumToShape goes only where shape inference proves it sums nothing.

opkit/core/tensor/shapes/proven_sum_to_shape.py drops SumToShape(g, shape) where g's length along every
axis is proven to be the target's. Each dropped node is shown redundant: the rewritten gradient (no
SumToShape left) agrees with the unrewritten graph (FAST_COMPILE) and with numpy finite differences on
every shape the graph accepts, lengths 1 included. Where a length 1 may be broadcast when the graph runs,
the node stays and still sums. The rewritten graphs run with the Python linker: no C is compiled here.
"""

import collections

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core import rewrites
from opkit.core.builtin_ops import Shape_i
from opkit.core.fgraph import FunctionGraph
from opkit.core.graph import ancestors
from opkit.core.tensor.elementwise.elemwise import BroadcastAxis
from opkit.core.tensor.shapes import proven_sum_to_shape as proven
from opkit.core.tensor.shapes.sum_to_shape import SumToShape, sum_to_shape

PY_FAST_RUN = opkit.Mode(linker="py", optimizer="fast_run")


def _count(variables):
    """SumToShape nodes the unrewritten graph of `variables` holds."""
    return sum(1 for v in ancestors(variables) if v.owner is not None and isinstance(v.owner.op, SumToShape))


def _rewritten_count(inputs, outputs, proven=True):
    """SumToShape nodes after FAST_RUN's rewrites; with proven=False, all but the rewrite "sum_to_shape"."""
    fgraph = FunctionGraph(inputs, outputs)
    names = rewrites.PIPELINES["fast_run"]
    assert "sum_to_shape" in names
    rewrites.rewrite(fgraph, [n for n in names if proven or n != "sum_to_shape"])
    return collections.Counter(type(n.op).__name__ for n in fgraph.toposort())["SumToShape"]


def _finite_differences(fn, values, eps=1e-6):
    grads = []
    for k, value in enumerate(values):
        grad = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            plus, minus = [v.copy() for v in values], [v.copy() for v in values]
            plus[k][index] += eps
            minus[k][index] -= eps
            grad[index] = (fn(*plus) - fn(*minus)) / (2 * eps)
        grads.append(grad)
    return grads


def _check_gradients(inputs, cost, numpy_cost, cases):
    """FAST_RUN (Python linker) and FAST_COMPILE gradients agree with each other and with finite differences."""
    grads = ot.grad(cost, inputs)
    fast = opkit.function(inputs, grads, mode=PY_FAST_RUN)
    slow = opkit.function(inputs, grads, mode="FAST_COMPILE")
    for values in cases:
        got, unrewritten = fast(*values), slow(*values)
        expected = _finite_differences(numpy_cost, values)
        for g, u, e, v in zip(got, unrewritten, expected, values):
            assert g.shape == v.shape, (g.shape, v.shape)
            np.testing.assert_allclose(g, u, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)
    return fast


# Shapes of `a` (a matrix of unknown lengths): lengths 1 on each axis, both, none, and an empty axis.
A_SHAPES = [(2, 3), (1, 3), (3, 1), (1, 1), (0, 2)]


# name: (opkit out of a and b, numpy out of a and b, b's shape given a's)
DROPPED = {
    # reshape to a's shape: a's and the reshape's lengths are Shape_i(a), through ResolvedShape
    "reshape_to_shape": (lambda a, b: a + ot.reshape(b, a.shape), lambda a, b: a + b.reshape(a.shape),
                         lambda s: (int(np.prod(s)),)),
    "reshape_to_lengths": (lambda a, b: a * ot.reshape(b, (a.shape[0], a.shape[1])),
                           lambda a, b: a * b.reshape(a.shape), lambda s: (int(np.prod(s)),)),
    # an Alloc to a's lengths: the broadcast of a length with itself is that length
    "alloc": (lambda a, b: a * 2.0 + ot.alloc(b[0], a.shape[0], a.shape[1]), lambda a, b: a * 2.0 + b[0],
              lambda s: (2,)),
    # a transposed twice: its lengths are a's, read through DimShuffle's inferred shape
    "transpose": (lambda a, b: a + (a.T * b[0]).T, lambda a, b: a + (a.T * b[0]).T, lambda s: (2,)),
    # the sum's gradient flows through exp and a product with a itself
    "chain": (lambda a, b: ot.exp(a + ot.reshape(b, a.shape)) * a, lambda a, b: np.exp(a + b.reshape(a.shape)) * a,
              lambda s: (int(np.prod(s)),)),
}


@pytest.mark.parametrize("name", sorted(DROPPED))
def test_a_dropped_sum_to_shape_was_redundant(name):
    build, numpy_build, b_shape = DROPPED[name]
    a, b = ot.dmatrix("a"), ot.dvector("b")
    out = build(a, b)
    cost = ot.sum(ot.sqr(out) + out)  # a cost of out alone: nothing else is broadcast with it
    grads = ot.grad(cost, [a, b])
    assert _count(grads) >= 1  # the gradient carries SumToShape: a's lengths may be 1
    assert _rewritten_count([a, b], grads, proven=False) >= 1  # and no other rewrite drops it
    assert _rewritten_count([a, b], grads) == 0
    cases = []
    for shape in A_SHAPES:
        rng = np.random.default_rng(len(cases))
        cases.append([rng.uniform(0.5, 1.5, shape), rng.uniform(0.5, 1.5, b_shape(shape))])

    def numpy_cost(a, b):
        out = numpy_build(a, b)
        return (out ** 2 + out).sum()

    fast = _check_gradients([a, b], cost, numpy_cost, cases)
    assert not [n for n in fast.maker.fgraph.toposort() if isinstance(n.op, SumToShape)]


# shapes of a and c: a length 1 only the run time knows is broadcast
KEPT_SHAPES = [((1, 3), (2, 3)), ((2, 1), (2, 3)), ((2, 3), (1, 1)), ((2, 3), (2, 3))]


def test_a_length_one_broadcast_when_the_graph_runs_keeps_the_node():
    a, c = ot.dmatrix("a"), ot.dmatrix("c")
    cost = ot.sum((a + c) * ot.exp(a))
    grads = ot.grad(cost, [a, c])
    kept = _rewritten_count([a, c], grads, proven=False)
    assert kept >= 2 and _rewritten_count([a, c], grads) == kept
    cases = [[np.linspace(0.1, 0.9, int(np.prod(sa))).reshape(sa), np.linspace(-1, 1, int(np.prod(sc))).reshape(sc)]
             for sa, sc in KEPT_SHAPES]
    _check_gradients([a, c], cost, lambda a, c: ((a + c) * np.exp(a)).sum(), cases)


def test_a_length_from_a_scalar_is_not_a_proven_length():
    # reshape(b, (a.shape[0], n)): n may be 1 when a has 3 columns; the reshaped b is then broadcast
    a, b, n = ot.dmatrix("a"), ot.dvector("b"), ot.lscalar("n")
    r = ot.reshape(b, (a.shape[0], n))
    cost = ot.sum((a + r) * ot.reshape(ot.arange(6.0), (2, 3)))
    grads = ot.grad(cost, [a, b])
    kept = _rewritten_count([a, b, n], grads, proven=False)
    assert kept >= 1 and _rewritten_count([a, b, n], grads) == kept
    fast = opkit.function([a, b, n], grads, mode=PY_FAST_RUN)
    slow = opkit.function([a, b, n], grads, mode="FAST_COMPILE")
    w = np.arange(6.0).reshape(2, 3)
    for a_value, b_value, n_value in [(np.ones((2, 3)), np.array([1.0, 2.0]), 1),
                                      (np.ones((2, 3)), np.arange(6.0), 3)]:
        expected_b = w.sum(axis=1) if n_value == 1 else w.reshape(-1)
        for got in (fast(a_value, b_value, n_value), slow(a_value, b_value, n_value)):
            np.testing.assert_allclose(got[0], w)
            np.testing.assert_allclose(got[1], expected_b)


def test_a_check_only_the_target_computes_keeps_the_node():
    # the target's lengths are a's (proven), but only computing them checks the reshape of b: the node stays
    a, b = ot.dmatrix("a"), ot.dvector("b")
    out = sum_to_shape(a, ot.reshape(b, a.shape).shape)
    assert _rewritten_count([a, b], [out]) == 1
    fast = opkit.function([a, b], out, mode=PY_FAST_RUN)
    slow = opkit.function([a, b], out, mode="FAST_COMPILE")
    np.testing.assert_array_equal(fast(np.ones((2, 3)), np.zeros(6)), np.ones((2, 3)))
    for f in (fast, slow):
        with pytest.raises(ValueError, match="reshape: cannot reshape an array of shape"):
            f(np.ones((2, 3)), np.zeros(5))


def test_a_dropped_node_loses_no_error():
    # gradients only: the forward sum is not an output, and a wrong b still raises the reshape's error
    a, b = ot.dmatrix("a"), ot.dvector("b")
    grads = ot.grad(ot.sum(a + ot.reshape(b, a.shape)), [a, b])
    assert _rewritten_count([a, b], grads) == 0
    fast = opkit.function([a, b], grads, mode=PY_FAST_RUN)
    slow = opkit.function([a, b], grads, mode="FAST_COMPILE")
    for f in (fast, slow):
        with pytest.raises(ValueError, match="reshape: cannot reshape an array of shape"):
            f(np.ones((2, 3)), np.zeros(5))


def test_length_keys():
    lengths = proven._Lengths()
    a, c = ot.dmatrix("a"), ot.dmatrix("c")
    a0, a1, c0 = Shape_i(0)(a), Shape_i(1)(a), Shape_i(0)(c)
    one = ot.constant(1, dtype="int64")
    key = lengths.key
    # the broadcast of a length with itself, or with 1, is that length
    assert key(BroadcastAxis((2, 2), 0)(a0, a1, a0, a1)) == key(a0) == key(Shape_i(0)(a))
    assert key(BroadcastAxis((1, 2), 0, "other words")(one, a0, a1)) == key(a0)
    # two lengths that may differ (one may be 1 when the graph runs): neither is the broadcast
    both = key(BroadcastAxis((2, 2), 0)(a0, a1, c0, a1))
    assert both not in (key(a0), key(c0))
    assert both == key(BroadcastAxis((2, 2), 0)(c0, a1, a0, a1))  # the same lengths, in another order
    assert key(a0) != key(a1) != key(c0)
    # a static length is that constant
    s = ot.TensorType("float64", (4, None))()
    assert key(Shape_i(0)(s)) == key(ot.constant(4, dtype="int64")) == ("constant", 4)


def test_an_infer_shape_that_raises_proves_nothing_and_says_nothing(caplog):
    # the proof asks for a shape no other rewrite asked for: a raising infer_shape keeps the node, quietly,
    # even with on_shape_error='raise' (an op author's flag for the shapes a function asks for)
    import logging

    from opkit.core.graph import Apply

    class Doubled(opkit.Op):
        __props__ = ()

        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0] * 2

        def infer_shape(self, node, input_shapes):
            raise RuntimeError("no shape here")

    a = ot.dmatrix("a")
    out = sum_to_shape(Doubled()(a), a.shape)
    with opkit.config.change_flags(on_shape_error="raise"), \
            caplog.at_level(logging.WARNING, logger="opkit.shape_inference"):
        assert _rewritten_count([a], [out]) == 1
    assert not [r for r in caplog.records if r.name == "opkit.shape_inference"]


def test_a_mode_can_leave_the_rewrite_out():
    a, b = ot.dmatrix("a"), ot.dvector("b")
    grads = ot.grad(ot.sum(a + ot.reshape(b, a.shape)), [a, b])
    kept = opkit.function([a, b], grads, mode=PY_FAST_RUN.excluding("sum_to_shape"))
    assert [n for n in kept.maker.fgraph.toposort() if isinstance(n.op, SumToShape)]
    for got in kept(np.ones((1, 3)), np.arange(3.0)):
        np.testing.assert_array_equal(got, np.ones_like(got))
