"""Ties, signed zeros, infinities and NaN in every elementwise op, bit for bit against numpy, in every mode.

A function that picks one of its operands (maximum, minimum, clip, switch) or
whose result's sign follows a rule (sign, abs, floor, ceil, round of -0.0, the
comparisons) has no rounding to hide behind: opkit's answer must be numpy's bits,
the sign of a zero included. Results are compared as unsigned integers (.view),
so -0.0 differs from +0.0; a NaN must be a NaN, and for the functions that pick an
operand or only touch the sign bit it must be the very NaN numpy gives (its sign
too). Arithmetic keeps only "a NaN" (IEEE leaves which NaN's sign and payload an
operation returns open, and numpy's own SIMD and scalar loops differ there), and
the libm functions (exp, tanh, ...) are compared only where their answer is exact
(+-0, +-inf, NaN): elsewhere they are a few ulps from numpy's SIMD loops by design
(tests/tensor/test_trust3_ulp_bounds.py).

numpy's clip has two loops: with bounds that are one number each for the whole loop
(Python numbers, 0-d arrays) it keeps x unless x is strictly outside them, and fills
the output with a NaN bound; with bounds that vary along the loop it computes
min(max(x, lo), hi), where a tie gives the bound. numpy's float power has a fast path
for an exponent that is one number for the loop (x ** 0.5 is sqrt: -0.0 stays -0.0).
"One number for the loop" is numpy's zero stride: a 0-d operand, or one element
broadcast to a longer output (a (1,) array beside a longer vector, checked here too);
opkit's C decides the same at run time.

Modes: FAST_RUN C with every op fused behind one more exact op (neg or invert), FAST_RUN
C without fusion, FAST_COMPILE (numpy), and eager `op.compute`; float32 and float64.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opkit
import opkit.tensor as ot

FLOATS = ("float32", "float64")
INF, NAN = math.inf, math.nan
NEG_NAN = -np.float64("nan")
# Rich in +-0, +-inf, NaN of both signs, ties (x.5 for round, equal operands when drawn twice) and subnormals.
POOL = (0.0, -0.0, INF, -INF, NAN, NEG_NAN, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1e-45, -1e-45, 5e-324, 3.0)
SPECIAL = (0.0, -0.0, INF, -INF, NAN, NEG_NAN)

# name: (opkit function, numpy function, how NaN is compared: "exact" bits or "class" (any NaN)).
EXACT_UNARY = {"abs": (ot.abs, np.abs, "exact"), "sign": (ot.sign, np.sign, "exact"),
               "floor": (ot.floor, np.floor, "exact"), "ceil": (ot.ceil, np.ceil, "exact"),
               "round": (ot.round, np.round, "exact"), "neg": (ot.neg, np.negative, "exact"),
               "sqr": (ot.sqr, np.square, "class"), "sqrt": (ot.sqrt, np.sqrt, "class")}
# Exact only at +-0, +-inf and NaN (elsewhere libm's few ulps): checked there.
LIBM_UNARY = {"exp": (ot.exp, np.exp, "class"), "log": (ot.log, np.log, "class"),
              "tanh": (ot.tanh, np.tanh, "class"), "sin": (ot.sin, np.sin, "class"),
              "cos": (ot.cos, np.cos, "class"), "log1p": (ot.log1p, np.log1p, "class"),
              "expm1": (ot.expm1, np.expm1, "class")}
BINARY = {"add": (ot.add, np.add, "class"), "sub": (ot.sub, np.subtract, "class"),
          "mul": (ot.mul, np.multiply, "class"), "true_div": (ot.true_div, np.true_divide, "class"),
          "maximum": (ot.maximum, np.maximum, "exact"), "minimum": (ot.minimum, np.minimum, "exact"),
          "lt": (ot.lt, np.less, "exact"), "gt": (ot.gt, np.greater, "exact"),
          "le": (ot.le, np.less_equal, "exact"), "ge": (ot.ge, np.greater_equal, "exact"),
          "eq": (ot.eq, np.equal, "exact"), "neq": (ot.neq, np.not_equal, "exact")}
LIBM_BINARY = {"pow": (ot.pow, np.power, "class")}
TERNARY = {"clip": (ot.clip, np.clip, "exact"), "switch": (ot.switch, np.where, "exact")}

UNFUSED = opkit.Mode(linker="c", optimizer="fast_run").excluding("fusion")
MODES = {"fused": "FAST_RUN", "unfused": UNFUSED, "numpy": "FAST_COMPILE"}
# Python-number bounds of clip, signed zeros and NaN among them (each pair is its own constant node).
NUMBER_BOUNDS = ((0.0, 10.0), (-10.0, 0.0), (-0.0, 10.0), (-0.0, 0.0), (0.0, -0.0), (NAN, 1.0), (-1.0, NAN),
                 (-INF, -0.0), (1.0, -1.0))


def _bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a


def _assert_same(got, expected, nan, what, where=None):
    """Assert `got` is numpy's `expected`: same dtype, same bits (a NaN for a NaN where `nan` is "class")."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype}, numpy {expected.dtype}"
    assert got.shape == expected.shape, f"{what}: shape {got.shape}, numpy {expected.shape}"
    same = _bits(got) == _bits(expected)
    if nan == "class" and expected.dtype.kind == "f":
        same |= np.isnan(got) & np.isnan(expected)
    if where is not None:
        same |= ~where
    bad = np.flatnonzero(~np.asarray(same).ravel())
    assert not len(bad), f"{what}: at {bad[:5].tolist()} opkit gives {got.ravel()[bad[:5]].tolist()}, " \
                         f"numpy {expected.ravel()[bad[:5]].tolist()} (first of {len(bad)})"


