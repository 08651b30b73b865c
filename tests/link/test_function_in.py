"""function's inputs as Theano and PyTensor declare them: In (strict, allow_downcast, defaults, implicit inputs
with a container and an update), allow_input_downcast, and shared variables' default updates."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.compile.io import In
from opkit.core.shared import Container
from opkit.errors import ValueOverflowError
from opkit.link.function import MissingInputError, UnusedInputError


def test_in_options_filter_each_input():
    x, y, z = ot.dvector("x"), ot.ivector("y"), ot.dscalar("z")
    f = opkit.function([In(x, strict=True), In(y, allow_downcast=True), In(z, value=10.0)], x.sum() + y.sum() + z)
    ints = np.array([1, 2], dtype="int32")
    assert f(np.array([1.0, 2.0]), ints) == 16.0  # z's default
    assert f(np.array([1.0, 2.0]), ints, 0.5) == 6.5
    assert f(np.array([1.0, 2.0]), np.array([1.5, 2.5]), z=0.0) == 6.0  # 1.5 -> 1, 2.5 -> 2: downcast allowed
    with pytest.raises(TypeError, match=r"bad argument 'x' \(position 0\)"):
        f(ints, ints)  # strict: no conversion, not even a safe one


def test_allow_input_downcast_and_integers_out_of_range():
    a = ot.TensorType("int16", (None,))("a")
    wrap = opkit.function([a], a * 1, allow_input_downcast=True)
    np.testing.assert_array_equal(wrap([2 ** 20 + 3]), [3])  # wrapped around, as numpy's astype
    refuse = opkit.function([a], a * 1)
    np.testing.assert_array_equal(refuse([300]), [300])  # lossless: converted
    with pytest.raises(ValueOverflowError, match=r"got the integer 40000, out of bounds for int16 "
                                                 r"\(-32768 to 32767\)") as excinfo:
        refuse([3, 40000])
    assert isinstance(excinfo.value, OverflowError) and isinstance(excinfo.value, TypeError)
    strict_false = opkit.function([In(a, allow_downcast=False)], a * 1)
    np.testing.assert_array_equal(strict_false([7]), [7])  # lossless Python values pass with False too
    with pytest.raises(TypeError, match="would lose information"):
        strict_false(np.array([7], dtype="int64"))  # an array of a wider dtype does not


def test_implicit_input_reads_and_updates_its_container():
    a = ot.dscalar("a")
    cell = Container(a, np.array(1.0))
    f = opkit.function([In(a, value=cell, implicit=True, update=a * 2)], a + 0)
    assert [float(f()) for _ in range(3)] == [1.0, 2.0, 4.0]
    assert cell.storage[0] == 8.0


def test_in_errors():
    a, v = ot.dscalar("a"), ot.dvector("v")
    with pytest.raises(TypeError, match=r"^In: the update of a has type TensorType\(float64, vector\), not the "
                                        r"input's type TensorType\(float64, scalar\)$"):
        In(a, update=v)
    with pytest.raises(TypeError, match=r"^In: 3 is not an opkit Variable$"):
        In(3)
    with pytest.raises(NotImplementedError, match=r"^In\(a\): an update of an explicit input"):
        opkit.function([In(a, update=a + 1, implicit=False)], a)
    s = opkit.shared(1.0, "s")
    with pytest.raises(TypeError, match=r"^Cannot use a shared variable \(s\) as explicit input 0"):
        opkit.function([In(s, update=s + 1)], s)
    with pytest.raises(TypeError, match=r"^function inputs must be a list of Variables"):
        opkit.function({a}, a)


def test_default_updates_follow_their_chain_and_no_default_updates():
    x, y, z = opkit.shared(2, "x"), opkit.shared(1, "y"), opkit.shared(-1, "z")
    x.default_update, y.default_update, z.default_update = x - y, z, z - 1
    opkit.function([], x)()  # x's update reads y, whose update reads z: all three are updated
    assert (x.get_value(), y.get_value(), z.get_value()) == (1, -1, -2)
    opkit.function([], x, no_default_updates=[y])()  # y keeps its value; z is no longer read
    assert (x.get_value(), y.get_value(), z.get_value()) == (2, -1, -2)
    opkit.function([], x, no_default_updates=True)()
    assert x.get_value() == 2
    opkit.function([], x, updates=[(x, x * 10)])()  # an explicit update wins over the default one
    assert (x.get_value(), y.get_value()) == (20, -1)
    for wrong in (x, "canard", 1, (x,)):
        with pytest.raises(TypeError, match=r"^no_default_updates of function must be a bool or a list of shared "
                                            r"variables, not"):
            opkit.function([], x, no_default_updates=wrong)


def test_default_update_needing_an_input_that_is_not_given():
    a = ot.lscalar("a")
    y = opkit.shared(1, "y")
    y.default_update = y + a
    with pytest.raises(MissingInputError, match="the outputs depend on a, which is not among the inputs"):
        opkit.function([], y)
    opkit.function([a], y)(5)
    assert y.get_value() == 6


def test_errors_are_pytensors_classes():
    x = ot.dscalar("x")
    with pytest.raises(UnusedInputError, match=r"^input 1 \(x\) is used twice in inputs"):
        opkit.function([x, x], x)
    with pytest.raises(UnusedInputError, match="is not used to compute the outputs"):
        opkit.function([x, ot.dscalar("y")], x)
    assert issubclass(UnusedInputError, ValueError) and issubclass(MissingInputError, ValueError)
