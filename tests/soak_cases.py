"""The cases of the long sweeps that only `-m soak` runs (.ci/run does); the README's run keeps the rest.

Each entry names a test function (its path under tests/ and its name) and the ids of the cases the
README's `python -m pytest -n auto` keeps, as fnmatch patterns; every other case of it is marked soak.
An empty tuple sends the whole test to soak. What is kept covers each kind the sweep reaches (a float,
a signed and an unsigned integer, bool, complex; each mode; each code path) once: the cases that go
compile the same C templates for another type of the same kind, and .ci/run still runs every one.

tests/docs/test_soak_cases.py fails on an entry whose test or kept case no longer exists, so a renamed
test cannot leave the README's run unnoticed. The figures are each test's seconds on 2 cores (a cold
cache). tests/tensor/test_tensor_elemwise.py has no entry: .ci/run's DebugMode slice runs its default
cases under DebugMode (its own DEFAULT_PAIRS slice them already).
"""

from __future__ import annotations

import fnmatch

import pytest

FAST_COMPILE = "*FAST_COMPILE*"  # FAST_COMPILE runs each op's Python: no compile, always kept

CASES: dict[str, tuple[str, ...]] = {
    # 51 s: a function of every reduction and layout per dtype (float32 runs float64's C templates: soak)
    "tensor/test_reductions.py::test_every_reduction_matches_numpy_on_every_layout":
        ("bool", "int64", "uint8", "float64", "float16", "complex128"),
    # 47 s and 34 s: the empty-array reductions and their gradients
    "tensor/test_trust3_shapes.py::test_reductions_of_empty_arrays_match_numpy":  # h1: max's and argmax's int32 and
        (FAST_COMPILE, "sum-*", "max-float64-*", "argmax-float64-*"),  # bool cases (a module each) are soak
    "tensor/test_trust3_shapes.py::test_gradients_of_reductions_of_empty_arrays":
        (FAST_COMPILE, "sum-*", "max-*"),
    # 24 s: DebugMode checks the same C against perform as FAST_RUN's case runs it
    "tensor/test_trust3_shapes.py::test_the_shape_of_an_op_that_raises_raises_the_same_error":
        ("FAST_RUN", "FAST_COMPILE", "mode2"),
    # 38 s: every reduction and axis of float64 on 1 to 8 threads (test_reduce_fusion keeps the thread sweep)
    "tensor/test_reductions_speed_paths.py::"
    "test_float64_every_reduction_and_axis_matches_numpy_on_any_thread_count": (),
    # 30 s and 21 s
    "tensor/test_reductions_order_free.py::test_integer_reductions_read_in_memory_order_equal_numpy":
        ("int64", "bool"),
    "tensor/test_reductions_order_free.py::test_float_max_and_min_order_zeros_and_give_one_nan_in_every_layout":
        ("float64",),
    # 29 s and 16 s: the fused case runs each op's C inside the fused loop (float64's; float32's is the same C on float)
    "tensor/test_trust4_ties.py::test_every_elementwise_op_matches_numpy_bit_for_bit": ("float64-fused", "*-numpy"),
    "tensor/test_trust4_ties.py::test_eager_compute_matches_numpy_bit_for_bit": ("float64",),
    # 28 s; verify_grad compiles several functions a case in FAST_RUN: set's stays (test_gradient_values compiles
    # inc's and set's gradients, each case's FAST_COMPILE stays)
    "tensor/test_inc_subtensor.py::test_gradients": (FAST_COMPILE, "set-*"),
    # 28 s: verify_grad of every op, FAST_RUN (FAST_COMPILE's case stays)
    "tensor/test_runtime_broadcast_grad.py::"
    "test_verify_grad_of_every_op_with_a_length_one_axis_its_type_does_not_state": ("FAST_COMPILE",),
    "tensor/test_runtime_broadcast_grad.py::test_the_op_against_numpy": ("default-FAST_RUN", FAST_COMPILE),
    "tensor/test_runtime_broadcast_grad.py::test_alloc_fill_and_inc_subtensor_gradients": ("FAST_RUN", "FAST_COMPILE"),
    # 19 s: DebugMode compares the FAST_RUN case's C with perform once more
    "tensor/test_trust3_weak_scalars.py::test_compiled_c_code_gives_numpys_results_for_python_numbers": ("FAST_RUN",),
    "tensor/test_trust3_weak_scalars.py::test_every_binary_op_with_every_python_number_matches_numpy":
        ("bool", "int8", "uint64", "float32", "float64", "complex128"),
    "tensor/test_trust3_weak_scalars.py::test_clip_and_switch_with_every_python_number_match_numpy":
        ("bool", "int8", "uint64", "float64", "complex128"),
    "tensor/test_reduce_fusion.py::test_fused_reductions_match_numpy_with_broadcasting_and_mixed_dtypes":
        ("0-False", "1-True", "9-True"),
    "tensor/test_graph_size.py::test_reductions_of_a_0d_integer_keep_numpys_dtype": ("int64", "bool"),
    "tensor/test_trust5_indices.py::test_constant_slice_bounds_of_any_size_clamp_as_numpy":
        ("FAST_RUN-shape0", FAST_COMPILE),
    "tensor/test_trust5_indices.py::test_every_position_every_edge_value_matches_numpy":
        (FAST_COMPILE, "int8-*", "int64-*", "uint8-*", "uint64-*"),
    "tensor/test_trust5_indices.py::test_drawn_index_values_match_numpy": (FAST_COMPILE, "int64-*", "uint64-*"),
    "tensor/test_trust5_indices.py::test_numpy_reads_every_integer_before_it_checks_any": ("FAST_RUN", "FAST_COMPILE"),
    # h2 (test_trust5_indices.py, test_runtime_broadcast_grad.py): DebugMode checks the same C against perform as
    # the FAST_RUN case runs it (DebugMode stays in test_index_value_op_matches_numpy_in_every_mode and in
    # test_results_that_share_a_gradient_buffer_are_not_aliased)
    "tensor/test_trust5_indices.py::test_a_uint64_constant_variable_is_read_as_numpy_reads_it":
        ("FAST_RUN", "FAST_COMPILE"),
    "tensor/test_runtime_broadcast_grad.py::test_the_reported_case": ("FAST_RUN", "FAST_COMPILE"),
    "tensor/test_runtime_broadcast_grad.py::test_zero_size_outputs": ("FAST_RUN", "FAST_COMPILE"),
    "tensor/test_user_scalar_ops.py::test_ported_ops_match_scipy_alone_and_fused_with_opkit_ops": ("*-float64",),
    "core/test_trust3_api.py::test_grad_wrt_a_python_number_constant":
        ("FAST_RUN-float64", FAST_COMPILE, "DebugMode-float32"),
    "core/test_trust3_api.py::test_eval_on_intermediates_in_every_mode_agrees_with_givens": ("FAST_RUN", "FAST_COMPILE"),
    "core/test_port_gaps.py::test_scalar_unary_operators_and_python_numbers_as_numpy": ("bool", "int64", "float64"),
    "core/test_port_gaps.py::test_scalar_operators_give_numpys_values_and_dtypes":
        ("int8-int8", "bool-bool", "int64-float32", "complex128-float64"),
    "bridge/test_bridge_pytensor_numba.py::test_the_ops_c_runs_from_nopython_code_for_every_dtype_and_layout":
        ("contiguous-*", "reversed-float64", "step 2-*", "empty-*"),
    # hB's block (test_reductions_order_free.py): 13 s, int8's module of 12 reductions (int64's runs the same loops)
    "tensor/test_reductions_order_free.py::test_integer_max_and_min_with_the_extremes_at_any_position": ("int64",),
    # the ported tests: one case of each op family and mode
    "ported/test_ported_blas.py::test_blas_ops_match_numpy": ("FAST_RUN", "FAST_COMPILE"),
    "ported/test_ported_conv.py::test_conv_op_matches_scipy": ("FAST_RUN", "FAST_COMPILE"),
    "ported/test_ported_pool.py::test_pool_2d_matches_numpy_in_every_mode":
        ("shape1-*", "shape2-*", "shape4-*"),
    "ported/test_ported_cumop.py::test_cumop_gradient": ("0-add", "1-mul"),
    "ported/test_ported_corr3d.py::test_corr3d_gradients_through_grad_weights_and_grad_inputs":
        ("valid-sub0", "half-sub1"),
    "ported/test_ported_scalar_math.py::test_gradients_from_their_pullback": ("gammaln",),
    # hC (test_ported_neighbours.py): 6 s; Images2Neibs.grad's neibs2images branch runs in the ignore_borders case,
    # neibs2images' valid mode in test_neibs2images_inverts_images2neibs
    "ported/test_ported_neighbours.py::test_images2neibs_gradient_valid": (),
    # h3 (tests/ported/pytensor/test_gradient.py): 38 s of g++ CPU; upstream's tests of a gradient a kept test
    # checks too: test_grad_cubic and test_grad_grad_cubic take the same ops' gradients on a bigger graph (tests/core's
    # test_dot_grad each dot's), tests/core's test_gradient_extras.py zero_grad's and disconnected_grad's and
    # hessian_vector_product's (with test_multiple_wrt here); square_jac=False keeps the Jacobian of an expression
    "ported/pytensor/test_gradient.py::TestGrad::test_grad_quadratic": (),
    "ported/pytensor/test_gradient.py::TestGrad::test_grad_quadratic_vector": (),
    "ported/pytensor/test_gradient.py::TestGrad::test_grad_grad_quadratic": (),
    "ported/pytensor/test_gradient.py::TestJacobian::test_jacobian_matrix_expression": ("False-*",),
    "ported/pytensor/test_gradient.py::TestZeroGrad::test_grad": (),
    "ported/pytensor/test_gradient.py::TestDisconnectedGrad::test_grad": (),
    "ported/pytensor/test_gradient.py::TestHessianVectorProduct::test_rosen": (),
    # h4 (the same file, 10 s of g++): tests/core/test_gradient.py checks the same rules on the Python linker (the C of
    # their elementwise, dot and alloc nodes is tests/tensor's): test_grad_of_a_reused_variable_adds_the_terms (x * x,
    # test_grad_duplicate_input's), test_disconnected_input_warn_and_ignore (zeros of the input's shape,
    # test_zero_gradient_shape's), test_integer_operand_of_dot_gets_its_real_gradient (test_grad_int's); and
    # tests/core/test_gradient_extras.py's test_gradient_ops_change_only_the_gradient_and_leave_compiled_graphs
    # (grad_clip's and grad_scale's values, and their ops gone from FAST_RUN's graph) and
    # test_jacobian_and_hessian_against_numpy (test_hessian's)
    "ported/pytensor/test_gradient.py::TestGrad::test_grad_duplicate_input": (),
    "ported/pytensor/test_gradient.py::TestGrad::test_zero_gradient_shape": (),
    "ported/pytensor/test_gradient.py::TestGrad::test_grad_int": (),
    "ported/pytensor/test_gradient.py::test_grad_clip": (),
    "ported/pytensor/test_gradient.py::test_grad_scale": (),
    "ported/pytensor/test_gradient.py::test_hessian": (),
    # h4 (tests/ported/pytensor/test_compile_maker.py, 9 s): opkit's own tests of the same behaviours stay:
    # tests/link/test_function_in.py's test_default_updates_follow_their_chain_and_no_default_updates (the chain's
    # values, no_default_updates as a list and True, an explicit update over a default one) and
    # test_default_update_needing_an_input_that_is_not_given; tests/link/test_updates.py's
    # test_givens_replace_variables_and_shared_variables and test_a_counter_over_100_calls (assign, increment), and
    # test_set_value_between_calls_is_seen_by_the_next_call with the kept TestFunction::test_doc (two functions of one
    # shared variable, one updating it) for test_shared
    "ported/pytensor/test_compile_maker.py::TestFunction::test_shared": (),
    "ported/pytensor/test_compile_maker.py::TestFunction::test_default_updates_chained": (),
    "ported/pytensor/test_compile_maker.py::TestFunction::test_default_updates_multiple": (),
    "ported/pytensor/test_compile_maker.py::TestFunction::test_default_updates_input": (),
    "ported/pytensor/test_compile_maker.py::TestFunction::test_givens": (),
    "ported/pytensor/test_compile_maker.py::TestFunction::test_update": (),
    # hA (tests/tensor/test_dtypes.py, test_trust4_ties.py): int8 with int8 and int32 with int16 raise from the same C
    # as int64's and uint8 with int8's; float32's clip is the C of float64's on float
    "tensor/test_dtypes.py::test_integer_to_negative_integer_power_raises_valueerror":
        (FAST_COMPILE, "dtypes0-*", "dtypes2-*"),
    "tensor/test_trust4_ties.py::test_clip_with_number_bounds_keeps_x_on_a_tie": ("*-float64", "numpy-*"),
    # h6 (tensor/test_dot_c.py): dot.c is one C for every dtype, and DebugMode compiles a module per node: float32's
    # four stay (test_every_product_of_vectors_and_matrices_is_numpys_in_every_layout runs every dtype's C, one module)
    "tensor/test_dot_c.py::test_debugmode_finds_c_and_perform_equal_in_every_layout": ("float32",),
}


