"""Differential property test: random small graphs, compiled C (FAST_RUN) vs perform (FAST_COMPILE) vs numpy.

Graph *structures* come from a modest fixed list, each paired with a few dtype
and rank assignments (COMBOS, chosen once so that every dtype appears in every
role); hypothesis varies everything that does not need a new compile a lot:
shapes (0-size and length-1 broadcasting included, sometimes incompatible),
memory layouts (strided, negative strides, Fortran order, 0-stride, byte-swapped,
unaligned) and values
(extremes, inf, nan, -0.0). Each combination compiles once (modules are cached
by content), so the example count grows without growing the compile count.

Checked for every example: the dtype exactly; values bit for bit for the
correctly rounded ops (add, sub, mul, div, neg, sqr, sqrt, maximum) and to a
few ulps (scaled by the terms' magnitudes) where libm or a summation order is
involved; and numpy's errors: if numpy raises, opkit raises the same kind of
exception (when building the graph or when running it), and never otherwise.
"""

import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from helpers.numeric import DTYPES, check_close

REDUCTIONS = ("sum", "prod", "max", "min", "mean")


def _np_float_function(name, formula):
    """numpy's version of a float function without a ufunc (sigmoid, softplus): np.exp's dtypes, no complex."""
    def compute(x):
        x = np.asarray(x)
        if x.dtype.kind == "c":
            raise TypeError(f"{name} is not defined for complex inputs")
        dtype = np.exp(np.zeros(0, x.dtype)).dtype
        return np.asarray(formula(x.astype(np.float64))).astype(dtype)
    return compute


