"""Marks of the ported PyTensor tensor tests (test_pytensor_*.py), applied by conftest.py.

The ported files are upstream's tests with their import lines changed, so a mark cannot live in their source.
XFAIL names the tests that fail on a gap, strict (each fails the day the gap closes, and its line goes),
grouped by reason as PORTING.md explains them. DEFAULT_RUN names, per file, the tests of the default run;
the file's other tests are soak (`-m soak`): the default run's cold-cache budget allows a few compiles a
function, and the soak run compiles the rest.
"""

_SYMBOLIC_AXIS = ("difference: opkit's sort/argsort take the axis as an int or None when the graph is built; "
                  "PyTensor also takes a symbolic integer scalar")
_KIND_PROP = ("difference: opkit's Sort/Argsort ops have the axis as their prop and no `kind` (opkit's sort is "
              "always stable, the kind is checked and ignored)")
_OP_CLASS = "PyTensor internal: the test builds or compares PyTensor's op class ({})"
_INTERNAL = "PyTensor internal: the test uses {} (PyTensor's op class or private helper, not opkit's)"
_NOT_BUILT = "not built yet (issue 48, census_tensor_todo.txt): {}"
_GAP = "gap: {}"
_REWRITE = "machinery opkit lacks: the graph rewrite {} (the test checks the rewritten graph)"
_MESSAGE = "difference: opkit raises the error the test expects, with its own message (the test matches PyTensor's text)"
_TENSOR_SIGNATURE = ("difference: opkit.tensor.tensor is tensor(dtype, shape=None, name=None) (SPEC section 2); the test "
                     "calls PyTensor 3's tensor(name, dtype=..., shape=...)")
_TILE_REPS = "gap: tile's reps as a symbolic vector, a numpy array, or a non-integer (opkit takes ints and integer scalars)"
_UNITTEST_PARAMETRIZE = ("difference: opkit.testing.InferShapeTester is a unittest.TestCase (Theano's), so "
                         "pytest.mark.parametrize does not apply to its methods; PyTensor's is a plain class")
_INT8_FLOAT16 = ("gap: a float function of int8/uint8 gives float16 here (numpy's rule); PyTensor's upgrade_to_float "
                 "gives float32, which the tester expects")

