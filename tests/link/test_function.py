"""opkit.function: argument checking, input filtering, outputs, aliasing and modes."""

import re
import sys
import warnings

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.builtin_ops import DeepCopyOp, view_op


class RecordInputs(opkit.Op):
    """Return its input unchanged (a copy) and remember what perform received."""

    __props__ = ()

    def __init__(self):
        self.received = []

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        self.received.append(inputs[0])
        output_storage[0][0] = np.array(inputs[0], dtype=node.outputs[0].dtype)


@pytest.fixture
def f_xn():
    """A function of a float32 matrix 'x' and an int32 vector 'n'."""
    x, n = ot.fmatrix("x"), ot.ivector("n")
    return opkit.function([x, n], x.sum() + n.sum())


GOOD_X = np.ones((2, 2), dtype="float32")
GOOD_N = np.ones(2, dtype="int32")


# -- bad input: TypeError naming the argument, the expected and the received type ---------------

@pytest.mark.parametrize("x,n,argument,expected,received", [
    pytest.param(np.ones(3, dtype="float32"), GOOD_N, "'x' (position 0)", "ndim 2",
                 "ndarray with ndim 1, dtype float32, shape (3,) (wrong number of dimensions)", id="wrong-ndim"),
    pytest.param(GOOD_X, np.ones((2, 2), dtype="int32"), "'n' (position 1)", "ndim 1",
                 "ndarray with ndim 2", id="wrong-ndim-second"),
    pytest.param(np.ones((2, 2)), GOOD_N, "'x' (position 0)", "dtype float32",
                 "dtype float64, shape (2, 2): casting float64 to float32 would lose information",
                 id="float64-into-float32"),
    pytest.param(GOOD_X, np.ones(2, dtype="int64"), "'n' (position 1)", "dtype int32",
                 "dtype int64, shape (2,): casting int64 to int32 would lose information", id="int64-into-int32"),
    pytest.param(GOOD_X, np.ones(2, dtype="float32"), "'n' (position 1)", "dtype int32",
                 "casting float32 to int32 would lose information", id="float-array-into-int"),
    pytest.param(GOOD_X, [1.5, 2.0], "'n' (position 1)", "dtype int32",
                 "list [1.5, 2.0]: casting float64 to int32 would lose information", id="fraction-into-int"),
    pytest.param("abc", GOOD_N, "'x' (position 0)", "dtype float32", "str 'abc' (not numeric)",
                 id="string"),
    pytest.param(GOOD_X, ["1", "2"], "'n' (position 1)", "dtype int32", "list ['1', '2'] (not numeric)",
                 id="list-of-strings"),
    pytest.param(None, GOOD_N, "'x' (position 0)", "dtype float32", "got None", id="none"),
    pytest.param(GOOD_X, None, "'n' (position 1)", "dtype int32", "got None", id="none-second"),
])
def test_bad_input_raises_type_error_naming_the_argument(f_xn, x, n, argument, expected, received):
    with pytest.raises(TypeError) as excinfo:
        f_xn(x, n)
    message = str(excinfo.value)
    assert message.startswith(f"bad argument {argument} to compiled function: expected ")
    assert expected in message
    assert received in message


def test_the_dtype_hint_says_how_to_convert(f_xn):
    with pytest.raises(TypeError, match=re.escape("numpy.asarray(value, dtype='float32')")):
        f_xn(np.ones((2, 2)), GOOD_N)


def test_an_unnamed_input_is_named_by_position():
    v = ot.fvector()
    f = opkit.function([v], v * 2)
    with pytest.raises(TypeError, match=r"^bad argument at position 0 to compiled function: expected "
                                        r"TensorType\(float32, vector\) \(ndim 1, dtype float32\), got None"):
        f(None)


def test_a_named_function_is_named_in_errors():
    x = ot.dvector("x")
    f = opkit.function([x], x * 2, name="double_it")
    with pytest.raises(TypeError, match="^bad argument 'x' \\(position 0\\) to function 'double_it': "):
        f([[1.0]])


