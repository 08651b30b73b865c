"""Theano's scalar/basic_scipy.py (erf..., gamma..., Bessel functions; C from c_code/gamma.c), ported by imports.

Theano's user UnaryScalarOp/BinaryScalarOp subclasses: impl, L_op, statement c_code, c_support_code read
from a .c file, output_types_preference; called on tensors they are Elemwise nodes, fused with opkit's.
"""

import numpy as np
import pytest
import scipy.special as sp
import scipy.stats

import opkit
import opkit.tensor as ot
from ported.checks import rng, run_everywhere, verify_grad_compiled
import ported.theano.basic_scipy as bs

UNARY = [("erf", bs.erf, sp.erf, 3), ("erfc", bs.erfc, sp.erfc, 3), ("erfcx", bs.erfcx, sp.erfcx, 3),
         ("erfinv", bs.erfinv, sp.erfinv, 0.3), ("erfcinv", bs.erfcinv, sp.erfcinv, 0.3),
         ("gamma", bs.gamma, sp.gamma, 3), ("gammaln", bs.gammaln, sp.gammaln, 3), ("psi", bs.psi, sp.psi, 3),
         ("tri_gamma", bs.tri_gamma, lambda v: sp.polygamma(1, v), 3), ("j0", bs.j0, sp.j0, 3),
         ("j1", bs.j1, sp.j1, 3), ("i0", bs.i0, sp.i0, 3), ("i1", bs.i1, sp.i1, 3)]
# k, x: upper/lower incomplete gamma; Theano's upperGamma is a continued fraction, exact for x > k + 1 only
BINARY = [("gammainc", bs.gammainc, sp.gammainc), ("gammaincc", bs.gammaincc, sp.gammaincc),
          ("gammal", bs.gammal, lambda k, x: sp.gammainc(k, x) * sp.gamma(k)),
          ("gammau", bs.gammau, lambda k, x: sp.gammaincc(k, x) * sp.gamma(k)),
          ("jv", bs.jv, sp.jv), ("iv", bs.iv, sp.iv)]
# The ops the default run checks under DebugMode, in float64: one of the error functions, the gamma family and Bessel's,
# a unary and two binary ones (test_theanos_scipy_ops_match_scipy_under_debugmode, soak, runs every one in both dtypes:
# float32's C is float64's statement with another cast)
DEBUGMODE_OPS = ("erf", "gammainc", "jv")


def tolerance(name, dtype):
    if dtype == np.float32:
        return dict(rtol=3e-5, atol=1e-6)
    return dict(rtol=1e-8 if name in ("tri_gamma", "gammau", "gammal", "psi") else 1e-10, atol=1e-12)


