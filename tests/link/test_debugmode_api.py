"""DebugMode's options and errors as Theano/PyTensor spell them, each shown with a real C op."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit import Apply, Op
from opkit.link.debugmode import (BadDestroyMap, BadThunkOutput, BadViewMap, DebugMode, DebugModeError,
                                  InvalidValueError)


class Unary(Op):
    """One float64 vector in, `nout` float64 vectors out; C code cached by version."""

    __props__ = ()
    nout = 1

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type() for _ in range(self.nout)])

    def c_code_cache_version(self):
        return (1,)


def copy_times(x, z, factor, fail):
    """C: z = factor * x, a new array."""
    return f"""
    Py_XDECREF({z});
    {z} = (PyArrayObject*)PyArray_NewCopy({x}, NPY_CORDER);
    if (!{z}) {fail}
    for (npy_intp i = 0; i < PyArray_SIZE({z}); ++i) ((double*)PyArray_DATA({z}))[i] *= {factor};
    """


class COnly(Unary):
    """The usual idiom of a C-only op: perform raises NotImplementedError. The C doubles x."""

    def perform(self, node, inputs, output_storage):
        raise NotImplementedError("C only")

    def c_code(self, node, name, inputs, outputs, sub):
        return copy_times(inputs[0], outputs[0], 2, sub["fail"])


class COnlyScalesInput(COnly):
    """Doubles its input in place (no destroy_map), then copies it."""

    def c_code(self, node, name, inputs, outputs, sub):
        x, = inputs
        return (f"for (npy_intp i = 0; i < PyArray_SIZE({x}); ++i) ((double*)PyArray_DATA({x}))[i] *= 2;\n"
                + copy_times(x, outputs[0], 1, sub["fail"]))


class COnlyReturnsInput(COnly):
    """Returns its input itself."""

    def c_code(self, node, name, inputs, outputs, sub):
        x, z = inputs[0], outputs[0]
        return f"Py_XDECREF({z});\n{z} = {x};\nPy_INCREF({z});\n"


class COnlyReturnsInputView(COnlyReturnsInput):
    view_map = {0: [0]}


class COnlyLeaks(COnly):
    """Keeps one more reference to its input per call."""

    def c_code(self, node, name, inputs, outputs, sub):
        return f"Py_INCREF({inputs[0]});\n" + copy_times(inputs[0], outputs[0], 2, sub["fail"])


class TwoOutputsOneArray(COnly):
    """Both outputs are the same new array (no view_map can say so: neither views an input)."""

    nout = 2

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (a, b) = inputs, outputs
        return copy_times(x, a, 2, sub["fail"]) + f"Py_XDECREF({b});\n{b} = {a};\nPy_INCREF({b});\n"


class TwoOutputsOneArrayPython(Unary):
    nout = 2

    def perform(self, node, inputs, output_storage):
        result = inputs[0] * 2
        output_storage[0][0] = output_storage[1][0] = result


class TwoViewsOfTheInput(Unary):
    """Both outputs view the input, as view_map declares: they may alias each other."""

    nout = 2
    view_map = {0: [0], 1: [0]}

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]
        output_storage[1][0] = inputs[0][:]

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (a, b) = inputs, outputs
        return "".join(f"Py_XDECREF({z});\n{z} = {x};\nPy_INCREF({z});\n" for z in (a, b))


class Disagrees(Unary):
    """perform doubles x; C triples it."""

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2

    def c_code(self, node, name, inputs, outputs, sub):
        return copy_times(inputs[0], outputs[0], 3, sub["fail"])


class WrongDtypeC(COnly):
    """C returns a float32 array for a float64 output."""

    def c_code(self, node, name, inputs, outputs, sub):
        x, z = inputs[0], outputs[0]
        return (f"Py_XDECREF({z});\n"
                f"{z} = (PyArrayObject*)PyArray_ZEROS(1, PyArray_DIMS({x}), NPY_FLOAT32, 0);\n"
                f"if (!{z}) {sub['fail']}\n")


class WrongDtypePython(Unary):
    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0].astype("float32")


class ReusesOutput(Unary):
    """perform writes into the array it finds in its output cell when the shape fits (correct)."""

    def perform(self, node, inputs, output_storage):
        x, = inputs
        z = output_storage[0][0]
        if z is None or z.shape != x.shape:
            z = np.empty_like(x)
        z[...] = x * 2
        output_storage[0][0] = z


class ReusesOutputBlindly(Unary):
    """perform reuses whatever array its output cell holds, whatever its size (a bug)."""

    def perform(self, node, inputs, output_storage):
        x, = inputs
        z = output_storage[0][0]
        if z is None:
            z = np.empty_like(x)
        z[:len(x)] = x * 2
        output_storage[0][0] = z


def run(op, mode=None, data=(1.0, 2.0, 3.0)):
    x = ot.dvector("x")
    return opkit.function([x], op(x), mode=mode or DebugMode())(np.array(data))


def test_debugmode_takes_theano_options():
    mode = opkit.DebugMode(check_py_code=False, check_c_code=True, check_preallocated_output=["strided"])
    assert (mode.linker.check_py_code, mode.linker.check_c_code) == (False, True)
    assert mode.linker.check_preallocated_output == ("strided",)
    assert "check_py_code=False" in repr(mode)
    assert mode.excluding("merge").linker is mode.linker  # the options survive excluding()
    every = ("initial", "previous", "c_contiguous", "f_contiguous", "strided", "wrong_size")
    assert opkit.DebugMode(check_preallocated_output="ALL").linker.check_preallocated_output == every
    assert DebugMode(check_preallocated_output="strided,wrong_size").linker.check_preallocated_output == (
        "strided", "wrong_size")
    with pytest.raises(ValueError, match="unknown kind 'sideways'; valid: initial, previous, .* or 'ALL'"):
        DebugMode(check_preallocated_output=["sideways"])
    with pytest.raises(ValueError, match="needs check_py_code or check_c_code"):
        DebugMode(check_py_code=False, check_c_code=False)


def test_c_only_op_raising_not_implemented_in_perform_is_checked_in_c():
    np.testing.assert_array_equal(run(COnly()), [2.0, 4.0, 6.0])


def test_c_only_op_modifying_its_input_is_a_bad_destroy_map():
    with pytest.raises(BadDestroyMap, match=r"C code modified input 0 \(x\) in place") as excinfo:
        run(COnlyScalesInput())
    assert excinfo.value.kind == "input_modified" and isinstance(excinfo.value, DebugModeError)


def test_c_only_op_returning_its_input_is_a_bad_view_map():
    with pytest.raises(BadViewMap, match=r"output 0 of C code aliases input 0 \(x\)") as excinfo:
        run(COnlyReturnsInput())
    assert excinfo.value.details == {"output": 0, "input": 0, "implementation": "C code"}
    np.testing.assert_array_equal(run(COnlyReturnsInputView()), [1.0, 2.0, 3.0])


def test_c_only_op_leaking_references_is_reported():
    with pytest.raises(DebugModeError, match=r"C code keeps a reference to input 0 \(x\) on every call") as excinfo:
        run(COnlyLeaks())
    assert excinfo.value.kind == "reference_leak"
    assert not isinstance(excinfo.value, (BadThunkOutput, BadDestroyMap, BadViewMap, InvalidValueError))


@pytest.mark.parametrize("op, implementation", [(TwoOutputsOneArray(), "C code"),
                                                (TwoOutputsOneArrayPython(), "perform")])
def test_two_outputs_aliasing_each_other_are_a_bad_view_map(op, implementation):
    x = ot.dvector("x")
    first, second = op(x)
    f = opkit.function([x], first * 2 + second * 2, mode=DebugMode())  # later nodes read both
    with pytest.raises(BadViewMap) as excinfo:
        f(np.array([1.0, 2.0]))
    error = excinfo.value
    assert error.kind == "outputs_alias" and error.details == {"outputs": (0, 1), "implementation": implementation}
    assert f"outputs 0 and 1 of {implementation} share memory, and the op's view_map does not say" in str(error)
    assert "Hint: give each output its own memory" in str(error)


@pytest.mark.parametrize("op", [TwoOutputsOneArray(), TwoOutputsOneArrayPython()])
def test_two_outputs_may_alias_each_other_when_no_later_node_reads_both(op):
    # Theano's and PyTensor's rule: the function's outputs, or an output nothing reads, cannot be
    # overwritten through the other.
    x = ot.dvector("x")
    first, second = op(x)
    value = np.array([1.0, 2.0])
    for outputs in ([first, second], [first * 2], [second * 2], [first * 2, second]):
        opkit.function([x], outputs, mode=DebugMode())(value)


def test_two_outputs_viewing_the_same_input_may_alias_each_other():
    x = ot.dvector("x")
    a, b = opkit.function([x], TwoViewsOfTheInput()(x), mode=DebugMode())(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(a, [1.0, 2.0])
    np.testing.assert_array_equal(b, [1.0, 2.0])


def test_perform_and_c_disagreeing_is_a_bad_thunk_output():
    with pytest.raises(BadThunkOutput, match="perform and C code disagree on output 0") as excinfo:
        run(Disagrees())
    assert excinfo.value.kind == "mismatch" and excinfo.value.details["index"] == (0,)


def test_errors_carry_theano_and_pytensor_attributes():
    x = ot.dvector("x")
    op = Disagrees()
    y = op(x)
    with pytest.raises(BadThunkOutput) as excinfo:
        opkit.function([x], y * 1.0, mode=DebugMode())(np.array([1.0, 2.0]))
    error = excinfo.value
    assert error.r.owner.op is op and error.r.type == y.type and error.output_idx == 0  # r: in the function's graph
    np.testing.assert_array_equal(error.val1, [2.0, 4.0])  # perform's value, then C's
    np.testing.assert_array_equal(error.val2, [3.0, 6.0])
    with pytest.raises(BadDestroyMap) as excinfo:
        run(COnlyScalesInput())
    assert excinfo.value.idx == 0 and not hasattr(excinfo.value, "r")
    with pytest.raises(BadViewMap) as excinfo:
        run(COnlyReturnsInput())
    assert (excinfo.value.output_idx, excinfo.value.in_alias_idx) == (0, 0)
    first, second = TwoOutputsOneArray()(x)
    with pytest.raises(BadViewMap) as excinfo:
        opkit.function([x], first + second, mode=DebugMode())(np.array([1.0]))
    assert (excinfo.value.output_idx, excinfo.value.out_alias_idx) == (0, 1)
    assert excinfo.value.r is excinfo.value.node.outputs[0]


@pytest.mark.parametrize("op, implementation", [(WrongDtypeC(), "C code"), (WrongDtypePython(), "perform")])
def test_a_value_of_the_wrong_dtype_is_an_invalid_value(op, implementation):
    with pytest.raises(InvalidValueError) as excinfo:
        run(op)
    error = excinfo.value
    assert error.kind == "invalid_value" and error.details["implementation"] == implementation
    message = str(error)
    assert f"{implementation} returned an invalid value for output 0" in message
    assert "dtype float32" in message


def test_check_py_code_false_runs_only_the_c_code():
    np.testing.assert_array_equal(run(Disagrees(), DebugMode(check_py_code=False)), [3.0, 6.0, 9.0])
    # a node with only perform still runs it
    np.testing.assert_array_equal(run(ReusesOutput(), DebugMode(check_py_code=False)), [2.0, 4.0, 6.0])


def test_check_c_code_false_runs_only_perform():
    np.testing.assert_array_equal(run(Disagrees(), DebugMode(check_c_code=False)), [2.0, 4.0, 6.0])
    # a C-only op without perform still runs its C
    from helpers.tutorial_ops import VectorTimesScalar

    x, y = ot.dvector("x"), ot.dscalar("y")
    f = opkit.function([x, y], VectorTimesScalar()(x, y), mode=DebugMode(check_c_code=False))
    np.testing.assert_array_equal(f(np.arange(3.0), 2.0), [0.0, 2.0, 4.0])


def test_preallocated_outputs_catch_a_perform_that_reuses_them_blindly():
    np.testing.assert_array_equal(run(ReusesOutputBlindly()), [2.0, 4.0, 6.0])  # not checked by default
    every = DebugMode(check_preallocated_output="ALL")
    np.testing.assert_array_equal(run(ReusesOutput(), every), [2.0, 4.0, 6.0])
    for kind in ("c_contiguous", "f_contiguous", "strided", "previous"):
        np.testing.assert_array_equal(run(ReusesOutputBlindly(), DebugMode(check_preallocated_output=[kind])),
                                      [2.0, 4.0, 6.0])
    with pytest.raises(BadThunkOutput) as excinfo:
        run(ReusesOutputBlindly(), DebugMode(check_preallocated_output=["wrong_size"]))
    message = str(excinfo.value)
    assert "perform and perform with preallocated outputs (wrong_size) disagree on output 0" in message
    assert "perform gave shape (3,), dtype float64; preallocated wrong_size gave shape (4,)" in message