@pytest.mark.parametrize("x,n", [
    ([[1, 2], [3, 4]], [1, 2]),                                   # Python ints: exact
    ([[1.5, 2], [3, 4]], [1, 2]),                                 # Python floats narrow to float32
    (np.ones((2, 2), dtype="int8"), np.ones(2, dtype="int16")),   # safe casts
    (np.ones((2, 2), dtype="float16"), np.ones(2, dtype="uint8")),
])
def test_safe_or_exact_values_are_converted(f_xn, x, n):
    assert f_xn(x, n) == pytest.approx(np.sum(np.asarray(x, dtype="float32")) + np.sum(n))


# -- calling conventions ------------------------------------------------------------------------

def test_keyword_arguments(f_xn):
    assert f_xn(x=GOOD_X, n=GOOD_N) == 6.0
    assert f_xn(GOOD_X, n=GOOD_N) == 6.0
    assert f_xn(n=GOOD_N, x=GOOD_X) == 6.0


@pytest.mark.parametrize("args,kwargs,message", [
    ((GOOD_X, GOOD_N, GOOD_N), {}, "compiled function takes 2 arguments (x, n), got 3"),
    ((GOOD_X,), {}, "compiled function is missing 'n' (position 1); inputs: x, n"),
    ((), {}, "compiled function is missing 'x' (position 0), 'n' (position 1); inputs: x, n"),
    ((GOOD_X,), {"n": GOOD_N, "m": 1}, "compiled function has no input named 'm'; inputs: x, n"),
    ((GOOD_X,), {"x": GOOD_X}, "compiled function got input 'x' twice"),
])
def test_wrong_number_or_names_of_arguments(f_xn, args, kwargs, message):
    with pytest.raises(TypeError) as excinfo:
        f_xn(*args, **kwargs)
    assert str(excinfo.value) == message


def test_trust_input_skips_filtering():
    op = RecordInputs()
    x = ot.dvector("x")
    f = opkit.function([x], op(x))
    f([1, 2])
    assert isinstance(op.received[-1], np.ndarray) and op.received[-1].dtype == np.float64
    f.trust_input = True
    raw = [1, 2]
    np.testing.assert_array_equal(f(raw), [1.0, 2.0])
    assert op.received[-1] is raw
    f(np.ones(2, dtype="float32"))  # no dtype check either
    assert op.received[-1].dtype == np.float32


# -- checking the graph at compile time ---------------------------------------------------------

def test_on_unused_input_raise_is_the_default():
    x, y = ot.dvector("x"), ot.dvector("y")
    with pytest.raises(ValueError) as excinfo:
        opkit.function([x, y], x * 2)
    assert str(excinfo.value) == ("function: input y (position 1) is not used to compute the outputs.\n"
                                  "Hint: pass on_unused_input='warn' or 'ignore' to allow it.")