_NP_STANDARD = dict(
    abs=np.abs, sign=np.sign, tanh=np.tanh, sin=np.sin, cos=np.cos, log1p=np.log1p, expm1=np.expm1,
    sigmoid=_np_float_function("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
    softplus=_np_float_function("softplus", lambda x: np.logaddexp(0.0, x)),
    floor=np.floor, ceil=np.ceil, round=np.round, minimum=np.minimum, lt=np.less, gt=np.greater,
    le=np.less_equal, ge=np.greater_equal, eq=np.equal, neq=np.not_equal, and_=np.bitwise_and,
    or_=np.bitwise_or, xor=np.bitwise_xor, invert=np.invert, switch=np.where, clip=np.clip,
    cast=lambda x, dtype: np.asarray(x).astype(dtype))
NP = SimpleNamespace(add=np.add, sub=np.subtract, mul=np.multiply, div=np.true_divide, neg=np.negative,
                     exp=np.exp, log=np.log, sqr=np.square, sqrt=np.sqrt, maximum=np.maximum, pow=np.power,
                     dot=np.dot, **_NP_STANDARD, **{k: getattr(np, k) for k in REDUCTIONS})
OT = SimpleNamespace(add=ot.add, sub=ot.sub, mul=ot.mul, div=ot.true_div, neg=ot.neg, exp=ot.exp, log=ot.log,
                     sqr=ot.sqr, sqrt=ot.sqrt, maximum=ot.maximum, pow=ot.pow,
                     dot=ot.dot, **{name: getattr(ot, name) for name in (*_NP_STANDARD, *REDUCTIONS)})


def _abs(x):
    return np.abs(np.asarray(x))


def _wide(x):
    """`x` as float64 (complex128 if complex): the magnitude of terms, computed without overflow."""
    x = np.asarray(x)
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _reduction(dtype, offset):
    """The reduction a reduce structure applies when its first input has `dtype`: each meets several dtypes."""
    return REDUCTIONS[(DTYPES.index(np.dtype(dtype).name) + offset) % len(REDUCTIONS)]


def _reduce(m, x, value, offset, axis=None):
    return getattr(m, _reduction(x.dtype, offset))(value, axis=axis)


def _reduce_scale(dtypes, value, offset, axis=None):
    """The magnitude a reduction's rounding errors scale with: of the sum, mean or product of |terms|."""
    kind = _reduction(dtypes[0], offset)
    if kind in ("max", "min"):
        return np.max(_abs(value), axis=axis, initial=0.0)
    return getattr(np, kind)(_abs(value), axis=axis)


# name -> (number of inputs, expression over a namespace, exact?, magnitude of the terms (given the input
# dtypes and the inputs as float64/complex128) or None)
STRUCTURES = {
    "add": (2, lambda m, x, y: m.add(x, y), True, None),
    "mul_sub": (3, lambda m, x, y, z: m.sub(m.mul(x, y), z), True, None),
    "max_neg_sqr": (3, lambda m, x, y, z: m.add(m.maximum(x, m.neg(y)), m.sqr(z)), True, None),
    "div_mul": (3, lambda m, x, y, z: m.mul(m.div(x, y), z), True, None),
    "sqrt_sqr": (2, lambda m, x, y: m.sqrt(m.add(m.sqr(x), y)), True, None),
    "weak_constants": (3, lambda m, x, y, z: m.sub(m.add(m.maximum(x, y), m.mul(3, x)), m.div(z, 2)), True, None),
    "exp_log": (2, lambda m, x, y: m.add(m.exp(x), m.log(y)), False,
                lambda d, x, y: _abs(np.exp(x)) + _abs(np.log(y))),
    "pow_sub": (2, lambda m, x, y: m.sub(m.pow(x, y), x), False,
                lambda d, x, y: _abs(np.power(x, y)) + _abs(x)),
    # sum, prod, max, min or mean (by the first input's dtype) of a fused elementwise expression
    "reduce": (3, lambda m, x, y, z: _reduce(m, x, m.add(m.mul(x, y), z), 0), False,
               lambda d, x, y, z: _reduce_scale(d, np.add(np.multiply(x, y), z), 0)),
    "reduce_last_axis": (2, lambda m, x, y: _reduce(m, x, m.mul(m.exp(x), y), 2, axis=-1), False,
                         lambda d, x, y: _reduce_scale(d, np.multiply(np.exp(x), y), 2, axis=-1)),
    "dot": (2, lambda m, x, y: m.dot(m.mul(x, 2), y), False,
            lambda d, x, y: np.dot(_abs(np.multiply(x, 2)), _abs(y))),
    # The standard ops (fewer dtype combinations each, see _combos: HALF_COVERED).
    "unary_chain": (2, lambda m, x, y: m.add(m.tanh(m.sin(x)), m.mul(m.abs(y), m.sign(m.cos(x)))), False,
                    lambda d, x, y: 1 + _abs(y)),
    "round_minimum": (2, lambda m, x, y: m.add(m.minimum(m.floor(x), m.round(y)), m.ceil(x)), True, None),
    "compare_switch": (3, lambda m, x, y, z: m.switch(m.lt(x, y), m.clip(x, z, y), m.maximum(m.neq(x, z), z)),
                       True, None),
    "logic_cast_float": (3, lambda m, x, y, z: m.add(m.cast(m.or_(m.xor(x, m.invert(y)), m.ge(y, x)), "float32"),
                                                     m.mul(m.softplus(m.expm1(z)), m.sigmoid(m.log1p(z)))), False,
                         lambda d, x, y, z: 1 + _abs(np.logaddexp(0, np.expm1(z)))),
}
HALF_COVERED = ("unary_chain", "round_minimum", "compare_switch", "logic_cast_float")

# Ranks per structure (each input's ndim): elementwise ones mix ranks to broadcast.
RANKS = {
    2: [(1, 1), (2, 1), (0, 2), (3, 2), (2, 2)],
    3: [(1, 1, 1), (2, 1, 0), (1, 2, 2), (3, 1, 2), (2, 2, 1)],
}
DOT_RANKS = [(2, 1), (2, 2), (1, 2), (1, 1), (2, 2)]


def _combos():
    """(structure, dtypes, ranks): 14 per structure; across them each input position takes every dtype.

    Input i of combination j of structure k has dtype (j + i * (k % 3 + 2) * (k % 3 > 0)) mod 14:
    every third structure applies one dtype to all its inputs, the others mix dtypes. The
    HALF_COVERED structures take every other j (7 combinations: fewer modules to compile).
    """
    combos = []
    for k, (name, (nin, *_)) in enumerate(STRUCTURES.items()):
        ranks = DOT_RANKS if name == "dot" else RANKS[nin]
        step = (k % 3 + 2) if k % 3 else 0
        for j in range(k % 2, len(DTYPES), 2) if name in HALF_COVERED else range(len(DTYPES)):
            dtypes = tuple(DTYPES[(j + i * step) % len(DTYPES)] for i in range(nin))
            rank = ranks[(j + k) % len(ranks)]
            if name == "reduce_last_axis" and min(rank) == 0:
                rank = (1,) * nin
            combos.append((name, dtypes, rank))
    return combos


COMBOS = _combos()
_FUNCTIONS = {}


def _function(combo, mode):
    """Return the compiled function (or the exception building it raised), once per combo and mode."""
    key = (combo, mode)
    if key not in _FUNCTIONS:
        name, dtypes, ranks = combo
        nin, expr, *_ = STRUCTURES[name]
        inputs = [ot.tensor(d, (None,) * r, name=f"x{i}") for i, (d, r) in enumerate(zip(dtypes, ranks))]
        try:
            _FUNCTIONS[key] = opkit.function(inputs, expr(OT, *inputs), mode=mode)
        except (TypeError, ValueError, OverflowError) as exc:
            _FUNCTIONS[key] = exc
    return _FUNCTIONS[key]


def _elements(dtype):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return st.booleans()
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return st.one_of(st.integers(-4, 8).filter(lambda v: info.min <= v <= info.max),
                         st.integers(int(info.min), int(info.max)))
    if dt.kind == "f":
        width = dt.itemsize * 8
        return st.one_of(st.floats(-8, 8, width=width), st.floats(width=width))
    return st.complex_numbers(max_magnitude=1e3, width=dt.itemsize * 8, allow_nan=False, allow_infinity=False)


@st.composite
def _shapes(draw, name, ranks):
    """Input shapes that broadcast (length-1 and 0-length axes included), sometimes clashing."""
    sizes = st.sampled_from([0, 1, 1, 2, 3, 4])
    if name == "dot":
        m, k, n = draw(sizes), draw(sizes), draw(sizes)
        xs = (m, k) if ranks[0] == 2 else (k,)
        ys = (k, n) if ranks[1] == 2 else (k,)
        if draw(st.integers(0, 9)) == 0:
            ys = (k + 2,) + ys[1:]
        return [xs, ys]
    out = [draw(sizes) for _ in range(max(ranks))]
    shapes = []
    for rank in ranks:
        tail = out[len(out) - rank:] if rank else []
        shapes.append([d if draw(st.booleans()) else 1 for d in tail])
    if draw(st.integers(0, 9)) == 0:
        candidates = [(i, a) for i, s in enumerate(shapes) for a in range(len(s))]
        if candidates:
            i, a = draw(st.sampled_from(candidates))
            shapes[i][a] = out[len(out) - len(shapes[i]) + a] + 2
    return [tuple(s) for s in shapes]


def _layout(base, kind):
    """Return an array equal to `base` with the memory layout `kind`."""
    if base.ndim == 0:
        return base.copy()
    if kind == "fortran":
        return np.asfortranarray(base)
    if kind == "strided":
        big = np.zeros(tuple(2 * d + 1 for d in base.shape), dtype=base.dtype)
        view = big[tuple(slice(1, None, 2) for _ in base.shape)]
        view[...] = base
        return view
    if kind == "reversed":
        flip = tuple(slice(None, None, -1) for _ in base.shape)
        return np.ascontiguousarray(base[flip])[flip]
    if kind == "zero_stride" and base.size:
        return np.broadcast_to(base.reshape(-1)[0], base.shape)
    if kind == "byteswapped":
        return base.astype(base.dtype.newbyteorder())
    if kind == "unaligned" and base.dtype.itemsize > 1:
        raw = np.zeros(base.nbytes + 1, dtype=np.uint8)[1:]
        view = raw.view(base.dtype).reshape(base.shape)
        view[...] = base
        return view
    return np.array(base, order="C")


@st.composite
def _case(draw):
    combo = draw(st.sampled_from(COMBOS))
    name, dtypes, ranks = combo
    arrays = []
    for dtype, shape in zip(dtypes, draw(_shapes(name, ranks))):
        base = draw(hnp.arrays(dtype, shape, elements=_elements(dtype)))
        kind = draw(st.sampled_from(["c", "fortran", "strided", "reversed", "zero_stride", "byteswapped",
                                     "unaligned"]))
        arrays.append(_layout(base, kind))
    return combo, arrays


def _run(f, arrays):
    """Return ("ok", value) or ("raised", exception class) for calling f (or f's build error)."""
    if isinstance(f, Exception):
        return "raised", f
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy's side runs under errstate(all="ignore")
            return "ok", f(*arrays)
    except (TypeError, ValueError, OverflowError, ZeroDivisionError) as exc:
        return "raised", exc


def _kind(exc):
    for kind in (OverflowError, TypeError, ValueError, ZeroDivisionError):
        if isinstance(exc, kind):
            return kind
    return type(exc)


# The default run draws DEFAULT_EXAMPLES examples (10 combinations compiled to C, 10 errors raised as numpy raises
# them); the soak run draws FULL_EXAMPLES (21 and 34). Both are derandomized: the same examples on every run, in any
# test order (tests/helpers/fixed_draws.py: hypothesis's draws would otherwise depend on what was imported). Each op
# the structures use has its own tests in the default run too (test_dtypes, test_language_elementwise, test_reductions).
DEFAULT_EXAMPLES, FULL_EXAMPLES = 50, 150  # 150: CI time of the soak run (400: 43 C combinations)
SETTINGS = dict(derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
STATS = {count: {"examples": 0, "raised": 0, "c_combos": set()} for count in (DEFAULT_EXAMPLES, FULL_EXAMPLES)}


def check_case(case, stats):
    combo, arrays = case
    name, dtypes, ranks = combo
    nin, expr, exact, scale = STRUCTURES[name]
    what = f"{name} on {dtypes} with shapes {[a.shape for a in arrays]}, strides {[a.strides for a in arrays]}"
    stats["examples"] += 1
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy's "Mean of empty slice"
            expected = ("ok", np.asarray(expr(NP, *arrays)))
    except (TypeError, ValueError, OverflowError, ZeroDivisionError) as exc:
        expected = ("raised", exc)
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = _function(combo, mode)
        outcome = _run(f, arrays)
        if expected[0] == "raised":
            assert outcome[0] == "raised", f"{what} {mode}: numpy raises {expected[1]!r}, opkit returned {outcome[1]}"
            assert _kind(outcome[1]) is _kind(expected[1]), (
                f"{what} {mode}: numpy raises {expected[1]!r}, opkit {outcome[1]!r}")
            stats["raised"] += 1
            continue
        assert outcome[0] == "ok", f"{what} {mode}: opkit raised {outcome[1]!r}, numpy returns {expected[1]}"
        magnitude = None
        if scale is not None:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                magnitude = scale(dtypes, *[_wide(a) for a in arrays])
        check_close(outcome[1], expected[1], exact, magnitude, what=f"{what} {mode}")
        if mode == "FAST_RUN":
            if any(op_has_c(n) for n in f.maker.fgraph.toposort()):
                stats["c_combos"].add(combo)
            run_result = outcome[1]
        else:
            check_close(run_result, outcome[1], exact, magnitude, what=f"{what} FAST_RUN vs FAST_COMPILE")


@settings(max_examples=DEFAULT_EXAMPLES, **SETTINGS)
@given(_case())
def test_random_graphs_match_numpy_in_both_modes(case):
    check_case(case, STATS[DEFAULT_EXAMPLES])


@pytest.mark.soak
@settings(max_examples=FULL_EXAMPLES, **SETTINGS)
@given(_case())
def test_random_graphs_match_numpy_in_both_modes_at_the_full_count(case):
    check_case(case, STATS[FULL_EXAMPLES])


# (examples, errors raised at least, C combinations at least) of each count's run (see DEFAULT_EXAMPLES)
COVERAGE = [pytest.param(DEFAULT_EXAMPLES, 8, 8, id="default"),
            pytest.param(FULL_EXAMPLES, 30, 18, id="full", marks=pytest.mark.soak)]


@pytest.mark.parametrize("count, raised, c_combos", COVERAGE)
def test_the_differential_run_covered_c_dtypes_errors_and_examples(count, raised, c_combos):
    """The property test above really compared compiled C code, raised errors, and ran `count` examples."""
    stats = STATS[count]
    if stats["examples"] == 0:
        pytest.skip("run together with the property test of this count")
    assert stats["examples"] >= count
    assert stats["raised"] >= raised
    assert len(stats["c_combos"]) >= c_combos, sorted(stats["c_combos"])
    covered = {d for combo in COMBOS for d in combo[1]}
    assert covered == set(DTYPES)


def test_combos_put_every_dtype_in_every_role():
    for nin in (2, 3):
        for position in range(nin):
            seen = {combo[1][position] for combo in COMBOS if STRUCTURES[combo[0]][0] == nin}
            assert seen == set(DTYPES), (nin, position, set(DTYPES) - seen)


@pytest.mark.parametrize("result, expected, exact", [
    (np.array([2], np.uint8).view(np.bool_), np.array([True]), True),           # bool byte 2
    (np.array([1.0], np.float32), np.array([1.0], np.float64), True),           # dtype
    (np.array([1.0 + 1e-7]), np.array([1.0]), True),                             # one rounding off
    (np.array([1.0 + 1e-12]), np.array([1.0]), False),                           # beyond 64 ulps
    (np.array([np.nan]), np.array([np.inf]), False),                             # non-finite mismatch
    (np.array([0.0]), np.zeros(2), True),                                        # shape
    (np.array([-128], np.int8), np.array([128], np.int16), True),
])
def test_the_checker_rejects_wrong_results(result, expected, exact):
    with pytest.raises(AssertionError):
        check_close(result, expected, exact)

