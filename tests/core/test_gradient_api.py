"""Gradients as PyTensor users write them: a scalar cost, constants, names, undefined gradients."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.tensor.shapes.fill import Fill
from opkit.gradient import NullTypeGradError, grad_not_implemented, grad_undefined
from helpers.modes import FAST_RUN_GRAPH

MODES = ["FAST_RUN", "FAST_COMPILE", opkit.Mode(linker="c", optimizer=None)]
# The other tests read FAST_RUN's graph on the Python linker (helpers.modes.FAST_RUN_GRAPH): gradients as graphs are
# what they check, and the C of their ops is tests/tensor's


@pytest.mark.parametrize("mode", MODES, ids=["FAST_RUN", "FAST_COMPILE", "c-unoptimized"])
def test_grad_of_a_scalar_cost_keeps_its_link_to_the_variable(mode):
    s = ot.dscalar("s")
    f = opkit.function([s], opkit.grad(s * 3, s), mode=mode)
    assert f(2.0) == 3.0
    assert f(-7.5) == 3.0


def test_the_seed_is_fill_of_the_cost_and_fast_run_drops_it():
    s = ot.dscalar("s")
    g = opkit.grad(s * 3, s)
    fills = [v.owner for v in _ancestors(g) if v.owner is not None and isinstance(v.owner.op, Fill)]
    assert len(fills) == 1 and fills[0].inputs[0].owner.op is ot.mul
    fast = opkit.function([s], g, mode=FAST_RUN_GRAPH)
    assert not any(isinstance(node.op, Fill) for node in fast.maker.fgraph.toposort())
    # a vector model with a shape known only at run time becomes an Alloc over the inferred shape
    x = ot.dvector("x")
    gx = opkit.grad((x * 3).sum(), x)
    f = opkit.function([x], gx, mode=FAST_RUN_GRAPH)
    assert not any(isinstance(node.op, Fill) for node in f.maker.fgraph.toposort())
    np.testing.assert_array_equal(f(np.arange(4.0)), [3.0] * 4)


def _ancestors(variable):
    from opkit.core.graph import ancestors

    return list(ancestors([variable]))


def test_fill_computes_broadcast_values_and_its_gradient():
    from opkit.core.tensor.shapes.fill import fill

    m, v = ot.dmatrix("m"), ot.dvector("v")
    out = fill(m, v)
    f = opkit.function([m, v], out, mode="FAST_COMPILE")
    np.testing.assert_array_equal(f(np.zeros((2, 3)), [1.0, 2.0, 3.0]), [[1.0, 2.0, 3.0]] * 2)
    gv = opkit.grad(out.sum(), v)
    np.testing.assert_array_equal(opkit.function([m, v], gv, mode=FAST_RUN_GRAPH)(np.zeros((2, 3)), [1.0, 2.0, 3.0]),
                                  [2.0, 2.0, 2.0])
    with pytest.raises(ValueError, match="more than the model"):
        fill(v, m)


def test_grad_with_respect_to_a_constant():
    c = ot.as_tensor_variable(np.array(2.0))
    assert opkit.function([], opkit.grad(c * 3, c), mode=FAST_RUN_GRAPH)() == 3.0
    w = ot.as_tensor_variable(np.array([1.0, 2.0]))
    x = ot.dvector("x")
    gw = opkit.grad((w * x).sum(), w)
    np.testing.assert_array_equal(opkit.function([x], gw, mode=FAST_RUN_GRAPH)([5.0, 6.0]), [5.0, 6.0])


def test_disconnected_scalar_returns_zeros_that_use_the_variable():
    s, t = ot.dscalar("s"), ot.dscalar("t")
    g = opkit.grad(s * 2, t, disconnected_inputs="ignore")
    assert opkit.function([t], g, on_unused_input="ignore", mode=FAST_RUN_GRAPH)(4.0) == 0.0


def test_gradients_are_named_like_pytensor():
    x, y = ot.dvector("x"), ot.dscalar("y")
    hidden = ot.exp(x * y)
    hidden.name = "h"
    cost = hidden.sum()
    cost.name = "cost"
    gx, gy = opkit.grad(cost, [x, y])
    assert (gx.name, gy.name) == ("(dcost/dx)", "(dcost/dy)")
    assert opkit.grad(cost, x, add_names=False).name is None
    unnamed = ot.dvector()
    assert opkit.grad((unnamed * 2).sum(), unnamed).name is None
    anonymous_cost = (x * 2).sum()
    assert opkit.grad(anonymous_cost, x).name is None


def test_one_variable_gradient_of_two_inputs_keeps_its_first_name():
    a, b = ot.dscalar("a"), ot.dscalar("b")
    cost = a + b
    cost.name = "c"
    ga, gb = opkit.grad(cost, [a, b])
    assert ga.name == "(dc/da)" and gb.name in ("(dc/da)", "(dc/db)")


def test_arguments_in_pytensor_order_and_spelling():
    x, y = ot.dvector("x"), ot.dvector("y")
    # grad(cost, wrt, consider_constant, disconnected_inputs, add_names, known_grads, return_disconnected, ...)
    assert opkit.grad(x.sum(), y, None, "ignore", True, None, "none") is None
    placeholder = opkit.grad(x.sum(), y, disconnected_inputs="ignore", return_disconnected="disconnected")
    assert isinstance(placeholder.type, opkit.gradient.DisconnectedType)
    assert opkit.grad(x.sum(), y, disconnected_inputs="ignore", return_disconnected="None") is None
    with pytest.raises(ValueError, match="return_disconnected must be one of"):
        opkit.grad(x.sum(), y, disconnected_inputs="ignore", return_disconnected="nothing")


class Floor(opkit.Op):
    """floor(x): its gradient is undefined (grad_undefined)."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.floor(inputs[0])

    def grad(self, inputs, output_grads):
        return [grad_undefined(self, 0, inputs[0], "floor is a step function")]