def test_on_unused_input_warn_and_ignore():
    x, y = ot.dvector("x"), ot.dvector("y")
    with pytest.warns(UserWarning, match=r"^function 'f': input y \(position 1\) is not used"):
        f = opkit.function([x, y], x * 2, name="f", on_unused_input="warn")
    np.testing.assert_array_equal(f([1.0], [5.0]), [2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = opkit.function([x, y], x * 2, on_unused_input="ignore")
    np.testing.assert_array_equal(g([1.0], [0.0]), [2.0])
    with pytest.raises(TypeError, match=r"^bad argument 'y' \(position 1\)"):
        g([1.0], None)  # an unused input is still checked


def test_on_unused_input_rejects_other_values():
    x = ot.dvector("x")
    with pytest.raises(ValueError, match="on_unused_input must be 'raise', 'warn' or 'ignore', not 'skip'"):
        opkit.function([x], x, on_unused_input="skip")


def test_a_missing_input_is_named():
    x, y = ot.dvector("x"), ot.dvector("why")
    with pytest.raises(ValueError) as excinfo:
        opkit.function([x], x + y)
    assert str(excinfo.value) == ("function: the outputs depend on why, which is not among the inputs.\n"
                                  "Hint: add it to the inputs list.")


@pytest.mark.parametrize("make_inputs,message", [
    (lambda x: x, "function inputs must be a list of Variables, e.g. function([x], y)"),
    (lambda x: [x, 3], "input 1 is 3, not an opkit Variable"),
    (lambda x: [x, x], "input 1 (x) is used twice in inputs (also at position 0): each variable may appear once "
                       "among the function's inputs"),
    (lambda x: [x * 2], "input 0 (mul.out) is computed by mul; function inputs must be free variables.\nHint: "
                        "to set its value, make a new variable of its type (v = mul.out.type()), list v among the "
                        "inputs and pass givens={mul.out: v}."),
    (lambda x: [ot.constant(1.0)], "input 0 (1.0) is a Constant; constants cannot be function inputs"),
])
def test_bad_inputs_list(make_inputs, message):
    x = ot.dvector("x")
    with pytest.raises((TypeError, ValueError)) as excinfo:
        opkit.function(make_inputs(x), x, on_unused_input="ignore")
    assert str(excinfo.value) == message


def test_outputs_must_be_variables():
    x = ot.dvector("x")
    with pytest.raises(TypeError, match=r"^output 1 of function 'g' is 2, not an opkit Variable$"):
        opkit.function([x], [x, 2], name="g")


# -- outputs ------------------------------------------------------------------------------------

def test_a_single_output_is_returned_bare_and_a_list_as_a_list():
    x = ot.dvector("x")
    bare = opkit.function([x], x * 2)([1.0])
    assert isinstance(bare, np.ndarray)
    listed = opkit.function([x], [x * 2])([1.0])
    assert isinstance(listed, list) and len(listed) == 1
    pair = opkit.function([x], (x * 2, x + 1))([1.0])
    assert isinstance(pair, list) and [float(v[0]) for v in pair] == [2.0, 2.0]


def test_an_output_that_is_an_input_is_a_copy():
    x = ot.dvector("x")
    f = opkit.function([x], x)
    a = np.arange(3.0)
    result = f(a)
    np.testing.assert_array_equal(result, a)
    assert result is not a and not np.shares_memory(result, a)
    result[:] = -1
    np.testing.assert_array_equal(a, [0.0, 1.0, 2.0])
    assert any(isinstance(node.op, DeepCopyOp) for node in f.maker.fgraph.toposort())


def test_an_output_that_views_an_input_is_a_copy():
    x = ot.dvector("x")
    a = np.arange(3.0)
    result = opkit.function([x], view_op(x))(a)
    assert not np.shares_memory(result, a)


def test_modifying_an_output_does_not_change_the_next_call():
    x = ot.dvector("x")
    for outputs in (x * 2, ot.constant([1.0, 2.0, 3.0]) + 0 * x, x.shape):
        f = opkit.function([x], outputs)
        a = np.arange(3.0)
        first = f(a)
        expected = first.copy()
        first[...] = 99
        np.testing.assert_array_equal(f(a), expected)
        np.testing.assert_array_equal(a, [0.0, 1.0, 2.0])


def test_a_constant_output_is_a_fresh_array_each_call():
    f = opkit.function([], ot.constant([1.0, 2.0]))
    first = f()
    first[0] = 99
    np.testing.assert_array_equal(f(), [1.0, 2.0])


@pytest.mark.parametrize("outputs", [lambda x: [x, x], lambda x: [x * 2, x * 2], lambda x: [x * 2, (x * 2)]])
def test_the_same_output_twice_gives_two_arrays(outputs):
    x = ot.dvector("x")
    first, second = opkit.function([x], outputs(x))(np.arange(3.0))
    assert first is not second and not np.shares_memory(first, second)
    np.testing.assert_array_equal(first, second)


def test_inputs_are_not_modified():
    x = ot.dvector("x")
    a = np.arange(4.0)
    opkit.function([x], [-x, x * 2, ot.exp(x)])(a)
    np.testing.assert_array_equal(a, np.arange(4.0))


def test_toposort_lists_the_final_nodes_in_order():
    x, y = ot.dvector("x"), ot.dvector("y")
    unfused = opkit.Mode(linker="c", optimizer="fast_run").excluding("fusion")
    f = opkit.function([x, y], ot.exp(x * y) + x, mode=unfused)
    nodes = f.maker.fgraph.toposort()
    assert [str(node.op) for node in nodes] == ["mul", "exp", "add"]
    computed = set(map(id, f.maker.fgraph.inputs))
    for node in nodes:
        assert all(id(v) in computed or v.owner is None for v in node.inputs)
        computed.update(map(id, node.outputs))
    # the compiled graph is a private copy: the user's variables are untouched
    assert x not in f.maker.fgraph.inputs and f.maker.inputs == [x, y]


def test_an_error_in_perform_names_the_node():
    class Fails(opkit.Op):
        __props__ = ()

        def make_node(self, x):
            return opkit.Apply(self, [x], [x.type()])

        def perform(self, node, inputs, output_storage):
            raise ValueError("bad value")

    x = ot.dvector("x")
    f = opkit.function([x], Fails()(x))
    with pytest.raises(ValueError, match="bad value") as excinfo:
        f([1.0, 2.0])
    if sys.version_info >= (3, 11):
        notes = "\n".join(excinfo.value.__notes__)
        assert "Apply node that failed: Fails(x)" in notes
        assert "x: shape=(2,), dtype=float64" in notes


# -- modes --------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", [None, "FAST_RUN", "FAST_COMPILE", opkit.Mode(linker="py", optimizer=None),
                                  opkit.Mode(linker="py", optimizer="fast_run")],
                         ids=["default", "FAST_RUN", "FAST_COMPILE", "py-no-rewrites", "py-fast-run"])
