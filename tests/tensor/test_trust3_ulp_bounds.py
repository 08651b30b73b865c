"""How far opkit's compiled float functions are from numpy's, in ulps, over the whole float range.

opkit's C code calls libm (glibc) for exp, log, tanh, sin, cos...; numpy runs its own
SIMD loops for some of them, which differ from libm in the last bits. Which loops
numpy runs depends on the CPU (opkit.testing.ulp.numpy_simd): with AVX2 (numpy's
X86_V3 dispatch) float32 exp, log, sin, cos, tanh and float64 tanh; with AVX-512
(X86_V4, SVML) also float64 exp, log, log1p, expm1 and float32 log1p, expm1.

BOUNDS holds, per family, the largest distance seen by
`python benchmarks/ulp_table.py --float32 65536 --float64 4096 --seed 2` (33 million
float32 and 17 million float64 inputs: every exponent, subnormals and the specials
included; a sample, not every float) with numpy 2.4 and glibc 2.36. A CPU numpy names
otherwise (another architecture, an older numpy) is held to UNMEASURED: the exact
functions exact, the others within the largest measured bound plus one.
"""

import numpy as np
import pytest

from opkit.testing.ulp import measure, numpy_simd, ulp_distance, whole_range

# numpy's SIMD family -> function -> (float32 max ulp, float64 max ulp); the correctly rounded ones are 0.
BOUNDS = {
    "AVX2": {
        "exp": (2, 0), "log": (3, 0), "sqrt": (0, 0), "log1p": (0, 0), "expm1": (0, 0), "tanh": (3, 2),
        "sin": (2, 0), "cos": (1, 0), "sigmoid": (3, 0), "softplus": (2, 0),
        "abs": (0, 0), "neg": (0, 0), "sqr": (0, 0), "floor": (0, 0), "ceil": (0, 0), "round": (0, 0),
    },
    "AVX-512": {
        "exp": (2, 1), "log": (3, 1), "sqrt": (0, 0), "log1p": (2, 1), "expm1": (2, 1), "tanh": (3, 2),
        "sin": (2, 0), "cos": (1, 0), "sigmoid": (3, 2), "softplus": (3, 2),
        "abs": (0, 0), "neg": (0, 0), "sqr": (0, 0), "floor": (0, 0), "ceil": (0, 0), "round": (0, 0),
    },
}
EXACT = ("sqrt", "abs", "neg", "sqr", "floor", "ceil", "round")
_LOOSEST = max(bound for table in BOUNDS.values() for pair in table.values() for bound in pair)
UNMEASURED = {name: (0, 0) if name in EXACT else (_LOOSEST + 1, _LOOSEST + 1) for name in BOUNDS["AVX2"]}


def bounds(dtype):
    """Return ({function: max ulp} for `dtype` on this CPU, the SIMD family it was measured on or "unmeasured")."""
    family = numpy_simd(dtype)
    table = BOUNDS.get(family, UNMEASURED)
    column = 0 if dtype == "float32" else 1
    return {name: pair[column] for name, pair in table.items()}, family if family in BOUNDS else "unmeasured"


_MEASURED = {}


def measured(dtype):
    if dtype not in _MEASURED:
        _MEASURED[dtype] = measure(dtype, per_binade=256 if dtype == "float32" else 64, seed=1)
    return _MEASURED[dtype]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_every_unary_float_function_stays_within_its_measured_ulp_bound(dtype):
    table, all_c = measured(dtype)
    assert all_c, f"every {dtype} function should run C code: the bound is about C"
    limits, family = bounds(dtype)
    assert sorted(table) == sorted(limits)
    over = {name: worst for name, (worst, _, _) in table.items() if worst > limits[name]}
    assert not over, (f"{dtype}: {over} ulps from numpy, more than the bounds {limits} measured for numpy's "
                      f"{family} loops (numpy {np.__version__}; another libm? measure with benchmarks/ulp_table.py)")


def test_the_sample_covers_every_exponent_subnormals_and_specials():
    for dtype in ("float32", "float64"):
        values = whole_range(dtype, per_binade=4)
        finite = values[np.isfinite(values)]
        exponents = np.unique(np.frexp(finite[finite != 0])[1])
        info = np.finfo(dtype)
        assert exponents.min() <= info.minexp - info.nmant + 1 and exponents.max() == info.maxexp
        assert np.isnan(values).any() and np.isposinf(values).any() and np.isneginf(values).any()
        assert (np.abs(finite) < info.tiny).sum() > 4 and (finite == info.max).any()
        assert np.signbit(values[values == 0]).any() and not np.signbit(values[values == 0]).all()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ulp_distance_counts_representable_steps(dtype):
    t = np.dtype(dtype).type
    one, tiny, big = t(1), np.nextafter(t(0), t(1)), np.finfo(dtype).max
    cases = [
        (one, np.nextafter(one, t(2)), 1),
        (t(-0.0), t(0.0), 0),
        (tiny, -tiny, 2),
        (t(np.nan), t(np.nan), 0),
        (t(np.inf), t(np.inf), 0),
        (t(np.nan), one, np.inf),
        (t(np.inf), big, np.inf),
        (t(2), t(2) + 2 * np.spacing(t(2)), 2),
        (np.nextafter(big, t(0)), big, 1),
    ]
    for result, expected, distance in cases:
        got = ulp_distance(np.array([result], dtype), np.array([expected], dtype))[0]
        assert got == distance, (dtype, result, expected, got)


def test_ulp_distance_refuses_mixed_or_non_float_dtypes():
    with pytest.raises(TypeError, match="ulp_distance compares two float32 or two float64 arrays, not "
                                        "float32 and float64"):
        ulp_distance(np.zeros(1, np.float32), np.zeros(1))
    with pytest.raises(TypeError, match="not int64 and int64"):
        ulp_distance(np.zeros(1, np.int64), np.zeros(1, np.int64))


def test_numpy_simd_names_the_family_of_numpys_exp_loop():
    opt_func_info = pytest.importorskip("numpy.lib.introspect", reason="numpy < 2.1 cannot say").opt_func_info
    for dtype, signature in (("float32", "ff"), ("float64", "dd")):
        target = opt_func_info(func_name="^exp$")["exp"][signature]["current"]
        family = numpy_simd(dtype)
        assert family in ("AVX-512", "AVX2", target), (dtype, target, family)
        assert (family == "AVX-512") == target.startswith(("X86_V4", "AVX512")), (dtype, target, family)
    assert numpy_simd("int8") == "unknown"  # numpy has no exp loop of its own for integers


def test_a_cpu_without_measured_bounds_keeps_the_exact_functions_exact(monkeypatch):
    monkeypatch.setitem(globals(), "numpy_simd", lambda dtype: "ASIMD")
    limits, family = bounds("float64")
    assert family == "unmeasured"
    assert {name for name, bound in limits.items() if bound == 0} == set(EXACT)
    assert limits["exp"] == limits["tanh"] == 4