# (node id, marked soak) of every test this session collected, whole files only (tests/conftest.py fills it)
COLLECTED: list[tuple[str, bool]] = []


def split(nodeid: str) -> tuple[str, str | None]:
    """Return (path under tests/ :: name, the case's id or None) of a test's node id."""
    name, _, case = nodeid.removeprefix("tests/").partition("[")
    return name, (case[:-1] if case else None)


def matches(case: str | None, patterns) -> bool:
    """Whether the case id `case` (None: an unparametrized test) matches one of `patterns`."""
    return any(fnmatch.fnmatchcase(case or "", pattern) for pattern in patterns)


def soak_only(item) -> bool:
    """Whether `item` is a case CASES sends to soak."""
    name, case = split(item.nodeid)
    kept = CASES.get(name)
    return kept is not None and not matches(case, kept)


def part_of(nodeid: str, count: int) -> int:
    """Return which of `count` parts (1 to count) the test case `nodeid` falls in: a hash of its node id, the same
    on every run and machine. Cases, not test functions: one sweep has a third of the soak cases."""
    import hashlib

    return int.from_bytes(hashlib.sha256(nodeid.encode()).digest()[:8], "big") % count + 1


def mark(items) -> None:
    """Mark soak every collected case that CASES leaves out of the README's run."""
    for item in items:
        if soak_only(item):
            item.add_marker(pytest.mark.soak)
