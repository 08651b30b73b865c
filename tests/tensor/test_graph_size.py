"""Graph size (issue 37.1): FAST_RUN keeps every check that can fail, once, and fuses 0-d work into few loops.

The rewrites: opkit.core.tensor.shapes.check_rewrites (a Depend keeps only the checks its value does not
compute; SumToShape to g's own static shape), opkit.core.tensor.reductions.scalar_reduce (a reduction of a
0-d value) and the 0-d sharing of opkit.core.tensor.fused.fusion. Every wrong shape still raises the
error, and the message, that running the unrewritten graph raises.
"""

import collections

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opkit
import opkit.tensor as ot
from tests.helpers.modes import FAST_RUN_GRAPH
from tests.helpers.numeric import check_close
from opkit.core.tensor.elementwise.elemwise import BroadcastAxis
from opkit.core.tensor.fused.fusion import MAX_CONE, FusedElemwise
from opkit.core.tensor.reductions.reduction import Reduce
from opkit.core.tensor.shapes.check_rewrites import _Proofs
from opkit.core.tensor.shapes.sum_to_shape import SumToShape, sum_to_shape
from opkit.core.tensor.types.shape_checks import Assert, Depend


def _nodes(f):
    return f.maker.fgraph.toposort()


def _ops(f):
    return collections.Counter(type(node.op).__name__ for node in _nodes(f))


def assert_no_check_twice(f):
    """No Depend repeats a check its value computes, and no two check nodes assert the same thing."""
    proofs, seen = _Proofs(), set()
    for node in _nodes(f):
        if isinstance(node.op, Depend):
            value, *checks = node.inputs
            assert checks, node
            assert not [c for c in checks if proofs.proves(value, c)], node
        if isinstance(node.op, BroadcastAxis):
            key = (node.op.ndims, node.op.what, tuple(map(id, node.inputs)), node.op.axis)
        elif isinstance(node.op, Assert):
            key = (node.op, tuple(map(id, node.inputs)))
        else:
            continue
        assert key not in seen, node
        seen.add(key)


def _outcome(call):
    try:
        return "ok", call()
    except Exception as exc:  # noqa: BLE001 (compared below: class and message)
        return "raises", (type(exc), str(exc))


# --- a PyMC-style model: its node count is pinned ------------------------------------------------------------

def _model():
    """Two blocks of a hierarchical normal model (benchmarks' model_cold, smaller): logp and its gradient."""
    y, x = ot.dmatrix("y"), ot.dmatrix("x")
    covariates = [ot.dmatrix(f"X{k}") for k in range(2)]
    log_sigma, beta = ot.dscalar("log_sigma"), [ot.dscalar(f"beta{k}") for k in range(2)]
    params = [log_sigma, *beta]

    def normal(value, mu, sd):
        return ot.sum(-0.5 * ot.sqr((value - mu) / sd) - ot.log(sd) - 0.9189385332046727)

    mean = beta[0] * covariates[0] + beta[1] * covariates[1]
    terms = []
    for b in range(2):
        mu, log_tau, eta = ot.dscalar(f"mu{b}"), ot.dscalar(f"log_tau{b}"), ot.dvector(f"eta{b}")
        slope = ot.dscalar(f"slope{b}")
        params += [mu, log_tau, eta, slope]
        tau = ot.exp(log_tau)
        terms += [normal(mu, 0.0, 5.0), normal(eta, 0.0, 1.0), normal(slope, 0.0, 1.0), normal(tau, 0.0, 2.5),
                  log_tau]
        mean = mean + ot.reshape(mu + tau * eta, (4, 1)) + slope * x
    sigma = ot.exp(log_sigma)
    terms += [-ot.log1p(ot.sqr(sigma)) + log_sigma, sum(normal(b, 0.0, 2.0) for b in beta), normal(y, mean, sigma)]
    logp = sum(terms)
    return [y, x, *covariates, *params], [logp, *ot.grad(logp, params)]


