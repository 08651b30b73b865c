"""Theano's softmax family and ScalarSoftsign (tensor/nnet/nnet.py), ported by their import lines.

Softmax, LogSoftmax, SoftmaxWithBias, SoftmaxGrad: hand-written row loops in c_code templates.
ScalarSoftsign: a user UnaryScalarOp (impl, statement c_code, grad, upgrade_to_float) in an Elemwise,
fused with opkit's own elementwise ops into one loop.
"""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from ported.checks import MIXED_GRAPH_MODES, assert_matches, rng, run_everywhere, verify_grad_compiled
from ported.theano.nnet import (LogSoftmax, Softmax, SoftmaxGrad, SoftmaxWithBias, logsoftmax, softmax, softmax_grad,
                                softmax_with_bias, softsign)


def np_softmax(v):
    if v.size == 0:
        return v.copy()
    e = np.exp(v - v.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def np_softsign(v):
    return v / (1 + np.abs(v))


SHAPES = [(3, 5), (1, 7), (4, 1), (0, 3)]


@pytest.mark.parametrize("shape", SHAPES)
def test_softmax_family_matches_numpy_in_every_mode(shape):
    """Softmax, LogSoftmax, SoftmaxWithBias, SoftmaxGrad on float32 and float64 in one function."""
    outputs, expected, inputs, values = [], [], [], []
    for dtype in ("float32", "float64"):
        x, b, dy = ot.matrix(dtype=dtype), ot.vector(dtype=dtype), ot.matrix(dtype=dtype)
        v = rng().normal(size=shape).astype(dtype) * 3
        bv = rng(1).normal(size=shape[1:]).astype(dtype)
        dyv = rng(2).normal(size=shape).astype(dtype)
        sm = np_softmax(v)
        outputs += [softmax(x), logsoftmax(x), softmax_with_bias(x, b), softmax_grad(dy, softmax(x))]
        expected += [sm, np.log(sm) if v.size else sm, np_softmax(v + bv),
                     (dyv - (dyv * sm).sum(axis=1, keepdims=True)) * sm]
        inputs += [x, b, dy]
        values += [v, bv, dyv]
    results = run_everywhere(inputs, outputs, values)
    assert_matches(results, expected)
    assert [o.dtype for o in results["FAST_RUN"]] == [np.float32] * 4 + [np.float64] * 4


def test_softmax_of_empty_rows_in_c_and_upstreams_perform():
    """Rows of length 0: the C loops give an empty result; Theano's perform takes x.max(axis=1), which
    numpy refuses on an empty axis (upstream's behaviour, the same in Theano)."""
    x = ot.dmatrix("x")
    value = np.zeros((2, 0))
    assert opkit.function([x], softmax(x), mode="FAST_RUN")(value).shape == (2, 0)
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        opkit.function([x], softmax(x), mode="FAST_COMPILE")(value)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_eager_compute(dtype):
    v = rng(3).normal(size=(2, 5)).astype(dtype)
    for op, want in ((Softmax(), np_softmax(v)), (LogSoftmax(), np.log(np_softmax(v)))):
        got = op.compute(v)
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(SoftmaxWithBias().compute(v, v[0]), np_softmax(v + v[0]), rtol=1e-5)


# One verify_grad a group, an input per op (each input's gradient is its op's alone): Softmax and LogSoftmax by
# default, SoftmaxWithBias under `-m soak`
@pytest.mark.parametrize("functions", [(softmax, logsoftmax),
                                       pytest.param((lambda x: softmax_with_bias(x, x[0] * 2),),
                                                    marks=pytest.mark.soak)],
                         ids=["softmax-logsoftmax", "softmax_with_bias"])
def test_softmax_gradients(functions):
    verify_grad_compiled(lambda *xs: sum(function(x) for function, x in zip(functions, xs, strict=True)),
                         [rng(4 + k).normal(size=(3, 4)) for k in range(len(functions))],
                         rng=np.random.RandomState(0))


def test_softmax_grad_op_gradient():
    sm = np_softmax(rng(5).normal(size=(2, 4)))
    verify_grad_compiled(lambda dy, s: SoftmaxGrad()(dy, s), [rng(6).normal(size=(2, 4)), sm],
                         rng=np.random.RandomState(0))


# The op's own DebugMode runs in the default run in test_softmax_family_matches_numpy_in_every_mode
@MIXED_GRAPH_MODES
def test_softmax_twice_both_dtypes_with_opkit_ops(modes):
    x32, x64 = ot.fmatrix("x32"), ot.dmatrix("x64")
    a = softmax(ot.exp(x32) * 2).sum(axis=1)
    b = logsoftmax(softmax(x64) + x64) - ot.sqrt(x64 * x64)
    v32, v64 = rng(7).normal(size=(3, 4)).astype("float32"), rng(8).normal(size=(2, 6))
    results = run_everywhere([x32, x64], [a, b], [v32, v64], modes=modes)
    assert_matches(results, [np_softmax(np.exp(v32) * 2).sum(axis=1),
                             np.log(np_softmax(np_softmax(v64) + v64)) - np.abs(v64)])


def test_softmax_user_errors():
    with pytest.raises(ValueError, match="x must be 1-d or 2-d tensor of floats"):
        softmax(ot.lmatrix())
    with pytest.raises(ValueError, match="b must be 1-d tensor of floats"):
        softmax_with_bias(ot.dmatrix(), ot.dmatrix())


# ---- ScalarSoftsign: a user scalar op ----

@pytest.mark.parametrize("shape", [(3, 5), (1, 1), (0, 4)])
def test_softsign_matches_numpy_fused_with_opkits_ops(shape):
    x32, x64 = ot.fmatrix("x32"), ot.dmatrix("x64")
    v64 = rng(9).normal(size=shape) * 4
    v32 = v64.astype("float32")
    outputs = [ot.exp(softsign(x32) * 2) + 1, softsign(x64) + softsign(x64 * 3), softsign(softsign(x64))]
    results = run_everywhere([x32, x64], outputs, [v32, v64])
    assert_matches(results, [np.exp(np_softsign(v32) * 2) + 1, np_softsign(v64) + np_softsign(v64 * 3),
                             np_softsign(np_softsign(v64))])
    assert [o.dtype for o in results["FAST_RUN"]] == [np.float32, np.float64, np.float64]


def test_softsign_is_fused_into_one_loop_with_opkits_ops():
    x = ot.dmatrix("x")
    f = opkit.function([x], ot.exp(softsign(x) * 2) + 1, mode="FAST_RUN")
    nodes = f.maker.fgraph.toposort()
    assert len(nodes) == 1 and "scalar_softsign" in str(nodes[0].op), [str(n.op) for n in nodes]


def test_softsign_upgrades_integers_to_float():
    x = ot.lvector("x")
    y = softsign(x)
    assert y.dtype == "float64"
    np.testing.assert_allclose(opkit.function([x], y)(np.array([-3, 0, 4])), np_softsign(np.array([-3.0, 0, 4])))


def test_softsign_gradient_comes_from_its_scalar_grad():
    verify_grad_compiled(softsign, [rng(10).normal(size=(3, 4))], rng=np.random.RandomState(0))
    x = ot.dvector("x")
    g = opkit.function([x], opkit.grad(softsign(x).sum(), x))(np.array([1.0, -2.0, 0.0]))
    np.testing.assert_allclose(g, 1 / (1 + np.abs([1.0, -2.0, 0.0])) ** 2)


def test_softsign_eager_compute():
    v = rng(11).normal(size=(2, 3)).astype("float32")
    got = softsign.compute(v)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np_softsign(v), rtol=1e-6)