def test_every_mode_computes_the_same_values(mode):
    x, y = ot.dmatrix("x"), ot.dvector("y")
    outputs = [(x * y + x) * 2 - y, ot.dot(x, y), x.sum(axis=0), ot.constant(2.0) * ot.constant(3.0) + x,
               ot.exp(x).shape]
    f = opkit.function([x, y], outputs, mode=mode)
    xv, yv = np.arange(6.0).reshape(2, 3), np.array([1.0, -2.0, 0.5])
    expected = [(xv * yv + xv) * 2 - yv, xv.dot(yv), xv.sum(axis=0), 6.0 + xv, np.array([2, 3])]
    for result, reference in zip(f(xv, yv), expected):
        np.testing.assert_allclose(result, reference)


def test_modes_choose_rewrites():
    x = ot.dvector("x")
    expression = ot.constant(2.0) * ot.constant(3.0) + x
    folded = opkit.function([x], expression, mode="FAST_RUN").maker.fgraph.toposort()
    kept = opkit.function([x], expression, mode=opkit.Mode(linker="py", optimizer=None)).maker.fgraph.toposort()
    assert [str(n.op) for n in folded] == ["add"]
    assert [str(n.op) for n in kept] == ["mul", "add"]


def test_config_mode_is_the_default():
    x = ot.dvector("x")
    with opkit.config.change_flags(mode="FAST_COMPILE"):
        f = opkit.function([x], ot.constant(2.0) * ot.constant(3.0) + x)
    assert [str(n.op) for n in f.maker.fgraph.toposort()] == ["mul", "add"]
    np.testing.assert_array_equal(f([1.0]), [7.0])


def test_unknown_mode_name():
    x = ot.dvector("x")
    with pytest.raises(ValueError) as excinfo:
        opkit.function([x], x, mode="FAST")
    assert str(excinfo.value) == "unknown mode 'FAST'; valid modes: FAST_RUN, FAST_COMPILE, DebugMode or an opkit.Mode"


def test_unknown_linker_and_optimizer():
    x = ot.dvector("x")
    with pytest.raises(ValueError, match="^unknown linker 'fast'; valid linkers: py, cop, c"):
        opkit.function([x], x * 2, mode=opkit.Mode(linker="fast"))
    with pytest.raises(ValueError, match="^unknown optimizer 'O3'; valid: fast_run, fast_compile"):
        opkit.Mode(linker="py", optimizer="O3")
    with pytest.raises(ValueError, match="^unknown rewrite 'fuse_all'; valid: merge, shape, constant_folding"):
        opkit.function([x], x * 2, mode=opkit.Mode(linker="py", optimizer=["merge", "fuse_all"]))
