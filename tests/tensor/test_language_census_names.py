"""The last names of the tensor census (issue 48): what the table's rows do not show. TensorVariable's elementwise
methods, clip/round/conj/norm/searchsorted and the constant-value methods; PyTensor's SortOp and ArgSortOp;
slice_at_axis, is_flat, consider_constant, ShapeError; the errors of bad arguments (type and message); the
PyTensor and Theano import paths. The values run in one function (module fixture, FAST_RUN's rewrites on the
Python linker) against numpy."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.tensor.sorting.sort import Argsort, Sort

PERFORM = opkit.Mode(linker="py", optimizer=None)
# FAST_RUN's rewrites on the Python linker: these names are graphs of ops whose C the table's tests compile
PY_FAST_RUN = opkit.Mode(linker="py", optimizer="fast_run")
ELEMENTWISE_METHODS = ("arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "ceil", "cos", "cosh",
                       "deg2rad", "exp", "exp2", "expm1", "floor", "log", "log10", "log1p", "log2", "rad2deg",
                       "sin", "sinh", "sqrt", "tan", "tanh", "trunc")


def test_each_elementwise_method_builds_its_function():
    x = ot.dmatrix("x")
    for name in ELEMENTWISE_METHODS:
        method, function = getattr(x, name)(), getattr(ot, name)(x)
        assert method.owner.op == function.owner.op, name
    assert x.conj().owner.op == ot.conj(x).owner.op and x.conjugate().owner.op == ot.conj(x).owner.op
    assert x.clip(0, 1).owner.op == ot.clip(x, 0, 1).owner.op
    assert x.round().owner.op == ot.round(x).owner.op
    assert x.round("half_away_from_zero").owner.op == ot.round_half_away_from_zero(x).owner.op


A = np.array([[0.5, -1.5, 2.5, 0.25], [3.0, -0.75, 1.5, -2.5], [0.125, 2.0, -3.5, 1.0]])
SORTED = np.array([-2.0, -0.5, 0.0, 1.5, 4.0])


def _cases():
    """(inputs, values, [(output, expected)]) of the module's one compiled function."""
    x, v = ot.dmatrix("x"), ot.dvector("v")
    i = ot.lvector("i")
    iv = np.array([4, 1, 1, 0, 4])
    pairs = [
        (x.exp(), np.exp(A)), (x.tan(), np.tan(A)),
        (ot.switch(ot.gt(x, 0), x, 1).log2(), np.log2(np.where(A > 0, A, 1))),
        (x.clip(-1, 1), np.clip(A, -1, 1)), (x.round(), np.round(A)),
        (x.round("half_away_from_zero"), np.sign(A) * np.floor(np.abs(A) + 0.5)),
        (x.norm(1, axis=0), np.abs(A).sum(0)), (x.norm(2), np.sqrt((A ** 2).sum())),
        (x.norm(3, axis=1, keepdims=True), (np.abs(A) ** 3).sum(1, keepdims=True) ** (1 / 3)),
        (v.searchsorted(x), np.searchsorted(SORTED, A)),
        (v.searchsorted(x, "right"), np.searchsorted(SORTED, A, "right")),
        (ot.SortOp("quicksort")(x, 0), np.sort(A, 0)),
        (ot.ArgSortOp("stable")(x), np.argsort(A, kind="stable")),
        (x[ot.slice_at_axis(slice(None, 2), 1)], A[:, :2]), (x[ot.slice_at_axis(slice(1, None), 0)], A[1:]),
        (ot.bincount(i, assert_nonneg=True), np.bincount(iv)),
        (ot.identity(x), A), (ot.consider_constant(x), A),
        (opkit.grad((ot.consider_constant(x) * x).sum(), x), A),  # d(c * x)/dx with c held constant: c
    ]
    return [x, v, i], [A, SORTED, iv], pairs


@pytest.fixture(scope="module")
def results():
    inputs, values, pairs = _cases()
    function = opkit.function(inputs, [out for out, _ in pairs], mode=PY_FAST_RUN, on_unused_input="ignore")
    return list(zip(function(*values), [want for _, want in pairs]))


def test_the_values_are_numpys(results):
    for index, (got, want) in enumerate(results):
        want = np.asarray(want)
        assert got.shape == want.shape, index
        if want.dtype.kind in "iub":
            assert got.dtype == want.dtype, index
            np.testing.assert_array_equal(got, want, err_msg=str(index))
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=str(index))