class Scale(opkit.Op):
    """x * k: the gradient with respect to k is not implemented."""

    __props__ = ()

    def make_node(self, x, k):
        x, k = ot.as_tensor_variable(x), ot.as_tensor_variable(k)
        return opkit.Apply(self, [x, k], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * inputs[1]

    def grad(self, inputs, output_grads):
        x, k = inputs
        return [output_grads[0] * k, grad_not_implemented(self, 1, k)]


def test_compiling_an_undefined_gradient_names_the_op_and_input():
    x = ot.dvector("x")
    g = opkit.grad(Floor()(x).sum(), x, null_gradients="return")
    with pytest.raises(NullTypeGradError) as excinfo:
        opkit.function([x], g)
    error = excinfo.value
    assert isinstance(error, TypeError) and error.position == 0 and error.variable is g
    assert isinstance(error.op, Floor) and error.input_index == 0
    message = str(error)
    assert "function: output 0 is an undefined gradient (NullType)" in message
    assert "input 0 (x) of the Floor op is mathematically undefined. floor is a step function" in message
    assert "depend on <NullType>" not in message


def test_compiling_a_not_implemented_gradient_among_others():
    x, k = ot.dvector("x"), ot.dscalar("k")
    gx, gk = opkit.grad(Scale()(x, k).sum(), [x, k], null_gradients="return")
    np.testing.assert_array_equal(opkit.function([x, k], gx, mode=FAST_RUN_GRAPH)([1.0, 2.0], 3.0), [3.0, 3.0])
    with pytest.raises(NullTypeGradError, match=r"output 1 is an undefined gradient.*\n.*input 1 \(k\) of the "
                                                r"Scale op is not implemented"):
        opkit.function([x, k], [gx, gk])
    with pytest.raises(NullTypeGradError, match=r"wrt\[1\] \(k\) cannot be computed"):
        opkit.grad(Scale()(x, k).sum(), [x, k])


def test_compiling_a_disconnected_placeholder_says_what_it_is():
    x, y = ot.dvector("x"), ot.dvector("y")
    placeholder = opkit.grad(x.sum(), y, disconnected_inputs="ignore", return_disconnected="disconnected")
    with pytest.raises(TypeError, match="output 0 is a DisconnectedType placeholder.*\n.*return_disconnected='zero'"):
        opkit.function([y], placeholder)


def test_known_grads_variables_of_the_user_are_not_renamed():
    x = ot.dvector("x")
    h = x * 2
    h.name = "h"
    cost = h.sum()
    cost.name = "cost"
    given = ot.dvector("given")
    gh = opkit.grad(cost, h, known_grads={h: given})
    assert gh is given and given.name == "given"