def _model_values(rng):
    values = [rng.standard_normal((4, 6)) for _ in range(4)] + [np.float64(-0.3), np.float64(0.5), np.float64(-1.0)]
    for _ in range(2):
        values += [np.float64(rng.standard_normal()), np.float64(-0.5), rng.standard_normal(4), np.float64(0.2)]
    return values


# The model's FAST_RUN graph on the Python linker (the rewrites checked: its nodes, its results and errors; nothing
# compiled), and compiled (soak: its C is that of the fused loops, reductions and checks the tests below compile).
@pytest.fixture(scope="module", params=["graph", pytest.param("compiled", marks=pytest.mark.soak)])
def model_functions(request):
    inputs, outputs = _model()
    fast = opkit.function(inputs, outputs, mode=FAST_RUN_GRAPH if request.param == "graph" else "FAST_RUN")
    return fast, opkit.function(inputs, outputs, mode="FAST_COMPILE")


def test_the_model_graph_is_small_and_checks_nothing_twice(model_functions):
    fast, _ = model_functions
    # before these rewrites: 124 nodes, 21 of them Depend, 32 elementwise loops, 19 fused reductions
    assert len(_nodes(fast)) <= 92, _ops(fast)
    ops = _ops(fast)
    assert ops["Depend"] <= 6 and ops["Elemwise"] + ops["FusedElemwise"] <= 24 and ops["FusedReduce"] <= 10, ops
    assert ops["Alloc"] <= 2, ops  # 3 before: the seeds of the eta vectors' normal terms go
    assert not [n for n in _nodes(fast) if isinstance(n.op, Reduce) and all(i.ndim == 0 for i in n.inputs)]
    assert_no_check_twice(fast)


def test_the_model_computes_what_fast_compile_does(model_functions):
    fast, slow = model_functions
    values = _model_values(np.random.default_rng(5))
    for a, b in zip(fast(*values), slow(*values)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shapes", [
    [(3, 6), (4, 6), (4, 6), (4, 6)],        # y longer than nothing else: axis 0 clashes
    [(4, 6), (4, 6), (4, 5), (4, 6)],        # a covariate of another length
    [(1, 6), (4, 1), (1, 1), (4, 6)],        # everything broadcasts: the gradient sums back
])
def test_the_model_raises_as_fast_compile_on_any_shape(model_functions, shapes):
    fast, slow = model_functions
    values = _model_values(np.random.default_rng(1))
    values[:4] = [np.full(s, 0.5) for s in shapes]
    got, expected = _outcome(lambda: fast(*values)), _outcome(lambda: slow(*values))
    assert got[0] == expected[0]
    if got[0] == "raises":
        # The same error and clash; a fused loop names itself and all its inputs ("the inputs of
        # Fused{mul,...,sub} with shapes ..."), not the one operation of it that clashes (as before).
        assert got[1][0] is expected[1][0] is ValueError
        assert got[1][1].split("cannot be broadcast")[1] == expected[1][1].split("cannot be broadcast")[1]
    else:
        for a, b in zip(got[1], expected[1]):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


# --- simplify_checks: a check goes only where computing the value proves it ---------------------------------

def test_broadcast_shapes_carry_no_depend():
    a, b, c = ot.dmatrix("a"), ot.dmatrix("b"), ot.dmatrix("c")
    f = opkit.function([a, b, c], ((a + b) * c).shape)
    assert _ops(f)["Depend"] == 0 and _ops(f)["BroadcastAxis"] == 4, _ops(f)
    assert_no_check_twice(f)
    with pytest.raises(ValueError) as info:
        f(np.ones((2, 3)), np.ones((4, 3)), np.ones((2, 3)))
    assert str(info.value) == ("the inputs of add with shapes (2, 3), (4, 3) cannot be broadcast together: "
                               "axis 0 has lengths [2, 4]")
    with pytest.raises(ValueError, match=r"the inputs of mul with shapes \(2, 3\), \(2, 5\) cannot be broadcast "
                                         r"together: axis 1 has lengths \[3, 5\]"):
        f(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 5)))
    assert tuple(f(np.ones((1, 3)), np.ones((2, 1)), np.ones((1, 1)))) == (2, 3)