def test_sort_op_and_arg_sort_op_build_opkits_nodes():
    x = ot.dmatrix("x")
    assert isinstance(ot.SortOp("stable")(x, 0).owner.op, Sort)
    assert ot.ArgSortOp("quicksort")(x, ot.constant(-1)).owner.op == Argsort(1)
    assert ot.SortOp() == ot.SortOp("quicksort") != ot.SortOp("stable")


def test_constant_value_methods():
    from opkit.core.tensor.types.constant_value import NotScalarConstantError

    c = ot.constant(3.0) * 2
    assert c.get_scalar_constant_value() == 6.0 and c.get_underlying_scalar_constant() == 6.0
    with pytest.raises(NotScalarConstantError):
        ot.dscalar("s").get_scalar_constant_value()


def test_small_helpers():
    x = ot.dmatrix("x")
    assert ot.is_flat(x, 2) is True and ot.is_flat(x) is False
    assert ot.slice_at_axis(slice(None, 1), 2) == (slice(None), slice(None), slice(None, 1), Ellipsis)
    assert issubclass(ot.ShapeError, Exception)
    assert ot.extract_diag(x).owner.op == ot.diagonal(x).owner.op


def test_identity_is_a_copy_with_the_gradient_passing_through():
    x = ot.dvector("x")
    f = opkit.function([x], [ot.identity(x), opkit.grad(ot.identity(x).sum(), x)], mode=PERFORM)
    value = np.arange(3.0)
    copied, gradient = f(value)
    assert not np.shares_memory(copied, value)
    np.testing.assert_array_equal(gradient, np.ones(3))


@pytest.mark.parametrize("assert_nonneg", [True, False])
@pytest.mark.parametrize("dtype", ["int8", "int64"])
def test_bincount_of_a_negative_value_raises_numpys_error_when_run(assert_nonneg, dtype):
    # never a count at an index from the end (PyTensor's default wraps): numpy's error, flag or not
    i = ot.vector("i", dtype=dtype)
    f = opkit.function([i], ot.bincount(i, assert_nonneg=assert_nonneg), mode=PERFORM)
    with pytest.raises(ValueError, match="'list' argument must have no negative elements"):
        f(np.array([1, -2], dtype=dtype))
    np.testing.assert_array_equal(f(np.array([1, 3], dtype=dtype)), np.bincount([1, 3]))


def test_unique_gives_pytensors_outputs():
    x = ot.dmatrix("x")
    outs = ot.unique(x, return_index=True, return_inverse=True, return_counts=True)
    assert len(outs) == 4 and [o.dtype for o in outs] == ["float64", "int64", "int64", "int64"]
    assert [o.ndim for o in outs] == [1, 1, 1, 1]
    assert ot.unique(x, axis=-1).ndim == 2
    assert isinstance(ot.unique(x).owner.op, ot.Unique)


