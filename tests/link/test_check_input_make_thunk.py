"""check_input = False (no dtype macros, no input checks) and Op.make_thunk building a C thunk."""

import numpy as np
import pytest
from helpers.trust_ops import copy_and_update_c

import opkit
import opkit.tensor as ot
from opkit import Apply, COp, Op

C_LINKER = opkit.Mode(linker="c", optimizer=None)

# Compiles only where the DTYPE_ macros are absent (check_input = False) or present (True).
SECTIONS = """#section code
#if defined(DTYPE_INPUT_0) != EXPECT_DTYPE_MACROS
#error "DTYPE_INPUT_0 defined where it should not be, or missing"
#endif
Py_XDECREF(OUTPUT_0);
OUTPUT_0 = (PyArrayObject*)PyArray_NewCopy(INPUT_0, NPY_CORDER);
if (!OUTPUT_0) FAIL;
"""


def _copy_op(tmp_path, check_input):
    c_file = tmp_path / f"copy_{int(check_input)}.c"
    c_file.write_text(f"#section support_code\n#define EXPECT_DTYPE_MACROS {int(check_input)}\n{SECTIONS}")

    class Copy(COp):
        __props__ = ()

        def __init__(self):
            super().__init__(str(c_file))

        def make_node(self, x):
            return Apply(self, [x], [x.type()])

    Copy.check_input = check_input
    return Copy()


@pytest.mark.parametrize("check_input", [True, False])
def test_check_input_false_drops_dtype_macros_and_input_checks(tmp_path, check_input):
    x = ot.dvector("x")
    f = opkit.function([x], _copy_op(tmp_path, check_input)(x), mode=C_LINKER)
    f.trust_input = True  # the Python filter would convert the list: only the C checks are left
    np.testing.assert_array_equal(f(np.arange(3.0)), np.arange(3.0))
    if check_input:
        with pytest.raises(TypeError, match="expected a numpy.ndarray, got list"):
            f([1.0, 2.0])
    else:
        np.testing.assert_array_equal(f([1.0, 2.0]), [1.0, 2.0])  # converted, not checked
    with pytest.raises(TypeError, match="expected an array with ndim 1, got ndim 2"):
        f(np.ones((2, 2)))  # what the C code could not read is refused either way


class TwoWays(Op):
    """perform adds 1, C adds 2: which one a thunk ran is visible (real ops must agree)."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] + 1

    def c_code(self, node, name, inputs, outputs, sub):
        return copy_and_update_c(inputs[0], outputs[0], sub["fail"], "v += 2")

    def c_code_cache_version(self):
        return (1,)


def _run_thunk(op, **kwargs):
    x = ot.dvector("x")
    node = op.make_node(x)
    storage = {v: [None] for v in node.inputs + node.outputs}
    computed = {v: [False] for v in node.inputs + node.outputs}
    thunk = op.make_thunk(node, storage, computed, [], **kwargs)
    storage[x][0] = np.zeros(2)
    thunk()
    assert computed[node.outputs[0]][0]
    return storage[node.outputs[0]][0]


def test_make_thunk_builds_a_c_thunk_when_the_op_has_c():
    np.testing.assert_array_equal(_run_thunk(TwoWays()), [2.0, 2.0])
    np.testing.assert_array_equal(_run_thunk(TwoWays(), impl="py"), [1.0, 1.0])


def test_make_thunk_runs_perform_for_an_op_without_c():
    class PerformOnly(TwoWays):
        c_code = Op.c_code

    np.testing.assert_array_equal(_run_thunk(PerformOnly()), [1.0, 1.0])


def test_the_py_linker_still_runs_perform():
    x = ot.dvector("x")
    f = opkit.function([x], TwoWays()(x), mode=opkit.Mode(linker="py"))
    np.testing.assert_array_equal(f(np.zeros(2)), [1.0, 1.0])