# (2, 3): the same ops in 2-d loops, a second set of modules in every mode (soak: `-m soak`); the elementwise loops
# over any ndim are tests/tensor's.
@pytest.mark.parametrize("shape", [(5,), pytest.param((2, 3), marks=pytest.mark.soak), (0,)])
def test_theanos_scipy_ops_match_scipy_in_both_dtypes_and_every_mode(shape):
    inputs, outputs, values, expected, names = [], [], [], [], []
    for dtype in ("float32", "float64"):
        x, k = ot.tensor(dtype, shape=(None,) * len(shape)), ot.tensor(dtype, shape=(None,) * len(shape))
        xv = rng(1).uniform(0.1, 1.0, size=shape).astype(dtype)
        kv = rng(2).uniform(0.5, 2.0, size=shape).astype(dtype)
        inputs += [x, k]
        values += [xv, kv]
        for name, op, ref, scale in UNARY:
            outputs.append(op(x * scale))
            expected.append(ref(xv.astype("float64") * np.float64(scale)))
            names.append(name)
        for name, op, ref in BINARY:
            outputs.append(op(k, x + k + 1))  # x > k + 1
            expected.append(ref(kv.astype("float64"), xv.astype("float64") + kv + 1))
            names.append(name)
    results = run_everywhere(inputs, outputs, values, modes=("FAST_RUN", "FAST_COMPILE"))
    checked = {mode: (got, expected, names) for mode, got in results.items()}
    # DebugMode compiles a module per node: a few ops of each kind in float64 stand for the others, whose C FAST_RUN
    # and whose perform FAST_COMPILE compare with scipy above in both dtypes (soak: every op, both dtypes).
    picked = [k for k, name in enumerate(names) if name in DEBUGMODE_OPS and outputs[k].dtype == "float64"]
    got, = run_everywhere(inputs, [outputs[k] for k in picked], values, modes=("DebugMode",)).values()
    checked["DebugMode"] = (got, [expected[k] for k in picked], [names[k] for k in picked])
    for mode, (got, want_all, names_all) in checked.items():
        for out, want, name in zip(got, want_all, names_all, strict=True):
            np.testing.assert_allclose(out, want, err_msg=f"{mode} {name} {out.dtype}", **tolerance(name, out.dtype))
        if mode == "DebugMode":
            assert len(got) == len(DEBUGMODE_OPS) and {o.dtype for o in got} == {np.dtype("float64")}, mode
            continue
        assert {o.dtype for o in got[:len(got) // 2]} == {np.dtype("float32")}, mode
        assert {o.dtype for o in got[len(got) // 2:]} == {np.dtype("float64")}, mode


@pytest.mark.soak
def test_theanos_scipy_ops_match_scipy_under_debugmode():
    """Every op of UNARY and BINARY under DebugMode (perform against C, a module per node), both dtypes."""
    inputs, outputs, values, expected, names = [], [], [], [], []
    for dtype in ("float32", "float64"):
        x, k = ot.tensor(dtype, shape=(None,)), ot.tensor(dtype, shape=(None,))
        xv = rng(1).uniform(0.1, 1.0, size=5).astype(dtype)
        kv = rng(2).uniform(0.5, 2.0, size=5).astype(dtype)
        inputs += [x, k]
        values += [xv, kv]
        outputs += [op(x * scale) for _, op, _, scale in UNARY] + [op(k, x + k + 1) for _, op, _ in BINARY]
        expected += [ref(xv.astype("float64") * np.float64(scale)) for _, _, ref, scale in UNARY]
        expected += [ref(kv.astype("float64"), xv.astype("float64") + kv + 1) for _, _, ref in BINARY]
        names += [row[0] for row in UNARY + BINARY]
    got, = run_everywhere(inputs, outputs, values, modes=("DebugMode",)).values()
    for out, want, name in zip(got, expected, names, strict=True):
        np.testing.assert_allclose(out, want, err_msg=f"DebugMode {name} {out.dtype}", **tolerance(name, out.dtype))


def test_upper_gamma_of_theanos_c_is_nan_below_k_plus_1():
    """Upstream's C (a continued fraction alone) is NaN where perform (scipy) is not: Theano's, not opkit's."""
    k, x = ot.dvector("k"), ot.dvector("x")
    c = opkit.function([k, x], bs.gammau(k, x), mode="FAST_RUN")(np.array([3.5]), np.array([2.5]))
    assert np.isnan(c[0])


def test_fused_with_opkits_ops_into_one_loop():
    x = ot.dvector("x")
    f = opkit.function([x], ot.exp(-bs.erf(x) * 2) + bs.gammaln(x * x + 1), mode="FAST_RUN")
    nodes = f.maker.fgraph.toposort()
    assert len(nodes) == 1 and "erf" in str(nodes[0].op) and "gammaln" in str(nodes[0].op), nodes
    xv = rng(3).normal(size=6)
    np.testing.assert_allclose(f(xv), np.exp(-sp.erf(xv) * 2) + sp.gammaln(xv * xv + 1), rtol=1e-12)


# One verify_grad a group, an input per op: each input's gradient is its op's alone. The default run checks one of the
# error functions, the gamma family and Bessel's; the others are soak (`-m soak`).
@pytest.mark.parametrize("names", [("erf", "gammaln", "j0"),
                                   pytest.param(("erfc", "erfinv", "gamma", "psi"), marks=pytest.mark.soak)],
                         ids=["erf-gammaln-j0", "erfc-erfinv-gamma-psi"])
def test_gradients_from_their_l_op(names):
    ops = {n: o for n, o, _, _ in UNARY}
    values = [rng(4).uniform(*((-0.9, 0.9) if name == "erfinv" else (0.5, 2.5)), size=(2, 3)) for name in names]
    verify_grad_compiled(lambda *xs: sum(ops[name](x) for name, x in zip(names, xs, strict=True)), values,
                         rng=np.random.RandomState(0))


def test_integer_inputs_are_upgraded_to_float():
    n = ot.lvector("n")
    assert bs.gamma(n).dtype == "float64"
    np.testing.assert_allclose(opkit.function([n], bs.gamma(n))(np.array([1, 4])), [1.0, 6.0])


def test_chi2sf_in_perform():
    x, k = ot.dvector("x"), ot.dvector("k")
    got = opkit.function([x, k], bs.chi2sf(x, k), mode="FAST_COMPILE")(np.array([0.5, 2.0]), np.array([1.0, 3.0]))
    np.testing.assert_allclose(got, scipy.stats.chi2.sf([0.5, 2.0], [1.0, 3.0]))


def test_chi2sf_in_c():
    x, k = ot.dvector("x"), ot.dvector("k")
    got = opkit.function([x, k], bs.chi2sf(x, k), mode="FAST_RUN")(np.array([0.5, 2.0]), np.array([1.0, 3.0]))
    np.testing.assert_allclose(got, scipy.stats.chi2.sf([0.5, 2.0], [1.0, 3.0]), rtol=1e-9)
