"""Elementwise fusion in FAST_RUN: one node, one loop, and results identical to numpy."""

import itertools

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from helpers.modes import FAST_RUN_GRAPH
from opkit.core.tensor.fused.fusion import FusedElemwise

DTYPES = ("float32", "float64", "int32", "int64")


def _ops(f):
    return [node.op for node in f.maker.fgraph.toposort()]


def test_the_issue_expression_becomes_one_fused_node():
    x, y, z = ot.dvector("x"), ot.dvector("y"), ot.dvector("z")
    f = opkit.function([x, y, z], (x * y + z) * 2 - x)
    ops = _ops(f)
    assert len(ops) == 1 and isinstance(ops[0], FusedElemwise)
    assert [step[0].name for step in ops[0].program] == ["mul", "add", "mul", "sub"]
    a, b, c = np.random.default_rng(0).random((3, 1000))
    np.testing.assert_array_equal(f(a, b, c), (a * b + c) * 2 - a)


def _random(rng, dtype, shape):
    if dtype.startswith("int"):
        return rng.integers(-50, 50, size=shape).astype(dtype)
    return (rng.random(shape) * 4 - 2).astype(dtype)


EXPRESSIONS = [
    (lambda x, y, z: (x * y + z) * 2 - x, lambda x, y, z: (x * y + z) * 2 - x),
    (lambda x, y, z: ot.maximum(x - y, z) * ot.sqr(y) + 3, lambda x, y, z: np.maximum(x - y, z) * np.square(y) + 3),
    (lambda x, y, z: -(x + y) * (z - 1) - y, lambda x, y, z: -(x + y) * (z - 1) - y),
]
COMBINATIONS = list(itertools.product(DTYPES, repeat=3))
# A Latin square of order 4 whose diagonal is (i, i, i) (GF(4): l(i, j) = a*i + a^2*j): 16 of the 64 combinations
# in which every two positions meet every pair of dtypes, so each promotion of each pair of operands is compiled.
# The other 48 compile the same templates for pairs the 16 already cover: soak.
LATIN = ((0, 3, 1, 2), (2, 1, 3, 0), (3, 0, 2, 1), (1, 2, 0, 3))
PAIRWISE = [(DTYPES[i], DTYPES[j], DTYPES[LATIN[i][j]]) for i in range(4) for j in range(4)]
OTHERS = [c for c in COMBINATIONS if c not in PAIRWISE]


def fused_everything(combinations):
    """One function (one module) computing every expression for each of `combinations`."""
    rng = np.random.default_rng(42)
    inputs, values, outputs, expected = [], [], [], []
    for dx, dy, dz in combinations:
        x, y, z = ot.tensor(dx, (None, None)), ot.tensor(dy, (None,)), ot.tensor(dz, (None, 1))
        a, b, c = _random(rng, dx, (4, 5)), _random(rng, dy, (5,)), _random(rng, dz, (4, 1))
        inputs += [x, y, z]
        values += [a, b, c]
        for symbolic, reference in EXPRESSIONS:
            outputs.append(symbolic(x, y, z))
            with np.errstate(all="ignore"):
                expected.append(reference(a, b, c))
    f = opkit.function(inputs, outputs)
    return f, f(*values), expected


@pytest.fixture(scope="module")
def fused_pairwise():
    return fused_everything(PAIRWISE)


@pytest.fixture(scope="module")
def fused_others():
    return fused_everything(OTHERS)


def check_fused(index, combinations, fused):
    f, results, expected = fused
    assert all(isinstance(op, FusedElemwise) for op in _ops(f))
    assert len(_ops(f)) == len(combinations) * len(EXPRESSIONS)
    for k in range(index * len(EXPRESSIONS), (index + 1) * len(EXPRESSIONS)):
        assert results[k].dtype == expected[k].dtype
        np.testing.assert_array_equal(results[k], expected[k])


def test_the_pairwise_combinations_meet_every_pair_of_dtypes_in_every_two_positions():
    assert len(set(PAIRWISE)) == 16 and sorted(PAIRWISE + OTHERS) == sorted(COMBINATIONS)
    for first, second in ((0, 1), (0, 2), (1, 2)):
        assert {(c[first], c[second]) for c in PAIRWISE} == set(itertools.product(DTYPES, repeat=2))
    assert all((d, d, d) in PAIRWISE for d in DTYPES)