def test_a_check_the_value_does_not_compute_stays():
    # the length of axis 1 is m's; the clash on axis 0 is checked only by the Depend on it
    v, m = ot.dvector("v"), ot.dmatrix("m")
    f = opkit.function([v, m], (ot.reshape(v, (2, 1)) + m).shape[1])
    assert _ops(f)["Depend"] >= 1
    assert_no_check_twice(f)
    assert f(np.ones(2), np.ones((2, 3))) == 3
    with pytest.raises(ValueError, match=r"the inputs of add with shapes \(2, 1\), \(3, 3\) cannot be broadcast"):
        f(np.ones(2), np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"reshape: cannot reshape an array of shape \(3,\) \(3 elements\) into "
                                         r"shape \(2, 1\)"):
        f(np.ones(3), np.ones((2, 3)))


def test_a_long_broadcast_chain_repeats_no_check():
    # each add's token holds its input's token, which its BroadcastAxis already reads: 176 Depend nodes
    # before, none now; the search for a check is short (SEARCH_LIMIT), so this stays linear
    from opkit.core import rewrites
    from opkit.core.fgraph import FunctionGraph

    xs = [ot.dmatrix(f"x{k}") for k in range(60)]
    total = xs[0]
    for x in xs[1:]:
        total = total * 1.01 + x
    fgraph = FunctionGraph(xs, [total.shape, *ot.grad(ot.sum(total), xs[:3])])
    rewrites.rewrite(fgraph, rewrites.PIPELINES["fast_run"])
    ops = collections.Counter(type(node.op).__name__ for node in fgraph.toposort())
    assert ops["Depend"] == 0 and ops["BroadcastAxis"] == 2 * 59, ops


def _unbroadcast(g, shape):
    """numpy: `g` summed to `shape` along the axes that were broadcast."""
    axes = tuple(k for k, (have, want) in enumerate(zip(g.shape, shape)) if want == 1 and have != 1)
    return g.sum(axis=axes, keepdims=True) if axes else g


_a, _b, _c, _v = ot.dmatrix("a"), ot.dmatrix("b"), ot.dmatrix("c"), ot.dvector("v")
_out = (_a + _b) * _c + ot.reshape(_v, (2, 1))
_GRADS = ot.grad(ot.sum(_out), [_a, _b, _c, _v])
_FUNCTIONS = {}


def _functions():
    if not _FUNCTIONS:
        _FUNCTIONS["fast"] = opkit.function([_a, _b, _c, _v], [_out.shape, *_GRADS])
        _FUNCTIONS["slow"] = opkit.function([_a, _b, _c, _v], [_out, *_GRADS], mode="FAST_COMPILE")
    return _FUNCTIONS["fast"], _FUNCTIONS["slow"]