def _outer(name, out):
    """`out` behind one more exact op, so that the fused mode computes it inside a fused loop."""
    return ot.invert(out) if name in ("lt", "gt", "le", "ge", "eq", "neq") else ot.neg(out)


def _np_outer(name, value):
    return np.invert(value) if name in ("lt", "gt", "le", "ge", "eq", "neq") else np.negative(value)


def _graph(dtype, fused):
    """One function of every op over vectors x, y, z and 0-d s, t: (inputs, {label: output})."""
    x, y, z = (ot.vector(dtype=dtype, name=n) for n in "xyz")
    s, t = (ot.scalar(dtype=dtype, name=n) for n in "st")
    u, w = (ot.vector(dtype=dtype, name=n) for n in "uw")  # one element each at run time: broadcast
    outputs = {}
    for name, (op, _, _) in {**EXACT_UNARY, **LIBM_UNARY}.items():
        outputs[name] = op(x)
    for name, (op, _, _) in {**BINARY, **LIBM_BINARY}.items():
        outputs[name] = op(x, y)
        outputs[name + "_scalar"] = op(x, s)
    outputs["clip"] = ot.clip(x, y, z)
    outputs["clip_scalar"] = ot.clip(x, s, t)
    outputs["clip_one"] = ot.clip(x, u, w)
    outputs["pow_one"] = ot.pow(x, u)
    outputs["maximum_one"] = ot.maximum(x, u)
    outputs["switch"] = ot.switch(x, y, z)
    outputs["switch_scalar"] = ot.switch(x, s, t)
    for k, (lo, hi) in enumerate(NUMBER_BOUNDS):
        outputs[f"clip_number{k}"] = ot.clip(x, lo, hi)
    if fused:
        outputs = {label: _outer(_base(label), out) for label, out in outputs.items()}
    return [x, y, z, s, t, u, w], outputs


_FUNCTIONS = {}


def _function(dtype, mode):
    key = (dtype, mode)
    if key not in _FUNCTIONS:
        inputs, outputs = _graph(dtype, mode == "fused")
        f = opkit.function(inputs, list(outputs.values()), mode=MODES[mode])
        _FUNCTIONS[key] = (f, list(outputs))
    return _FUNCTIONS[key]


def _base(label):
    return label.split("_scalar")[0].split("_one")[0]


def _expected(label, x, y, z, s, t, u, w):
    """numpy's answer for output `label` (see _graph)."""
    base = _base(label)
    if label.endswith("_one"):
        y, z, s = u, w, u
    with np.errstate(all="ignore"):
        if base in EXACT_UNARY or base in LIBM_UNARY:
            return {**EXACT_UNARY, **LIBM_UNARY}[base][1](x)
        if base in BINARY or base in LIBM_BINARY:
            return {**BINARY, **LIBM_BINARY}[base][1](x, s if label.endswith(("_scalar", "_one")) else y)
        if label.startswith("clip_number"):
            lo, hi = NUMBER_BOUNDS[int(label[len("clip_number"):])]
            return np.clip(x, lo, hi)
        a, b = (s, t) if label.endswith("_scalar") else (y, z)
        return np.clip(x, a, b) if base == "clip" else np.where(x, a, b)


def _nan_rule(label):
    base = _base(label)
    if base.startswith("clip"):
        return "exact"
    return {**EXACT_UNARY, **LIBM_UNARY, **BINARY, **LIBM_BINARY, **TERNARY}[base][2]