@pytest.mark.parametrize("index", range(len(PAIRWISE)), ids=["-".join(c) for c in PAIRWISE])
def test_fused_results_are_identical_to_numpy_with_broadcasting(index, fused_pairwise):
    check_fused(index, PAIRWISE, fused_pairwise)


@pytest.mark.soak
@pytest.mark.parametrize("index", range(len(OTHERS)), ids=["-".join(c) for c in OTHERS])
def test_fused_results_of_the_other_combinations_are_identical_to_numpy(index, fused_others):
    check_fused(index, OTHERS, fused_others)


def test_fused_node_on_strided_and_broadcast_inputs():
    x, y = ot.dmatrix("x"), ot.fvector("y")
    f = opkit.function([x, y], ot.exp(x * 0.5) / (y + 2) - ot.sqrt(x))
    base = np.random.default_rng(1).random((6, 8))
    a, b = base[::2, ::3], np.arange(3, dtype="float32")
    # exp comes from the C++ library and numpy has its own SIMD exp: they may differ in the
    # last bit, which the subtraction can amplify; the arithmetic-only test above is exact
    np.testing.assert_allclose(f(a, b), np.exp(a * 0.5) / (b + 2) - np.sqrt(a), rtol=1e-13, atol=1e-15)


def test_intermediates_used_twice_or_returned_are_not_fused_away():
    x, y = ot.dvector("x"), ot.dvector("y")
    t = x * y
    f = opkit.function([x, y], [t + 1, t * 2])
    names = [str(op) for op in _ops(f)]
    assert "mul" in names  # t feeds two outputs: computed once, not fused into both
    a, b = np.arange(3.0), np.ones(3) * 2
    r1, r2 = f(a, b)
    np.testing.assert_array_equal(r1, a * b + 1)
    np.testing.assert_array_equal(r2, a * b * 2)


def test_ops_with_their_own_c_code_are_untouched():
    from helpers.tutorial_ops import VectorTimesScalar

    x, s = ot.dvector("x"), ot.dscalar("s")
    f = opkit.function([x, s], VectorTimesScalar()(x * 2 + 1, s) - x)
    kinds = [type(op).__name__ for op in _ops(f)]
    assert "VectorTimesScalar" in kinds
    a = np.arange(4.0)
    np.testing.assert_array_equal(f(a, 3.0), (a * 2 + 1) * 3.0 - a)


def test_fused_node_keeps_infer_shape():
    x, y = ot.dmatrix("x"), ot.dvector("y")
    out = (x * y + 1) * 2
    f = opkit.function([x, y], out.shape)
    assert not any(isinstance(op, FusedElemwise) for op in _ops(f))
    np.testing.assert_array_equal(f(np.ones((3, 4)), np.ones(4)), [3, 4])
    # the fused op's own infer_shape, called directly (on FAST_RUN's graph: nothing to compile)
    g = opkit.function([x, y], out, mode=FAST_RUN_GRAPH)
    node = g.maker.fgraph.toposort()[0]
    assert isinstance(node.op, FusedElemwise)
    assert len(node.op.infer_shape(node, [(3, 4), (4,)])[0]) == 2


def test_python_and_c_of_a_fused_node_agree():
    x, y = ot.fmatrix("x"), ot.ivector("y")
    c = opkit.function([x, y], (x * y - 3) / (y + 7) + ot.exp(x))
    node, = c.maker.fgraph.toposort()
    assert isinstance(node.op, FusedElemwise)
    a = np.random.default_rng(2).random((3, 4)).astype("float32")
    b = np.arange(4, dtype="int32")
    values = {"x": a, "y": b}
    storage = [[None]]
    node.op.perform(node, [values.get(v.name, getattr(v, "data", None)) for v in node.inputs], storage)
    np.testing.assert_allclose(c(a, b), storage[0][0], rtol=2e-6)  # float32 exp: C++ vs numpy
