"""Every mistake with updates, givens and shared inputs is refused when compiling, with what to do."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot


@pytest.fixture
def c():
    return opkit.shared(np.zeros(3, dtype="float32"), name="c")


def test_updating_a_variable_that_is_not_shared(c):
    x = ot.fvector("x")
    with pytest.raises(TypeError, match=r"cannot update x in function: only shared variables can be updated "
                                        r"\(it is a TensorVariable\)\.\nHint: create it with opkit\.shared"):
        opkit.function([x], c, updates={x: x + 1})


def test_an_update_of_another_dtype_says_to_cast(c):
    with pytest.raises(TypeError) as info:
        opkit.function([], [], updates={c: c + np.ones(3)}, name="step")  # float64 + float32 -> float64
    message = str(info.value)
    assert "the update of shared variable c has type TensorType(float64, vector), but c has type " \
           "TensorType(float32, vector)" in message
    assert "Hint: cast it to float32: updates={c: opkit.tensor.cast(expression, 'float32')}" in message


def test_an_update_with_other_dimensions(c):
    with pytest.raises(TypeError, match=r"the update of shared variable c has type TensorType\(float32, matrix\).*"
                                        r"\n.*same dtype and number of dimensions"):
        opkit.function([], [], updates={c: ot.fmatrix("m")}, on_unused_input="ignore")


def test_the_same_shared_variable_updated_twice(c):
    with pytest.raises(ValueError, match=r"shared variable c is updated twice in function 'f'; give each shared "
                                         r"variable at most one update expression"):
        opkit.function([], [], updates=[(c, c + 1), (c, c * 2)], name="f")
    with pytest.raises(ValueError, match="updated twice"):  # a clone holds the same value
        opkit.function([], [], updates=[(c, c + 1), (c.clone(), c * 2)])


def test_a_given_of_another_type(c):
    x = ot.dvector("x")
    with pytest.raises(TypeError) as info:
        opkit.function([], x * 2, givens={x: c})
    message = str(info.value)
    assert "the given for x has type TensorType(float32, vector), but x has type TensorType(float64, vector)" \
           in message
    assert "Hint: cast it to float64: givens={x: opkit.tensor.cast(expression, 'float64')}" in message


def test_a_shared_variable_as_an_explicit_input(c):
    with pytest.raises(TypeError, match=r"^Cannot use a shared variable \(c\) as explicit input 0 of function: "
                                        r"functions read shared variables implicitly.\nHint: remove it from the "
                                        r"inputs, or replace it "
                                        r"by a symbolic variable with givens=\{c: x\}"):
        opkit.function([c], c * 2)


def test_updates_that_are_not_pairs(c):
    with pytest.raises(TypeError, match=r"updates of function must be a dict or a list of \(variable, expression\) "
                                        r"pairs; got the item"):
        opkit.function([], [], updates=[c])


def test_a_given_that_is_also_an_input():
    x = ot.dvector("x")
    with pytest.raises(ValueError, match=r"x is both an input of function and replaced through givens.\n"
                                         r"Hint: remove it from the inputs"):
        opkit.function([x], x * 2, givens={x: ot.dvector("y")})


def test_a_given_for_a_constant():
    k = ot.constant(np.ones(2))
    with pytest.raises(TypeError, match="not a variable that can be replaced"):
        opkit.function([], k * 2, givens={k: np.zeros(2)})


def test_a_plain_value_as_an_update_is_a_constant_of_its_type(c):
    f = opkit.function([], [], updates={c: [0, 1, 2]}, mode="FAST_COMPILE")
    f()
    np.testing.assert_array_equal(c.get_value(), [0, 1, 2])
    assert c.get_value().dtype == np.float32
    with pytest.raises(TypeError, match=r"an update for c is 'nope', which is not a value of its type"):
        opkit.function([], [], updates={c: "nope"})


def test_an_input_unused_apart_from_an_update_is_used(c):
    x = ot.fvector("x")
    f = opkit.function([x], [], updates={c: x}, mode="FAST_COMPILE")  # no on_unused_input error
    f(np.ones(3, dtype="float32"))
    np.testing.assert_array_equal(c.get_value(), np.ones(3))
    with pytest.raises(ValueError, match=r"input y \(position 1\) is not used"):
        opkit.function([x, ot.fvector("y")], [], updates={c: x})


def test_an_update_that_loses_a_static_length():
    row = opkit.shared(np.zeros((1, 3)), shape=(1, None), name="row")
    with pytest.raises(TypeError, match=r"update of shared variable row has type TensorType\(float64, matrix\).*"
                                        r"\n.*static shape \(None, None\) does not ensure row's \(1, None\)"):
        opkit.function([], [], updates={row: row + ot.dmatrix("m")}, on_unused_input="ignore")
    f = opkit.function([], [], updates={row: row * 2}, mode="FAST_COMPILE")  # (1, None) stays (1, None)
    f()