_dims = st.tuples(st.sampled_from([0, 1, 2, 3]), st.sampled_from([1, 2, 3]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_dims, _dims, _dims, st.sampled_from([1, 2, 3]))
def test_shapes_and_gradients_raise_and_sum_as_numpy(sa, sb, sc, nv):
    fast, slow = _functions()
    assert_no_check_twice(fast)
    a, b, c, v = np.full(sa, 1.5), np.full(sb, 2.0), np.arange(np.prod(sc), dtype=float).reshape(sc), np.ones(nv)
    got, ran = _outcome(lambda: fast(a, b, c, v)), _outcome(lambda: slow(a, b, c, v))
    try:
        with np.errstate(all="ignore"):
            out = (a + b) * c + v.reshape(2, 1)
    except ValueError:
        assert got[0] == ran[0] == "raises" and got[1] == ran[1]
        return
    assert got[0] == "ok", got
    shape, ga, gb, gc, gv = got[1]
    assert tuple(shape) == out.shape
    ones = np.ones(out.shape)
    np.testing.assert_array_equal(ga, _unbroadcast(ones * c, sa))
    np.testing.assert_array_equal(gb, _unbroadcast(ones * c, sb))
    np.testing.assert_array_equal(gc, _unbroadcast(ones * (a + b), sc))
    np.testing.assert_array_equal(gv, _unbroadcast(ones, (2, 1)).reshape(2))


# --- reductions of 0-d values --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_reductions_of_a_0d_float_are_numpys(dtype):
    x = ot.scalar("x", dtype=dtype)
    f = opkit.function([x], [ot.sum(x), ot.mean(x), ot.prod(x), ot.max(x), ot.min(x), ot.sum(x) * 2])
    assert not [n for n in _nodes(f) if isinstance(n.op, Reduce)]
    for value in [-0.0, 0.0, 2.5, -np.inf, np.nan, 1e30]:
        value = np.asarray(value, dtype=dtype)
        with np.errstate(all="ignore"):
            expected = [np.sum(value), np.mean(value), np.prod(value), np.max(value), np.min(value),
                        np.sum(value) * np.asarray(2, dtype)]
        for got, want in zip(f(value), expected):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
            assert np.signbit(got) == np.signbit(want), (value, got, want)  # np.sum(-0.0) is 0.0


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_reductions_of_a_0d_integer_keep_numpys_dtype(dtype):
    x = ot.scalar("x", dtype=dtype)
    f = opkit.function([x], [ot.sum(x), ot.prod(x), ot.max(x), ot.min(x), ot.mean(x)])
    value = np.asarray(1 if dtype == "bool" else 7, dtype=dtype)
    for got, want in zip(f(value), [np.sum(value), np.prod(value), np.max(value), np.min(value), np.mean(value)]):
        assert got.dtype == np.asarray(want).dtype and got == want


# --- SumToShape to a constant shape ----------------------------------------------------------------------------

def test_sum_to_shape_goes_only_where_the_static_shape_proves_it():
    g = ot.tensor("float64", (2, 3))
    f = opkit.function([g], sum_to_shape(g, ot.constant(np.array([2, 3], dtype="int64"))))
    assert not [n for n in _nodes(f) if isinstance(n.op, SumToShape)]
    value = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(f(value), value)

    h = ot.tensor("float64", (None, 3))
    kept = opkit.function([h], sum_to_shape(h, ot.constant(np.array([2, 3], dtype="int64"))))
    assert [n for n in _nodes(kept) if isinstance(n.op, SumToShape)]
    np.testing.assert_array_equal(kept(value), value)
    with pytest.raises(ValueError, match=r"sum_to_shape: cannot sum an array of shape \(4, 3\) to the shape "
                                         r"\(2, 3\): each target length must be the array's or 1"):
        kept(np.ones((4, 3)))
    ones = opkit.function([h], sum_to_shape(h, ot.constant(np.array([1, 3], dtype="int64"))))
    np.testing.assert_array_equal(ones(np.ones((4, 3))), np.full((1, 3), 4.0))


# --- 0-d loops compute again the 0-d nodes they share ----------------------------------------------------------

def test_a_shared_0d_node_is_computed_in_each_0d_loop():
    a = ot.dscalar("a")
    s = ot.exp(a) / 3
    f = opkit.function([a], [s * 2 + 1, s - 1, ot.sqrt(s)])
    nodes = _nodes(f)
    assert len(nodes) == 3 and all(isinstance(n.op, FusedElemwise) for n in nodes), nodes
    value = np.float64(0.7)
    s_value = np.exp(value) / 3
    for got, want in zip(f(value), [s_value * 2 + 1, s_value - 1, np.sqrt(s_value)]):
        check_close(got, want, exact=False)  # exp: libm's in C, numpy's own in the oracle


def test_a_shared_array_is_computed_once():
    v = ot.dvector("v")
    s = ot.exp(v) / 3
    f = opkit.function([v], [s * 2 + 1, s - 1])
    assert len(_nodes(f)) == 3  # exp(v)/3 once, then one loop per output
    value = np.linspace(-1, 1, 5)
    s_value = np.exp(value) / 3
    for got, want in zip(f(value), [s_value * 2 + 1, s_value - 1]):
        check_close(got, want, exact=False)


def test_a_long_shared_scalar_chain_is_bounded_and_exact():
    # each value is used by the next two: copying each shared node into every loop using it, with the
    # shared nodes it uses in turn, would copy the whole chain into each loop (quadratic C)
    a = ot.dscalar("a")
    values = [a, a * 1.5]
    for k in range(60):
        values.append(ot.sin(values[-1]) + values[-2] * 0.5)
    f = opkit.function([a], [values[-1], values[-7] * 2])
    programs = [len(n.op.program) for n in _nodes(f) if isinstance(n.op, FusedElemwise)]
    assert max(programs) <= 2 * MAX_CONE and sum(programs) <= 2 * (3 * 60 + 2), programs  # 3 operations a value
    assert len(_nodes(f)) <= 40, programs  # 62 nodes unfused, 60 loops without inlining
    x = np.float64(0.3)
    reference = [x, x * 1.5]
    for k in range(60):
        reference.append(np.sin(reference[-1]) + reference[-2] * 0.5)
    got = f(x)
    check_close(got[0], reference[-1], exact=False)  # sin: libm's in C, numpy's own in the oracle
    check_close(got[1], reference[-7] * 2, exact=False)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.floats(allow_nan=True, allow_infinity=True, width=64), st.floats(-50, 50))