XFAIL = {
    "test_pytensor_sort.py::TestSort::test_invalid_axis_dtype": _SYMBOLIC_AXIS,
    "test_pytensor_sort.py::TestSort::test2": _SYMBOLIC_AXIS,
    "test_pytensor_sort.py::TestSort::test4": _SYMBOLIC_AXIS,
    "test_pytensor_sort.py::test_argsort": _SYMBOLIC_AXIS,
    "test_pytensor_sort.py::test_parse_sort_args": _KIND_PROP,
    "test_pytensor_sort.py::TestSort::test5": _OP_CLASS.format("SortOp"),
    "test_pytensor_sort.py::TestSortInferShape::test_sort": _OP_CLASS.format("SortOp, ArgSortOp"),
    "test_pytensor_math.py::TestNegBroadcast::test_bad_compile":
        _GAP.format("neg of uint8/uint16 compiles (numpy wraps around); PyTensor refuses it"),
    'test_pytensor_special.py::TestSoftmax::test_grad': _UNITTEST_PARAMETRIZE,
    'test_pytensor_special.py::TestSoftmax::test_infer_shape': _INTERNAL.format('Softmax'),
    'test_pytensor_special.py::TestSoftmax::test_perform': _UNITTEST_PARAMETRIZE,
    'test_pytensor_special.py::TestSoftmax::test_valid_axis': _INTERNAL.format('Softmax'),
    'test_pytensor_special.py::TestLogSoftmax::test_matrix_grad': _UNITTEST_PARAMETRIZE,
    'test_pytensor_special.py::TestLogSoftmax::test_valid_axis': _INTERNAL.format('LogSoftmax'),
    'test_pytensor_special.py::test_logaddexp': _GAP.format('logaddexp takes two inputs; PyTensor\'s takes any number'),
    'test_pytensor_special.py::test_xlogy_as_xlogx': _REWRITE.format('xlogy(x, x) -> xlogx(x)'),
    'test_pytensor_special.py::test_xlogy_no_distribute_at_boundary': _TENSOR_SIGNATURE,
    'test_pytensor_special.py::test_xlog1py_no_distribute_at_boundary': _TENSOR_SIGNATURE,
    'test_pytensor_extra_ops.py::TestSqueeze::test_grad': _UNITTEST_PARAMETRIZE,
    'test_pytensor_extra_ops.py::TestSqueeze::test_infer_shape': _UNITTEST_PARAMETRIZE,
    'test_pytensor_extra_ops.py::TestSqueeze::test_op': _UNITTEST_PARAMETRIZE,
    'test_pytensor_extra_ops.py::TestSqueeze::test_scalar_input': _GAP.format('squeeze(x, axis=0) of a 0-d tensor raises AxisError (numpy\'s rule); PyTensor returns x'),
    'test_pytensor_extra_ops.py::TestSqueeze::test_var_interface': _UNITTEST_PARAMETRIZE,
    'test_pytensor_extra_ops.py::TestRepeat::test_basic': _UNITTEST_PARAMETRIZE,
    'test_pytensor_extra_ops.py::TestRepeat::test_grad': _UNITTEST_PARAMETRIZE,
    'test_pytensor_extra_ops.py::TestRepeat::test_infer_shape': _UNITTEST_PARAMETRIZE,
    'test_pytensor_extra_ops.py::TestRepeat::test_static_shape': _GAP.format('repeat with constant repeats does not give the static length of its axis'),
    'test_pytensor_basic.py::TestTriangle::test_tril_triu': _MESSAGE,
    'test_pytensor_basic.py::TestTile::test_tile_separate_reps_entries': _TENSOR_SIGNATURE,
    'test_pytensor_basic.py::TestTile::test_combined_reps_entries[reps1]': _TILE_REPS,
    'test_pytensor_basic.py::TestTile::test_error_unknown_reps_length': _MESSAGE,
    'test_pytensor_basic.py::TestTile::test_error_non_integer_reps': _TILE_REPS,
    'test_pytensor_basic.py::TestTile::test_error_reps_ndim': _TILE_REPS,
    'test_pytensor_basic.py::TestDiag::test_diag_invalid_input_ndim': _MESSAGE,
    'test_pytensor_basic.py::TestAllocDiag::test_alloc_diag_values': _NOT_BUILT.format('alloc_diag'),
    'test_pytensor_basic.py::TestAllocDiag::test_multiple_ops_same_graph': _NOT_BUILT.format('alloc_diag'),
    'test_pytensor_basic.py::test_transpose': _GAP.format('transpose of a vector (or of a scalar) is a DimShuffle node; PyTensor returns the variable itself'),
    'test_pytensor_basic.py::test_matrix_transpose': _MESSAGE,
    'test_pytensor_basic.py::test_full_like[scalar-shape0]': _GAP.format('full_like of a 0-d x is a constant, and opkit.function refuses the unused input x (UnusedInputError)'),
    'test_pytensor_math.py::TestExpBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestExp2Broadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestExpm1Broadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestLogBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestLog2Broadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestLog10Broadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestLog1pBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestSqrtBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestDeg2radBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestRad2degBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestSinBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestArcsinBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestCosBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestArccosBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestTanBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestArctanBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestArctan2Broadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestCoshBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestArccoshBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestSinhBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestArcsinhBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::TestTanhBroadcast::test_good': _INT8_FLOAT16,
    'test_pytensor_math.py::test_isnan': _INTERNAL.format('isnan_'),
    'test_pytensor_math.py::TestClip2::test_complex_value': _GAP.format('clip of complex values does not raise TypeError'),
    'test_pytensor_math.py::TestClip2::test_clip_repeat_verify_grad': 'difference: opkit.testing.verify_grad has no `op` keyword (PyTensor\'s checks the gradient graph\'s ops with it)',
    'test_pytensor_math.py::TestTensordot::test_broadcastable1': _GAP.format('tensordot\'s output does not keep the inputs\' static length-1 axes'),
    'test_pytensor_math.py::TestTensordot::test_broadcastable2': _GAP.format('tensordot\'s output does not keep the inputs\' static length-1 axes'),
    'test_pytensor_math.py::TestTensordot::test_type_shape': _TENSOR_SIGNATURE,
    'test_pytensor_math.py::TestTensordot::test_shape_assert': _INTERNAL.format('Assert'),
    'test_pytensor_math.py::TestTensordot::test_eager_simplification': _REWRITE.format('tensordot of 0-d or vector axes as a plain dot/mul when built'),
    'test_pytensor_math.py::TestMatMul::test_op': _INTERNAL.format('_allclose'),
    'test_pytensor_math.py::TestMatMul::test_scalar_error': _MESSAGE,
    'test_pytensor_math.py::TestMatMul::test_dot22_opt': _INTERNAL.format('Dot22'),
}

DEFAULT_RUN = {
    "test_pytensor_sort.py": ("TestSort::test1", "TestSort::test3", "TestSort::test_None",
                              "TestSort::test_grad_nonnegative_axis_2d"),
    "test_pytensor_special.py": ("test_poch", "test_logit", "test_xlog1py"),
    "test_pytensor_extra_ops.py": ("TestCumOp::test_infer_shape", "test_broadcast_to", "test_linspace_retstep"),
    "test_pytensor_math.py": ("test_ptp", "TestIsInfIsNanIsFinite::test_isinf"),
    "test_pytensor_basic.py": ("TestEye::test_static_output_type", "test_trace", "TestDiag::test_diag"),
}


def _matches(relative, key):
    """Whether a test id matches a key: the id, its parametrized cases, a class's tests, or a pattern with '*'."""
    if "*" in key:
        head, *middle, tail = key.split("*")
        rest = relative[len(head):] if relative.startswith(head) else None
        for part in middle:
            rest = rest[rest.index(part) + len(part):] if rest is not None and part in rest else None
        return rest is not None and rest.endswith(tail)
    return relative == key or relative.startswith((key + "[", key + "::"))


def mark(item):
    """Add this module's marks to a collected test of tests/ported (nothing for a test of another file)."""
    import pytest

    relative = item.nodeid.rpartition("ported/")[2]
    filename = relative.partition("::")[0]
    if filename not in DEFAULT_RUN:
        return
    for key, reason in XFAIL.items():
        if _matches(relative, key):
            item.add_marker(pytest.mark.xfail(strict=True, reason=reason))
    if not any(_matches(relative, f"{filename}::{key}") for key in DEFAULT_RUN[filename]):
        item.add_marker(pytest.mark.soak)
