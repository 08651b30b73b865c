"""Returned arrays are the caller's, and destroy_map is honoured, in every linker."""

import numpy as np
import pytest
from helpers.trust_ops import LINKER_MODES, AddOneInplace, EitherView, Transpose

import opkit
import opkit.tensor as ot
from opkit.core.builtin_ops import ViewOp

MODES = pytest.mark.parametrize("mode", list(LINKER_MODES.values()), ids=list(LINKER_MODES))


@MODES
def test_a_view_of_an_intermediate_is_not_overwritten_by_the_next_call(mode):
    x = ot.dvector("x")
    f = opkit.function([x], ViewOp()(ot.exp(x)), mode=mode)
    first = f(np.zeros(3))
    second = f(np.ones(3))
    np.testing.assert_array_equal(first, np.ones(3))
    np.testing.assert_array_equal(second, np.exp(np.ones(3)))


@MODES
def test_a_c_op_view_of_an_intermediate_is_not_overwritten(mode):
    x = ot.dmatrix("x")
    f = opkit.function([x], Transpose()(ot.exp(x)), mode=mode)
    a, b = np.zeros((2, 3)), np.arange(6.0).reshape(2, 3)
    first = f(a)
    second = f(b)
    np.testing.assert_array_equal(first, np.exp(a).T)
    np.testing.assert_array_equal(second, np.exp(b).T)
    del second
    third = f(a)  # the intermediate is free again: it may be reused, the old result stays
    np.testing.assert_array_equal(first, np.exp(a).T)
    np.testing.assert_array_equal(third, np.exp(a).T)


@MODES
def test_writing_into_one_result_leaves_the_others(mode):
    x = ot.dvector("x")
    e = ot.exp(x)
    f = opkit.function([x], [e, e, ViewOp()(e), x], mode=mode)
    value = np.arange(3.0)
    results = f(value)
    assert len({id(r) for r in results}) == 4
    results[0][:] = -1
    results[3][:] = -2
    np.testing.assert_array_equal(results[1], np.exp(np.arange(3.0)))
    np.testing.assert_array_equal(results[2], np.exp(np.arange(3.0)))
    np.testing.assert_array_equal(value, np.arange(3.0))  # the input is not returned


@MODES
def test_an_input_returned_as_output_is_a_copy(mode):
    x = ot.dvector("x")
    f = opkit.function([x], [x, Transpose()(x)], mode=mode)
    value = np.arange(3.0)
    same, view = f(value)
    assert not np.shares_memory(same, value) and not np.shares_memory(view, value)


@MODES
def test_destroyed_input_of_the_caller_is_copied(mode):
    x = ot.dvector("x")
    f = opkit.function([x], AddOneInplace()(x), mode=mode)
    value = np.zeros(3)
    np.testing.assert_array_equal(f(value), np.ones(3))
    np.testing.assert_array_equal(f(value), np.ones(3))
    np.testing.assert_array_equal(value, np.zeros(3))


@MODES
def test_a_value_other_nodes_read_is_not_destroyed_before_them(mode):
    x = ot.dvector("x")
    e = ot.exp(x)
    for outputs in ([AddOneInplace()(e), e * 2], [e * 2, AddOneInplace()(e)], [e, AddOneInplace()(e)]):
        f = opkit.function([x], outputs, mode=mode)
        value = np.arange(3.0)
        results = f(value)
        expected = {id(outputs[0]): None}
        names = ["inplace" if o.owner.op == AddOneInplace() else "other" for o in outputs]
        for name, result, output in zip(names, results, outputs):
            if name == "inplace":
                np.testing.assert_allclose(result, np.exp(value) + 1)
            elif output is e:
                np.testing.assert_allclose(result, np.exp(value))
            else:
                np.testing.assert_allclose(result, np.exp(value) * 2)
        del expected


@MODES
@pytest.mark.parametrize("fold", [True, False], ids=["folded", "not-folded"])
def test_a_destroyed_constant_gives_the_same_result_every_compile(mode, fold):
    data = np.zeros(3)
    c = ot.constant(data)
    out = AddOneInplace(fold)(c) * 2
    results = [opkit.function([], out, mode=mode)() for _ in range(3)]
    for result in results:
        np.testing.assert_array_equal(result, np.full(3, 2.0))
    np.testing.assert_array_equal(c.data, np.zeros(3))
    f = opkit.function([], out, mode=mode)
    np.testing.assert_array_equal(f(), f())


@MODES
def test_two_destroyers_of_one_value_each_get_their_own_copy(mode):
    x = ot.dvector("x")
    e = ot.exp(x)
    f = opkit.function([x], [AddOneInplace()(e), AddOneInplace()(AddOneInplace()(e))], mode=mode)
    one, two = f(np.zeros(2))
    np.testing.assert_array_equal(one, np.full(2, 2.0))
    np.testing.assert_array_equal(two, np.full(2, 3.0))


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_a_constant_graph_numpy_rejects_raises_when_called_not_when_compiled(mode):
    f = opkit.function([], ot.constant(np.arange(3)) ** ot.constant(-1), mode=mode)
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
        f()
    g = opkit.function([], ot.constant(np.ones(3)) + ot.constant(np.ones(4)), mode=mode)
    with pytest.raises(ValueError, match=r"shapes \(3,\), \(4,\) cannot be broadcast"):
        g()


@MODES
def test_an_output_that_may_view_any_of_several_inputs_is_a_copy(mode):
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], [EitherView()(ot.exp(x), y), EitherView()(ot.exp(x), ot.exp(y))], mode=mode)
    a, b = np.zeros(2), np.ones(2)
    first, second = f(a, b)
    assert not np.shares_memory(first, b)
    np.testing.assert_array_equal(first, b)
    np.testing.assert_array_equal(second, np.exp(b))
    f(a, b + 1)
    np.testing.assert_array_equal(second, np.exp(b))
