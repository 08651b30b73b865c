"""The corpus's collection rules.

- The vendored originals are upstream's files, not tests to collect (their imports name theano/pytensor).
- Upstream's own test files are ported by their import lines like any other file, so a test of theirs that
  fails on an opkit gap cannot carry a marker in its source: it is marked here, strict (it fails the day
  the gap closes, and the line below goes), with the gap named.
"""

import pytest

collect_ignore_glob = ["*/original/*"]

_NO_REWRITE_DB = (
    'machinery opkit lacks: a database of user rewrites (node_rewriter, EquilibriumDB) that '
    "DebugMode(optimizer=...) would run and check; opkit's modes run opkit's own rewrites "
    '(EquilibriumDB.query raises NotImplementedError naming the gap)'
)
_NO_INPLACE = (
    "machinery opkit lacks: in-place rewrites (PyTensor's inplace elemwise). In(mutable=True) and updates "
    'permit overwriting an array, and no opkit rewrite makes an op work in place, so the array is left as it '
    'was'
)
_FLOAT_NARROWING = (
    'difference: with allow_downcast=None (the default) opkit narrows Python floats and lists of floats to a '
    'float32 input (only precision is lost); PyTensor does so only for a Python float into floatX (float64 '
    'here)'
)
_SWAP_COPIES = (
    "difference: opkit copies an update that is (a view of) another shared variable's value, even when that "
    'variable is updated too (a swap); PyTensor hands the arrays over (the values are the same)'
)

UPSTREAM_XFAILS = {
    "pytensor/test_params_type.py::TestParamsType::test_params_type_filtering":
        "difference: values_eq_approx of float64 tensors uses rtol 1e-8 (opkit's, so DebugMode sees a float64 "
        "C/Python mismatch of 1e-7); PyTensor's is 1e-5, and the test compares values rounded through float32",
    "theano/test_params_type.py::TestParamsType::test_params_type_filtering":
        "difference: values_eq_approx of float64 tensors uses rtol 1e-8 (opkit's, so DebugMode sees a float64 "
        "C/Python mismatch of 1e-7); Theano's is 1e-5, and the test compares values rounded through float32",
    "pytensor/test_link_c_basic.py::test_clinker_literal_inlining":
        "difference: opkit hands a graph's constants to its module once, as values, and does not inline them "
        "through CType.c_literal, so the constant's digits are not in the generated source (the function's "
        "result, checked first, is right)",
    "pytensor/test_link_c_basic.py::test_clinker_atomic_inputs[constant-C]":
        "difference: a constant listed among a graph's inputs is an input of opkit's module, read at each call, "
        "so two graphs that differ only in the values of such constants share one module and one key (the reuse "
        "the test's comment anticipates, PyTensor issue 1672); PyTensor keys each value",
    "pytensor/test_link_c_basic.py::test_clinker_atomic_inputs[constant-CVM]":
        "difference: as test_clinker_atomic_inputs[constant-C] (VMLinker is opkit's whole-graph C linker)",
    "pytensor/test_compile_debugmode.py::test_badoptimization":
        _NO_REWRITE_DB,
    "pytensor/test_compile_debugmode.py::test_badoptimization_opt_err":
        _NO_REWRITE_DB,
    "pytensor/test_compile_debugmode.py::test_stochasticoptimization":
        _NO_REWRITE_DB,
    "pytensor/test_gradient.py::test_undefined_grad_opt":
        "machinery opkit lacks: random variables (RandomStream(...).multinomial raises NotImplementedError)",
    "pytensor/test_compile_maker.py::TestFunctionIn::test_in_mutable": _NO_INPLACE,
    "pytensor/test_compile_maker.py::TestFunction::test_shared_mutable": _NO_INPLACE,
    "pytensor/test_compile_maker.py::TestFunctionIn::test_in_allow_downcast_floatX": _FLOAT_NARROWING,
    "pytensor/test_compile_maker.py::TestFunctionIn::test_in_allow_downcast_vector_floatX": _FLOAT_NARROWING,
    "pytensor/test_compile_maker.py::TestFunction::test_allow_downcast_floatX": _FLOAT_NARROWING,
    "pytensor/test_compile_maker.py::TestFunction::test_update_err_broadcast":
        "difference: opkit accepts an update whose static shape says more than the shared variable's (a (1, 1) "
        "matrix is a matrix); PyTensor asks for the same broadcastable pattern",
    "pytensor/test_compile_maker.py::TestFunction::test_default_updates_partial_graph":
        "difference: opkit refuses a computed variable as a function input (TypeError, with the givens that "
        "say the same); PyTensor cuts the graph there",
    "pytensor/test_compile_maker.py::TestAliasingRules::test_sparse_input_aliasing_affecting_inplace_operations":
        "machinery opkit lacks: sparse types (SparseTensorType raises NotImplementedError)",
    "pytensor/test_compile_maker.py::TestAliasingRules::test_no_aliasing_2": _SWAP_COPIES,
    "pytensor/test_compile_maker.py::TestAliasingRules::test_no_aliasing_2b": _SWAP_COPIES,
    "theano/test_gof_cc.py::test_clinker_literal_inlining":
        "difference: as pytensor/test_link_c_basic.py::test_clinker_literal_inlining (constants reach the module "
        "as values, not inlined through c_literal)",
    "theano/test_gof_graph.py::TestAutoName::test_randomvariable":
        "machinery opkit lacks: random streams (tensor.shared_randomstreams)",
}


def pytest_collection_modifyitems(config, items):
    from ported import tensor_marks  # the ported PyTensor tensor tests' xfails and soak marks

    for item in items:
        tensor_marks.mark(item)
        for nodeid, reason in UPSTREAM_XFAILS.items():
            if item.nodeid.endswith("ported/" + nodeid):
                item.add_marker(pytest.mark.xfail(strict=True, reason=reason))


@pytest.fixture(autouse=True)
def _soak_tensor_ports_run_without_compiling(request):
    """The soak half of the ported PyTensor tensor tests (tensor_marks) checks upstream's expectations in
    FAST_COMPILE, unless --opkit-mode says otherwise: about 2 s of g++ a test in FAST_RUN, 450 tests. Their
    default-run half runs FAST_RUN, and tests/tensor/test_language_*.py runs each function's C against numpy."""
    from ported import tensor_marks

    filename = request.node.nodeid.rpartition("ported/")[2].partition("::")[0]
    if (filename not in tensor_marks.DEFAULT_RUN or request.node.get_closest_marker("soak") is None
            or request.config.getoption("--opkit-mode", default=None)):
        yield
        return
    from opkit.config import config

    with config.change_flags(mode="FAST_COMPILE"):
        yield
