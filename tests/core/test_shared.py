"""opkit.shared: the SharedVariable's type, get_value/set_value, borrow and strict."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.shared import SharedVariable, TensorSharedVariable


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int32", "int64", "float16", "float32", "float64",
                                   "complex64", "complex128"])
def test_an_array_gives_a_tensor_of_its_dtype_and_ndim_with_free_shape(dtype):
    value = np.ones((1, 3), dtype=dtype)
    s = opkit.shared(value, name="s")
    assert isinstance(s, TensorSharedVariable) and isinstance(s, opkit.SharedVariable)
    assert s.type == ot.TensorType(dtype, shape=(None, None))  # a length-1 axis may grow: not broadcastable
    assert s.name == "s" and str(s) == "s"
    np.testing.assert_array_equal(s.get_value(), value)
    assert s.get_value().dtype == value.dtype


@pytest.mark.parametrize("value, dtype", [(1.5, "float64"), (3, "int64"), (True, "bool"), (1j, "complex128"),
                                          (np.float32(2), "float32"), (np.int16(2), "int16")])
def test_python_and_numpy_scalars_give_0d_tensors(value, dtype):
    s = opkit.shared(value)
    assert s.type == ot.TensorType(dtype, shape=())
    assert s.get_value() == value and s.get_value().dtype == dtype


def test_a_python_float_takes_floatx():
    with opkit.config.change_flags(floatX="float32"):
        assert opkit.shared(0.5).dtype == "float32"


def test_other_values_are_generic_shared_variables():
    s = opkit.shared({"a": [1, 2]})
    assert type(s) is SharedVariable and str(s.type) == "generic"
    value = s.get_value()
    value["a"].append(3)
    assert s.get_value() == {"a": [1, 2]}  # a deep copy


def test_a_symbolic_value_is_refused():
    with pytest.raises(TypeError, match=r"takes a value, not a symbolic variable .*\n.*eval\(\)"):
        opkit.shared(ot.dvector("x"))


def test_a_masked_array_is_refused_with_the_fix():
    with pytest.raises(TypeError, match=r"numpy.ma.*\n.*np.asarray"):
        opkit.shared(np.ma.masked_array([1.0, 2.0], mask=[0, 1]))


def test_shared_copies_the_value_unless_borrowed():
    value = np.arange(3.0)
    copied, borrowed = opkit.shared(value), opkit.shared(value, borrow=True)
    value[0] = 10
    assert copied.get_value()[0] == 0
    assert borrowed.get_value()[0] == 10
    assert borrowed.get_value(borrow=True) is value


def test_get_value_returns_a_copy_unless_borrowed():
    s = opkit.shared(np.zeros(3))
    s.get_value()[:] = 1
    np.testing.assert_array_equal(s.get_value(), np.zeros(3))
    internal = s.get_value(borrow=True)
    assert internal is s.container.storage[0] is s.container.value
    internal[:] = 2  # the internal array: every function reads it
    np.testing.assert_array_equal(s.get_value(), np.full(3, 2.0))


def test_set_value_copies_unless_borrowed():
    s = opkit.shared(np.zeros(3))
    value = np.ones(5)
    s.set_value(value)
    value[:] = 7
    np.testing.assert_array_equal(s.get_value(), np.ones(5))  # another shape is fine: the shape is free
    s.set_value(value, borrow=True)
    assert s.get_value(borrow=True) is value


@pytest.mark.parametrize("layout", ["fortran", "reversed", "strided", "empty"])
def test_set_value_keeps_odd_layouts_as_values(layout):
    base = np.arange(12.0).reshape(3, 4)
    value = {"fortran": np.asfortranarray(base), "reversed": base[::-1, ::-1], "strided": base[:, ::2],
             "empty": np.zeros((0, 4))}[layout]
    s = opkit.shared(np.zeros((1, 1)))
    s.set_value(value)
    np.testing.assert_array_equal(s.get_value(), value)


def test_set_value_converts_without_loss_and_refuses_a_downcast():
    s = opkit.shared(np.zeros(2, dtype="float32"), name="w")
    s.set_value(np.array([1, 2], dtype="int8"))  # safe: converted
    assert s.get_value().dtype == np.float32
    s.set_value([0.5, 1.5])  # Python floats narrow to a float dtype (Theano's floatX rule)
    np.testing.assert_array_equal(s.get_value(), [0.5, 1.5])
    with pytest.raises(TypeError, match=r"cannot set shared variable 'w' of type .*float32.*: .*float64 to "
                                        r"float32 would lose information"):
        s.set_value(np.ones(2))
    with pytest.raises(TypeError, match=r"cannot set shared variable 'w'.*wrong number of dimensions"):
        s.set_value(np.ones((2, 2), dtype="float32"))
    np.testing.assert_array_equal(s.get_value(), [0.5, 1.5])  # unchanged by the refused values


def test_strict_takes_only_values_of_exactly_its_type():
    s = opkit.shared(np.zeros(2), strict=True, name="s")
    assert s.strict
    s.set_value(np.ones(2))
    with pytest.raises(TypeError, match=r"cannot set shared variable 's'.*\n.*created with strict=True"):
        s.set_value(np.ones(2, dtype="float32"))
    with pytest.raises(TypeError, match="strict=True"):
        s.set_value([1.0, 2.0])
    loose = opkit.shared(np.zeros(2))
    loose.set_value(np.ones(2, dtype="float32"))
    assert loose.get_value().dtype == np.float64


def test_a_clone_shares_the_value():
    s = opkit.shared(np.zeros(2), name="s")
    twin = s.clone()
    assert isinstance(twin, TensorSharedVariable) and twin is not s and twin.name == "s"
    s.set_value(np.ones(2))
    np.testing.assert_array_equal(twin.get_value(), np.ones(2))


def test_a_shared_variable_works_in_expressions_and_eval():
    s = opkit.shared(np.arange(3.0))
    assert (s * 2).ndim == 1 and s.dtype == "float64"
    np.testing.assert_array_equal((s * 2).eval(), [0.0, 2.0, 4.0])
    s.set_value(np.ones(2))
    np.testing.assert_array_equal((s * 2).eval(), [2.0, 2.0])  # the compiled eval reads the new value


def test_shape_fixes_lengths_as_in_pytensor():
    row = opkit.shared(np.zeros((1, 3)), shape=(1, None), name="row")
    assert row.type.shape == (1, None) and row.broadcastable == (True, False)
    row.set_value(np.ones((1, 5)))
    with pytest.raises(TypeError, match=r"cannot set shared variable 'row'.*axis 0 must be 1"):
        row.set_value(np.ones((2, 3)))
    with pytest.raises(TypeError, match=r"axis 0 must be 1"):
        opkit.shared(np.zeros((2, 3)), shape=(1, None))
    with pytest.raises(ValueError, match=r"shape=\(None,\) has 1 entries for a value with 2 dimensions"):
        opkit.shared(np.zeros((2, 3)), shape=(None,))
    with pytest.raises(TypeError, match="shape= is for numeric arrays, not dict"):
        opkit.shared({}, shape=())