def test_shared_0d_loops_match_numpy(x, y):
    f = _shared_function()
    with np.errstate(all="ignore"):
        s = np.exp(np.float64(x)) - np.float64(y)
        expected = [s * s + 1, np.log1p(np.abs(s)) - np.float64(y), np.sum(s)]
    # exp is libm's in C and numpy's own (SIMD on AVX-512 hosts) in the oracle: a few ulps apart
    for got, want in zip(f(x, y), expected):
        check_close(got, want, exact=False, what=f"x={x!r}, y={y!r}")


_SHARED = []


def _shared_function():
    if not _SHARED:
        x, y = ot.dscalar("x"), ot.dscalar("y")
        s = ot.exp(x) - y
        _SHARED.append(opkit.function([x, y], [s * s + 1, ot.log1p(abs(s)) - y, ot.sum(s)]))
    return _SHARED[0]


# --- Allocs of ones (gradient seeds) that another input's shape proves -----------------------------------------

def _allocs(f):
    from opkit.core.tensor.shapes.alloc import Alloc

    return [n for n in _nodes(f) if isinstance(n.op, Alloc)]


def test_a_gradient_seed_of_the_shape_of_its_operand_goes():
    x = ot.dvector("x")
    f = opkit.function([x], [ot.grad(ot.sum(-0.5 * ot.exp(x)), x), ot.grad(ot.sum(ot.sqr(x)), x)])
    assert not _allocs(f), _nodes(f)
    for value in [np.linspace(-1, 1, 7), np.zeros(0), np.ones(1)]:
        a, b = f(value)
        check_close(a, -0.5 * np.exp(value), exact=False)
        np.testing.assert_array_equal(b, 2.0 * value)


def test_an_alloc_goes_only_where_another_input_has_its_lengths():
    a, b = ot.dmatrix("a"), ot.dmatrix("b")
    own = opkit.function([b], ot.alloc(np.float64(1.0), b.shape[0], b.shape[1]) * b * 3)
    assert not _allocs(own)
    value = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(own(value), value * 3)
    assert own(np.zeros((0, 3))).shape == (0, 3)

    other = opkit.function([a, b], ot.alloc(np.float64(1.0), a.shape[0], a.shape[1]) * b * 3)
    assert len(_allocs(other)) == 1  # a's lengths: b may be shorter, or clash
    np.testing.assert_array_equal(other(np.ones((2, 3)), np.ones((1, 3))), np.full((2, 3), 3.0))
    with pytest.raises(ValueError, match=r"cannot be broadcast together: axis 0 has lengths \[2, 3\]"):
        other(np.ones((2, 3)), np.ones((3, 3)))

    not_ones = opkit.function([b], ot.alloc(np.array([1.0, 2.0, 3.0]), b.shape[0], b.shape[1]) * b)
    assert len(_allocs(not_ones)) == 1  # the value itself has lengths that are not 1
    np.testing.assert_array_equal(not_ones(value), value * [1.0, 2.0, 3.0])