def _exact_where(label, x, y, s):
    """Where the libm functions are exact (their operands special), else everywhere (None)."""
    base = _base(label)
    if base in LIBM_UNARY:
        return np.isin(x, SPECIAL) | np.isnan(x)
    if base in LIBM_BINARY:
        other = np.broadcast_to(s if label.endswith(("_scalar", "_one")) else y, x.shape)
        special = (np.isin(x, SPECIAL) | np.isnan(x)) & (np.isin(other, SPECIAL) | np.isnan(other))
        return special | (other == 0) | (other == 1) | (x == 1)
    return None


@st.composite
def _case(draw):
    """float64 values of x, y, z (vectors of one length), s, t (0-d) and u, w (one element each) from POOL."""
    n = draw(st.integers(0, 12))
    values = st.sampled_from(POOL)
    x, y, z = (np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=np.float64) for _ in range(3))
    s, t = (np.array(draw(values), dtype=np.float64) for _ in range(2))
    u, w = (np.array([draw(values)], dtype=np.float64) for _ in range(2))
    return x, y, z, s, t, u, w


# One compiled function per dtype and mode (tests/soak_cases.py keeps float64's fused C and numpy's modes).
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("dtype", FLOATS)
@settings(derandomize=True, database=None, max_examples=150, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(case=_case())
def test_every_elementwise_op_matches_numpy_bit_for_bit(dtype, mode, case):
    x, y, z, s, t, u, w = (a.astype(dtype) for a in case)
    f, labels = _function(dtype, mode)
    with np.errstate(all="ignore"):
        results = f(x, y, z, s, t, u, w)
    for label, got in zip(labels, results):
        expected = _expected(label, x, y, z, s, t, u, w)
        if mode == "fused":
            with np.errstate(all="ignore"):
                expected = _np_outer(_base(label), expected)
        _assert_same(got, expected, _nan_rule(label), f"{label} ({mode}, {dtype}) of x={x.tolist()}",
                     _exact_where(label, x, y, u if label.endswith("_one") else s))


EAGER_OPS = ("maximum", "minimum", "lt", "le", "eq", "abs", "sign", "round", "floor", "ceil")


def _elemwise_op(build):
    return build().owner.op


@pytest.mark.parametrize("dtype", FLOATS)
def test_eager_compute_matches_numpy_bit_for_bit(dtype):
    """op.compute over every pair of pool values (and with Python-number and 0-d bounds for clip)."""
    pool = np.array(POOL, dtype=np.float64).astype(dtype)
    x, y = (a.ravel() for a in np.meshgrid(pool, pool))
    v = ot.vector(dtype=dtype)
    for name in EAGER_OPS:
        op, ufunc, nan = {**EXACT_UNARY, **BINARY}[name]
        binary = name in BINARY
        node_op = _elemwise_op(lambda: op(v, v) if binary else op(v))
        with np.errstate(all="ignore"):
            _assert_same(node_op.compute(x, y) if binary else node_op.compute(x),
                         ufunc(x, y) if binary else ufunc(x), nan, f"{name}.compute ({dtype})")
    clip_op = _elemwise_op(lambda: ot.clip(v, v, v))
    for lo, hi in NUMBER_BOUNDS:
        _assert_same(clip_op.compute(pool, lo, hi), np.clip(pool, lo, hi), "exact", f"clip.compute({lo}, {hi})")
        lo0, hi0 = np.array(lo, dtype), np.array(hi, dtype)
        _assert_same(clip_op.compute(pool, lo0, hi0), np.clip(pool, lo0, hi0), "exact",
                     f"clip.compute(0-d {lo}, 0-d {hi})")
    _assert_same(clip_op.compute(x, y, x), np.clip(x, y, x), "exact", "clip.compute(arrays)")
    switch_op = _elemwise_op(lambda: ot.switch(v, v, v))
    _assert_same(switch_op.compute(x, y, x), np.where(x, y, x), "exact", "switch.compute")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mode", list(MODES))
def test_clip_with_number_bounds_keeps_x_on_a_tie(mode, dtype):
    """The reported cases: np.clip([-0.0], 0.0, 10.0) is [-0.0], and its neighbours."""
    x = ot.vector(dtype=dtype)
    cases = ((-0.0, 0.0, 10.0), (-0.0, -10.0, 0.0), (0.0, -0.0, 10.0), (0.0, -10.0, -0.0))
    f = opkit.function([x], [ot.clip(x, lo, hi) for _, lo, hi in cases], mode=MODES[mode])
    value = np.array([c[0] for c in cases], dtype=dtype)
    for k, ((v, lo, hi), got) in enumerate(zip(cases, f(value))):
        expected = np.clip(value, lo, hi)
        assert np.signbit(expected[k]) == np.signbit(v), "numpy keeps x on a tie"
        _assert_same(got, expected, "exact", f"clip({v}, {lo}, {hi}) in {mode}, {dtype}")


def test_the_checker_sees_a_zero_of_the_other_sign_and_another_nan():
    with pytest.raises(AssertionError, match="opkit gives"):
        _assert_same(np.array([0.0]), np.array([-0.0]), "exact", "x")
    with pytest.raises(AssertionError, match="opkit gives"):
        _assert_same(np.array([NAN]), np.array([NEG_NAN]), "exact", "x")
    with pytest.raises(AssertionError, match="opkit gives"):
        _assert_same(np.array([NAN]), np.array([1.0]), "class", "x")
    _assert_same(np.array([NAN]), np.array([NEG_NAN]), "class", "x")


@pytest.mark.parametrize("mode", ["fused", "unfused"])
def test_operands_of_one_element_take_numpys_loop_by_its_zero_stride_rule(mode):
    """clip's bounds and pow's exponent of one element: numpy's constant loop where they are broadcast to a
    longer result (a zero stride), its other loop where the result has one element too; also inside a fused
    program, where numpy computes each step on its own operands' broadcast shape."""
    def vectors(*names):
        return [ot.dvector(n) for n in names]

    # name: (inputs, opkit output, numpy of the same values); each graph on inputs of its own
    x, lo, hi = vectors("x", "lo", "hi")
    m, mlo, mhi = (ot.dmatrix(n) for n in ("m", "mlo", "mhi"))
    px, plo = vectors("px", "plo")
    ax, alo, ahi, abig = vectors("ax", "alo", "ahi", "abig")
    s, slo, shi, sbig = ot.dscalar("s"), *vectors("slo", "shi", "sbig")
    graphs = {
        "clip": ([x, lo, hi], ot.clip(x, lo, hi), np.clip),
        "clip_matrix": ([m, mlo, mhi], ot.clip(m, mlo, mhi), np.clip),
        "pow": ([px, plo], ot.pow(px, plo), np.power),
        "clip_then_add": ([ax, alo, ahi, abig], abig + ot.clip(ax, alo, ahi), lambda a, b, c, d: d + np.clip(a, b, c)),
        "clip_of_0d_then_mul": ([s, slo, shi, sbig], sbig * ot.clip(s, slo, shi),
                                lambda a, b, c, d: d * np.clip(a, b, c)),
    }
    values = {
        "clip": [([-0.0, 0.0, -INF, 4.0], [0.0], [10.0]), ([-0.0], [0.0], [10.0]), ([0.0, 1.0], [-0.0], [0.0]),
                 ([-0.0, 0.0], [NAN], [10.0]), ([-0.0, 2.0], [0.0, 0.0], [10.0, 1.0])],
        "clip_matrix": [([[-0.0, 0.0, 3.0]], [[0.0]], [[-0.0]]), ([[-0.0]], [[0.0]], [[1.0]])],
        "pow": [([-0.0, 0.0, -INF, 4.0], [0.5]), ([-0.0], [0.5]), ([-INF, -0.0], [0.5, 0.5])],
        "clip_then_add": [([-0.0], [0.0], [10.0], [1.0, -1.0, 0.0]), ([0.0], [NAN], [1.0], [0.0, 0.0])],
        "clip_of_0d_then_mul": [(-0.0, [0.0], [10.0], [1.0, -1.0, 0.0]), (-0.0, [NAN], [1.0], [0.0, 0.0])],
    }
    # every graph an output of one function (one module, not five: CI time); a call gives the other graphs their
    # first case's values, and checks their outputs too
    f = opkit.function([v for inputs, _, _ in graphs.values() for v in inputs], [out for _, out, _ in graphs.values()],
                       mode=MODES[mode])
    first = {name: [np.array(v, dtype="float64") for v in values[name][0]] for name in graphs}
    for name in graphs:
        for case in values[name]:
            arrays = {**first, name: [np.array(v, dtype="float64") for v in case]}
            with np.errstate(all="ignore"):
                results = f(*[a for other in graphs for a in arrays[other]])
            for other, got in zip(graphs, results):
                with np.errstate(all="ignore"):
                    expected = graphs[other][2](*arrays[other])
                _assert_same(got, expected, "exact", f"{other}{tuple(a.tolist() for a in arrays[other])} in {mode}")