@pytest.mark.parametrize("call, error, words", [
    (lambda x: ot.bincount(x), TypeError, "bincount: x must be a vector (1-d)"),
    (lambda x: ot.bincount(x[0]), TypeError, "bincount: x must be integers (or bool)"),
    (lambda x: ot.bincount(ot.lvector(), minlength=-1), ValueError, "'minlength' must not be negative"),
    (lambda x: ot.searchsorted(x, 1.0), ValueError, "searchsorted: x must be a vector (1-d)"),
    (lambda x: ot.searchsorted(x[0], 1.0, side="middle"), ValueError, "'middle' is an invalid value"),
    (lambda x: ot.searchsorted(x[0], 1.0, sorter=x[0]), TypeError, "searchsorted: sorter must be integers"),
    (lambda x: ot.unique(x, axis=2), np.exceptions.AxisError, "axis 2 is out of bounds"),
    (lambda x: ot.median(x, axis=1.5), TypeError, "median: axis must be None, an integer"),
    (lambda x: ot.permute_row_elements(x, x), TypeError, "permute_row_elements: y (the permutations) must be "
                                                         "integers"),
    (lambda x: ot.inverse_permutation(x), TypeError, "inverse_permutation: perm must be integers"),
    (lambda x: ot.inverse_permutation(ot.lscalar()), ValueError, "perm must have at least one axis"),
    (lambda x: ot.SortOp("bogo"), ValueError, "kind must be one of"),
    (lambda x: ot.SortOp()(x, 1.0), TypeError, "SortOp: axis must be an integer"),
    (lambda x: ot.ArgSortOp()(x, 2), np.exceptions.AxisError, "axis 2 is out of bounds"),
    (lambda x: ot.diff(x, n=1.0), TypeError, "diff: n must be an integer"),
    (lambda x: ot.diff(x, n=-1), ValueError, "diff: order must be non-negative"),
    (lambda x: ot.diff(x[0, 0]), ValueError, "diff requires input that is at least one dimensional"),
    (lambda x: ot.diff(x, axis=2), np.exceptions.AxisError, "axis 2 is out of bounds"),
    (lambda x: ot.slice_at_axis(1, 0), TypeError, "slice_at_axis: sl must be a slice"),
    (lambda x: ot.slice_at_axis(slice(None), -1), ValueError, "axis must be non-negative"),
    (lambda x: ot.concat_with_broadcast([]), ValueError, "Cannot concatenate an empty list"),
    (lambda x: ot.concat_with_broadcast([x, x[0]]), TypeError, "same number of dimensions"),
    (lambda x: ot.geomspace(1, 10, base=1.0), ValueError, "geomspace: base must be positive and not 1"),
    (lambda x: ot.is_flat(x, 1.5), TypeError, "is_flat: ndim must be an integer"),
    (lambda x: ot.vecdot(x, ot.dscalar()), ValueError, "vecdot: x2 must have at least 1 dimension"),
    (lambda x: ot.matvec(x[0], x[0]), ValueError, "matvec: x1 (the matrix) must have at least 2 dimensions"),
    (lambda x: ot.vecmat(x, x[0]), ValueError, "vecmat: x2 (the matrix) must have at least 2 dimensions"),
    (lambda x: ot.cov(x, fweights=x[0]), NotImplementedError, "fweights are not implemented"),
    (lambda x: ot.cov(x, ddof=1.5), TypeError, "cov: ddof must be an integer"),
    (lambda x: ot.cov(ot.dtensor3()), ValueError, "m has more than 2 dimensions"),
    (lambda x: ot.batched_tensordot(x[0], x), TypeError, "batched_tensordot: x and y need a batch axis"),
    (lambda x: ot.batched_tensordot(x, x, axes=2), ValueError, "batched_tensordot: axes=2 must be between 0"),
    (lambda x: ot.batched_tensordot(x, x, axes=[[0], [0]]), ValueError, "name the batch axis 0"),
    (lambda x: x.norm(0), NotImplementedError, "norm: L=0 is not implemented"),
    (lambda x: x.norm(np.inf), NotImplementedError, "is not implemented"),
    (lambda x: x.norm("fro"), TypeError, "norm: L must be a number"),
    (lambda x: x.round("up"), ValueError, "round: mode must be 'half_to_even' or 'half_away_from_zero'"),
])
def test_bad_arguments_raise_errors_that_name_them(call, error, words):
    with pytest.raises(error) as caught:
        call(ot.dmatrix("x"))
    assert words in str(caught.value)


def test_the_names_at_pytensors_and_theanos_paths():
    import opkit.compat.pytensor.tensor as pt
    import opkit.compat.pytensor.tensor.extra_ops as pt_extra
    import opkit.compat.pytensor.tensor.math as pt_math
    import importlib

    import opkit.compat.pytensor.tensor.subtensor as pt_subtensor
    import opkit.compat.theano.tensor as tt

    # `import opkit.compat.pytensor.tensor.sort as s` would give pt.sort, the function
    pt_sort = importlib.import_module("opkit.compat.pytensor.tensor.sort")
    assert pt_subtensor.take is ot.take and pt_subtensor.slice_at_axis is ot.slice_at_axis
    assert pt_sort.SortOp is ot.SortOp and pt_sort.ArgSortOp is ot.ArgSortOp
    assert pt_extra.searchsorted is pt.searchsorted is ot.searchsorted and pt_extra.unique is ot.unique
    assert pt_extra.geomspace is ot.geomspace and pt_extra.concat_with_broadcast is ot.concat_with_broadcast
    assert pt_math.median is ot.median and pt_math.cov is ot.cov and pt_math.vecdot is ot.vecdot
    assert tt.batched_tensordot is ot.batched_tensordot and tt.ShapeError is ot.ShapeError
    assert tt.consider_constant is ot.consider_constant and tt.permute_row_elements is ot.permute_row_elements
