"""Theano's pooling ops (tensor/signal/pool.py: Pool, MaxPoolGrad, AveragePoolGrad), ported by import lines.

OpenMPOp, ParamsType with a bool field, and 300-line c_code generated per ndim and mode.
"""

import itertools

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from ported.checks import MIXED_GRAPH_MODES, assert_matches, rng, run_everywhere, verify_grad_compiled
from ported.theano.pool import AveragePoolGrad, MaxPoolGrad, Pool, pool_2d, pool_3d

MODES = ("max", "sum", "average_inc_pad", "average_exc_pad")


def out_length(n, ws, st, pad, ignore_border):
    v = n + 2 * pad
    if ignore_border:
        return max((v - ws) // st + 1, 0)
    if st >= ws:
        return (v - 1) // st + 1
    return max(0, (v - 1 - ws + st) // st) + 1


def reference(x, ws, ignore_border, stride, pad, mode):
    """Pooling as Theano documents it: zero padding, counted only by average_inc_pad."""
    nd = len(ws)
    img = [x.shape[-nd + i] + 2 * pad[i] for i in range(nd)]
    y = np.zeros(x.shape[:-nd] + tuple(img), dtype=x.dtype)
    y[(Ellipsis,) + tuple(slice(pad[i], img[i] - pad[i]) for i in range(nd))] = x
    outs = [out_length(x.shape[-nd + i], ws[i], stride[i], pad[i], ignore_border) for i in range(nd)]
    z = np.zeros(x.shape[:-nd] + tuple(outs), dtype=x.dtype)
    for r in itertools.product(*(range(o) for o in outs)):
        region = []
        for i, j in enumerate(r):
            start, end = j * stride[i], min(j * stride[i] + ws[i], img[i])
            if mode != "average_inc_pad":
                start, end = max(start, pad[i]), min(end, img[i] - pad[i])
            region.append(slice(start, end))
        block = y[(Ellipsis,) + tuple(region)]
        flat = block.reshape(block.shape[:-nd] + (int(np.prod(block.shape[-nd:])),))
        z[(Ellipsis,) + r] = {"max": np.max, "sum": np.sum}.get(mode, np.mean)(flat, axis=-1)
    return z


SOAK = pytest.mark.soak  # cases whose features the others of their list cover (`-m soak`): a module each
CASES = [  # input shape, ws, ignore_border, stride, pad
    pytest.param((2, 3, 5, 7), (2, 2), True, (2, 2), (0, 0), marks=SOAK),
    ((1, 2, 5, 7), (3, 2), False, (2, 1), (0, 0)),
    ((2, 1, 6, 5), (3, 3), True, (2, 2), (1, 2)),
    ((3, 4, 5), (2, 3), False, (3, 3), (0, 0)),
    ((0, 2, 4, 4), (2, 2), True, (1, 1), (0, 0)),
]


@pytest.mark.parametrize("shape, ws, ignore_border, stride, pad", CASES)
def test_pool_2d_matches_numpy_in_every_mode(shape, ws, ignore_border, stride, pad):
    """Every pooling mode on float32 and float64 in one function (eight Pool nodes, one module),
    in FAST_RUN (C), FAST_COMPILE (perform) and DebugMode."""
    x32, x64 = (ot.tensor(d, shape=(None,) * len(shape)) for d in ("float32", "float64"))
    v64 = rng().normal(size=shape)
    v32 = v64.astype("float32")
    outputs = [pool_2d(x, ws, ignore_border=ignore_border, stride=stride, pad=pad, mode=mode)
               for mode in MODES for x in (x32, x64)]
    results = run_everywhere([x32, x64], outputs, [v32, v64])
    assert_matches(results, [reference(v, ws, ignore_border, stride, pad, mode) for mode in MODES for v in (v32, v64)])
    assert [o.dtype for o in results["FAST_RUN"]] == [np.float32, np.float64] * len(MODES)


@pytest.mark.parametrize("mode", ["max", "average_exc_pad"])
def test_pool_3d_matches_numpy(mode):
    x = ot.dtensor4("x")
    value = rng(1).normal(size=(2, 4, 5, 3))
    y = pool_3d(x, (2, 3, 2), ignore_border=False, stride=(1, 2, 2), mode=mode)
    assert_matches(run_everywhere([x], y, [value]), [reference(value, (2, 3, 2), False, (1, 2, 2), (0, 0, 0), mode)])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pool_eager_compute(dtype):
    value = rng(2).normal(size=(1, 2, 4, 5)).astype(dtype)
    got = Pool(ignore_border=True, mode="max").compute(value, np.array([2, 2]), np.array([2, 2]), np.array([0, 0]))
    np.testing.assert_array_equal(got, reference(value, (2, 2), True, (2, 2), (0, 0), "max"))
    assert got.dtype == dtype


# Each mode, each border rule, padding where Theano allows it (not with average_exc_pad), in one verify_grad a list (an
# input per case, the flattened results concatenated: each input's gradient is its case's alone): max without
# ignore_border and average_inc_pad with padding by default, the other cases under `-m soak`
GRAD_CASES = [("max", False, (1, 2), (0, 0)), ("average_inc_pad", True, (1, 1), (1, 1))]
SOAK_GRAD_CASES = [("max", True, (2, 2), (0, 0)), ("max", True, (1, 1), (1, 1)), ("sum", False, (1, 2), (0, 0)),
                   ("average_exc_pad", True, (2, 2), (0, 0)), ("average_exc_pad", False, (1, 2), (0, 0))]


@pytest.mark.parametrize("cases", [GRAD_CASES, pytest.param(SOAK_GRAD_CASES, marks=SOAK)], ids=["default", "soak"])
def test_pool_gradient_through_max_and_average_pool_grad(cases):
    # distinct values: max pooling's gradient is defined where the maximum is unique
    value = rng(3).permutation(2 * 2 * 5 * 6).reshape(2, 2, 5, 6) / 7.0
    verify_grad_compiled(
        lambda *xs: ot.concatenate([pool_2d(x, (3, 2), ignore_border=ignore_border, stride=stride, pad=pad,
                                            mode=mode).flatten()
                                    for x, (mode, ignore_border, stride, pad) in zip(xs, cases, strict=True)]),
        [value] * len(cases), rng=np.random.RandomState(0))


@pytest.mark.parametrize("grad_op", ["max", "average_inc_pad", "sum"])
def test_pool_grad_ops_agree_in_every_mode(grad_op):
    x, gz = ot.dtensor4("x"), ot.dtensor4("gz")
    ws, st, pad = ot.as_tensor_variable((2, 2)), ot.as_tensor_variable((1, 2)), ot.as_tensor_variable((0, 0))
    value = rng(4).permutation(60).reshape(1, 3, 4, 5) / 3.0
    out = Pool(ignore_border=True, mode="max" if grad_op == "max" else grad_op)(x, ws, st, pad)
    g = (MaxPoolGrad(ignore_border=True)(x, out, gz, ws, st, pad) if grad_op == "max"
         else AveragePoolGrad(ignore_border=True, mode=grad_op)(x, gz, ws, st, pad))
    gz_value = rng(5).normal(size=reference(value, (2, 2), True, (1, 2), (0, 0), "max").shape)
    results = run_everywhere([x, gz], g, [value, gz_value])
    expected = opkit.function([x, gz], opkit.Lop(out, x, gz), mode="FAST_COMPILE")(value, gz_value)
    assert_matches(results, [expected])
    # the same numbers from the reference's own derivative: the sum of gz over the windows each input is in
    if grad_op == "sum":
        want = np.zeros_like(value)
        for i, j in itertools.product(range(gz_value.shape[2]), range(gz_value.shape[3])):
            want[:, :, i:i + 2, 2 * j:2 * j + 2] += gz_value[:, :, i:i + 1, j:j + 1]
        np.testing.assert_allclose(results["FAST_RUN"][0], want)


# The op's own DebugMode runs in the default run in test_pool_2d_matches_numpy_in_every_mode
@MIXED_GRAPH_MODES
def test_pool_twice_both_dtypes_with_opkit_ops_and_its_shape(modes):
    x32, x64 = ot.ftensor4("x32"), ot.dtensor4("x64")
    a = pool_2d(ot.exp(x32), (2, 2), ignore_border=True) * 2
    b = pool_2d(pool_2d(x64, (2, 2), ignore_border=True, mode="sum"), (1, 2), ignore_border=False).sum()
    v32, v64 = rng(6).normal(size=(1, 2, 4, 6)).astype("float32"), rng(7).normal(size=(2, 2, 6, 8))
    results = run_everywhere([x32, x64], [a, b], [v32, v64], modes=modes)
    inner = reference(v64, (2, 2), True, (2, 2), (0, 0), "sum")
    assert_matches(results, [reference(np.exp(v32), (2, 2), True, (2, 2), (0, 0), "max") * 2,
                             reference(inner, (1, 2), False, (1, 2), (0, 0), "max").sum()])
    f = opkit.function([x64], pool_2d(x64, (2, 3), ignore_border=False, stride=(2, 2)).shape)
    assert not any(isinstance(n.op, Pool) for n in f.maker.fgraph.toposort())
    np.testing.assert_array_equal(f(np.zeros((2, 3, 5, 7))), (2, 3, 3, 3))


def test_average_exc_pad_gradient_with_padding_is_refused_as_in_theano():
    x = ot.dtensor4("x")
    g = opkit.grad(pool_2d(x, (3, 2), ignore_border=True, stride=(1, 1), pad=(1, 1), mode="average_exc_pad").sum(), x)
    with pytest.raises(ValueError, match="padding must be zero for average_exc_pad"):  # its C
        opkit.function([x], g, mode="FAST_RUN")(np.ones((1, 1, 4, 4)))
    with pytest.raises(NotImplementedError):  # its perform: a bare NotImplementedError
        opkit.function([x], g, mode="FAST_COMPILE")(np.ones((1, 1, 4, 4)))


def test_pool_user_errors():
    with pytest.raises(ValueError, match="Pool mode parameter only support"):
        Pool(mode="median")
    with pytest.raises(NotImplementedError, match="padding works only with ignore_border=True"):
        pool_2d(ot.dtensor4(), (2, 2), ignore_border=False, pad=(1, 1))
    with pytest.raises(TypeError, match="downsample parameters must be ints"):
        Pool()(ot.dtensor4(), ot.dvector(), ot.lvector(), ot.lvector())


def test_pool_with_openmp_on_gives_the_same_numbers():
    """Pool(openmp=True) emits its `#pragma omp parallel for` over the batch (checked in the C)."""
    x = ot.dtensor4("x")
    value = rng(8).normal(size=(4, 3, 6, 5))
    for op_class_args in ({"mode": "max"}, {"mode": "average_inc_pad"}):
        op = Pool(ignore_border=True, openmp=True, **op_class_args)
        node = op(x, ot.as_tensor_variable((2, 2)), ot.as_tensor_variable((2, 1)), ot.as_tensor_variable((0, 0))).owner
        assert "#pragma omp parallel for" in op.c_code(node, "n", ["x", "ws", "st", "pad"], ["z"],
                                                        {"fail": "FAIL;", "params": "p"})
        results = run_everywhere([x], node.outputs[0], [value], modes=("FAST_RUN",))
        assert_matches(results, [reference(value, (2, 2), True, (2, 1), (0, 0), op_class_args["mode"])])


def test_pool_default_openmp_is_a_bool():
    assert isinstance(Pool().openmp, bool)
    assert isinstance(MaxPoolGrad(ignore_border=True).openmp, bool)
