"""sort, argsort, cumsum, cumprod, the products and the graph-built reductions: what the table's examples do
not show. Their errors (type and message), which nodes have C, the TensorVariable methods and `@`, the
gradients of broadcast batch axes and of corrected variance, and the PyTensor/Theano import paths."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.core.tensor.products.matmul import Matmul
from opkit.core.tensor.sorting.cumulative import CumOp
from opkit.core.tensor.sorting.sort import Argsort, Sort, TakeAlongAxis
from opkit.testing import verify_grad

PERFORM = opkit.Mode(linker="py", optimizer=None)


@pytest.mark.parametrize("call, error, words", [
    (lambda x: ot.sort(x, axis=2), np.exceptions.AxisError, "axis 2 is out of bounds"),
    (lambda x: ot.argsort(x, axis=1.0), TypeError, "argsort: axis must be an integer or None"),
    (lambda x: ot.sort(x, kind="bogo"), ValueError, "sort: kind must be one of quicksort"),
    (lambda x: ot.argsort(x, order="f"), ValueError, "order (structured arrays' field names) is not supported"),
    (lambda x: ot.cumsum(x, axis=-3), np.exceptions.AxisError, "axis -3 is out of bounds"),
    (lambda x: ot.var(x, None, True), TypeError, "var: ddof must be an integer"),
    (lambda x: ot.ptp(ot.lt(x, 0)), TypeError, "ptp: a boolean tensor"),
    (lambda x: ot.logsumexp(x, axis=(0, 0)), ValueError, "names an axis twice"),
    (lambda x: ot.matmul(x, ot.dscalar()), ValueError, "matmul: an operand is a scalar"),
    (lambda x: ot.tensordot(x, x, axes=3), ValueError, "tensordot: axes=3 must be between 0"),
    (lambda x: ot.tensordot(x, x, axes=[[0, 1], [0]]), ValueError, "name as many of each"),
    (lambda x: ot.batched_dot(x, ot.dscalar()), TypeError, "batched_dot: b must have at least one (batch) axis"),
    (lambda x: TakeAlongAxis(0)(x, x), TypeError, "take_along_axis: the index must be an int64 tensor"),
    (lambda x: CumOp(0, "max"), ValueError, "CumOp: mode must be 'add' or 'mul'"),
])
def test_bad_arguments_raise_errors_that_name_them(call, error, words):
    with pytest.raises(error) as caught:
        call(ot.dmatrix("x"))
    assert words in str(caught.value)


def test_static_shapes_that_cannot_multiply_raise_at_build():
    a, b = ot.tensor("float64", shape=(2, 3, 4)), ot.tensor("float64", shape=(5, 2))
    with pytest.raises(ValueError, match="matmul: the inner lengths differ"):
        ot.matmul(a, b)
    with pytest.raises(ValueError, match="tensordot: shape mismatch for sum"):
        ot.tensordot(a, b, [[2], [0]])


@pytest.mark.parametrize("dtype, has_c", [("float64", True), ("int8", True), ("bool", True), ("uint64", True),
                                          ("float16", False), ("complex128", False)])
def test_sort_and_scan_nodes_have_c_except_float16_and_complex(dtype, has_c):
    x = ot.tensor(dtype, shape=(None, None))
    for node in (Sort(1).make_node(x), Argsort(0).make_node(x), CumOp(1, "mul").make_node(x),
                 TakeAlongAxis(1).make_node(x, ot.lmatrix())):
        assert op_has_c(node) is has_c, (node.op, dtype)


def test_float16_and_complex_run_numpy_in_perform():
    h, c = ot.tensor("float16", shape=(None,)), ot.tensor("complex128", shape=(None,))
    f = opkit.function([h, c], [ot.sort(h), ot.argsort(c), ot.cumsum(h), ot.cumprod(c)])
    hv = np.array([3, np.nan, -1, 2], dtype="float16")
    cv = np.array([1 + 2j, 1 - 1j, -3j])
    for got, want in zip(f(hv, cv), [np.sort(hv), np.argsort(cv, kind="stable"), np.cumsum(hv), np.cumprod(cv)]):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_tensor_variable_methods_and_the_matmul_operator():
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    a = np.arange(6.0).reshape(2, 3) ** 1.5
    b = np.linspace(-1, 1, 6).reshape(3, 2)
    outputs = [x @ y, b @ x, x.std(0), x.var(1, ddof=1), x.ptp(), x.sort(0), x.argsort(), x.cumsum(), x.cumprod(1),
               x.any(1), x.all(0)]
    got = opkit.function([x, y], outputs, mode=PERFORM)(a, b)
    want = [a @ b, b @ a, a.std(0), a.var(1, ddof=1), np.ptp(a), np.sort(a, 0), np.argsort(a, kind="stable"),
            a.cumsum(), a.cumprod(1), a.any(1), a.all(0)]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_matmul_gradient_sums_over_broadcast_batch_axes():
    rng = np.random.default_rng(1)
    verify_grad(ot.matmul, [rng.standard_normal((2, 1, 3, 4)), rng.standard_normal((5, 4, 2))], rng=rng,
                mode="FAST_COMPILE")
    verify_grad(ot.matmul, [rng.standard_normal(4), rng.standard_normal((2, 4, 3))], rng=rng, mode="FAST_COMPILE")
    x = ot.tensor("float64", shape=(None, None, None))
    node = ot.matmul(x, ot.dmatrix()).owner
    assert isinstance(node.op, Matmul)


def test_corrected_variance_is_numpys_and_differentiable():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 5)) + 1e3
    x = ot.dmatrix("x")
    got = opkit.function([x], [ot.var(x, 0, corrected=True), ot.std(x, None, ddof=1, corrected=True)],
                         mode=PERFORM)(a)
    np.testing.assert_allclose(got[0], a.var(0), rtol=1e-9)
    np.testing.assert_allclose(got[1], a.std(ddof=1), rtol=1e-9)
    verify_grad(lambda v: ot.var(v, 1, ddof=1, corrected=True), [a - 1e3], rng=rng, mode="FAST_COMPILE")


def test_the_sort_gradient_and_take_along_axis_in_c():
    rng = np.random.default_rng(3)
    x, g = ot.dmatrix("x"), ot.dmatrix("g")
    order = ot.argsort(x, axis=0)
    back = ot.grad((ot.sort(x, axis=0) * g).sum(), x)
    f = opkit.function([x, g], [back, TakeAlongAxis(0)(x, order)], mode="FAST_RUN")
    a, gv = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    got_back, got_sorted = f(a, gv)
    want = np.empty_like(a)
    np.put_along_axis(want, np.argsort(a, 0), gv, 0)
    np.testing.assert_array_equal(got_back, want)
    np.testing.assert_array_equal(got_sorted, np.sort(a, 0))


def test_pytensor_and_theano_paths():
    from opkit.compat.pytensor.tensor.extra_ops import cumprod, cumsum
    from opkit.compat.pytensor.tensor.math import logsumexp, matmul, std, tensordot, var
    from opkit.compat.pytensor.tensor.sort import argsort, sort
    from opkit.compat.theano.tensor import batched_dot

    assert (cumsum, cumprod, sort, argsort) == (ot.cumsum, ot.cumprod, ot.sort, ot.argsort)
    assert (std, var, logsumexp, matmul, tensordot, batched_dot) == (ot.std, ot.var, ot.logsumexp, ot.matmul,
                                                                     ot.tensordot, ot.batched_dot)


def test_matmul_shape_inference_broadcasts_a_length_1_batch_axis_to_0():
    x, y = ot.tensor("float64", shape=(None, 3, 4)), ot.tensor("float64", shape=(None, 4, 2))
    f = opkit.function([x, y], ot.matmul(x, y).shape, mode="FAST_RUN")
    np.testing.assert_array_equal(f(np.zeros((0, 3, 4)), np.zeros((1, 4, 2))), [0, 3, 2])
    np.testing.assert_array_equal(f(np.zeros((1, 3, 4)), np.zeros((5, 4, 2))), [5, 3, 2])
