"""Theano's and PyTensor's gradient API beyond grad: jacobian, hessian, pullback/pushforward, subgraph_grad and
the ops that only change gradients (zero_grad, disconnected_grad, undefined_grad, grad_clip, grad_scale).

Values are checked against numpy; each error a user can reach is checked by its message. The functions are FAST_RUN's
graphs on the Python linker (helpers.modes.FAST_RUN_GRAPH), as tests/core/test_gradient.py's: the gradient graphs are
what these tests are about, and the C of their ops (elementwise, reductions, dot) is tests/tensor's.
"""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.gradient import (DisconnectedInputError, DisconnectedType, GradClip, NullTypeGradError, disconnected_grad,
                            grad, grad_clip, grad_scale, hessian, hessian_vector_product, jacobian, pullback,
                            pushforward, subgraph_grad, undefined_grad, zero_grad)
from helpers.modes import FAST_RUN_GRAPH

X = np.array([0.5, -1.0, 2.0])


def test_gradient_ops_change_only_the_gradient_and_leave_compiled_graphs():
    x = ot.dvector("x")
    exprs = [zero_grad(x) * x, disconnected_grad(x) * x, grad_clip(x, -1.5, 1.5) ** 2, grad_scale(x, -3.0) ** 2]
    grads = [grad(e.sum(), x) for e in exprs]
    f = opkit.function([x], exprs + grads, mode=FAST_RUN_GRAPH)
    values = f(X)
    for value in values[:2]:
        np.testing.assert_allclose(value, X * X)
    np.testing.assert_allclose(values[2:4], [X ** 2, X ** 2])
    np.testing.assert_allclose(values[4], X)  # d(c * x)/dx with c held constant
    np.testing.assert_allclose(values[5], X)
    np.testing.assert_allclose(values[6], np.clip(2 * X, -1.5, 1.5))
    np.testing.assert_allclose(values[7], -3.0 * 2 * X)
    kinds = {type(node.op).__name__ for node in f.maker.fgraph.toposort()}
    assert not kinds & {"ZeroGrad", "DisconnectedGrad", "GradClip", "GradScale"}


def test_gradient_ops_errors():
    x = ot.dvector("x")
    with pytest.raises(ValueError, match=r"^grad_clip: the upper bound -1 must be >= the lower bound 1$"):
        GradClip(1, -1)
    with pytest.raises(NullTypeGradError):
        grad(undefined_grad(x).sum(), x)
    with pytest.raises(DisconnectedInputError):
        grad(disconnected_grad(x).sum(), x)
    np.testing.assert_allclose(opkit.function([x], undefined_grad(x) * 2, mode=FAST_RUN_GRAPH)(X), 2 * X)


def test_pushforward_and_pullback_of_the_gradient_ops():
    x, v = ot.dvector("x"), ot.dvector("v")
    y = zero_grad(x) * 2 + disconnected_grad(x)
    f = opkit.function([x, v], [pushforward(y, x, v), pullback(x * y, x, v)], mode=FAST_RUN_GRAPH)
    forward, backward = f(X, X + 1)
    np.testing.assert_array_equal(forward, np.zeros(3))
    np.testing.assert_allclose(backward, (X + 1) * 3 * X)  # y held constant: d(x * y)/dx = y


def test_pullback_and_pushforward_take_and_return_structures():
    x, y = ot.dvector("x"), ot.dvector("y")
    z = x * y
    g = pullback([z], (x, y), [ot.ones_like(z)])
    assert isinstance(g, tuple) and len(g) == 2
    r = pushforward([z, x], [x], [y])
    assert isinstance(r, list) and len(r) == 2
    f = opkit.function([x, y], [*g, *r], mode=FAST_RUN_GRAPH)
    gx, gy, rz, rx = f(X, X + 1)
    np.testing.assert_allclose([gx, gy, rz, rx], [X + 1, X, (X + 1) ** 2, X + 1])
    with pytest.raises(ValueError, match=r"^pullback: 1 output\(s\) in f but 2 cotangent\(s\)$"):
        pullback(z, x, [y, y])


def test_jacobian_and_hessian_against_numpy():
    x, m = ot.dvector("x"), ot.dmatrix("m")
    y = ot.dot(m, x) ** 2  # J[i, j] = 2 (m x)_i m_ij
    jx, jm = jacobian(y, [x, m])
    h = hessian((x ** 3).sum() + (x[0] * x[1]), x)
    f = opkit.function([x, m], [jx, jm, h], mode=FAST_RUN_GRAPH)
    mv = np.arange(6.0).reshape(2, 3) / 7
    got_jx, got_jm, got_h = f(X, mv)
    mx = mv @ X
    np.testing.assert_allclose(got_jx, 2 * mx[:, None] * mv)
    expected_jm = np.zeros((2, 2, 3))
    for i in range(2):
        expected_jm[i, i] = 2 * mx[i] * X
    np.testing.assert_allclose(got_jm, expected_jm)
    expected_h = np.diag(6 * X)
    expected_h[0, 1] = expected_h[1, 0] = 1.0
    np.testing.assert_allclose(got_h, expected_h)


def test_jacobian_of_an_intermediate_and_with_shared_variables():
    x = ot.dvector("x")
    w = opkit.shared(np.array([1.0, 2.0, 3.0]), "w")
    u = ot.exp(x)
    j = jacobian(u * w, u)  # wrt a computed variable: its value flows in from the outer graph
    np.testing.assert_allclose(opkit.function([x], j, mode=FAST_RUN_GRAPH)(X), np.diag([1.0, 2.0, 3.0]))


def test_hessian_vector_product_against_the_hessian():
    """Against numpy's product of the Hessian (test_jacobian_and_hessian_against_numpy checks opkit's hessian):
    no JacobianRows inner function of hessian's rows to compile."""
    x, p = ot.dvector("x"), ot.dvector("p")
    cost = (x ** 3).sum() + (x[0] * x[2])
    direct = opkit.function([x, p], hessian_vector_product(cost, x, p), mode=FAST_RUN_GRAPH)(
        X, np.array([1.0, -2.0, 0.5]))
    h = np.diag(6 * X)
    h[0, 2] = h[2, 0] = 1.0
    np.testing.assert_allclose(direct, h @ np.array([1.0, -2.0, 0.5]))


def test_jacobian_and_hessian_errors():
    x, m = ot.dvector("x"), ot.dmatrix("m")
    with pytest.raises(TypeError, match=r"^jacobian expects a Variable as `expression`, got 3$"):
        jacobian(3, x)
    with pytest.raises(ValueError, match=r"^hessian expects a 0-dimensional `cost`; x has 1 dimensions$"):
        hessian(x, x)
    with pytest.raises(ValueError, match=r"^hessian expects vectors as `wrt`; m has 2 dimensions$"):
        hessian(m.sum(), m)
    with pytest.raises(TypeError, match=r"^hessian expects a Variable as `cost`, got 1.0$"):
        hessian(1.0, x)
    with pytest.raises(ValueError, match=r"^hessian_vector_product: 1 variable\(s\) in wrt but 2 in p$"):
        hessian_vector_product(x.sum(), x, [x, x])
    with pytest.raises(DisconnectedInputError):
        jacobian(x * 2, m)


def test_subgraph_grad_errors():
    x = ot.dvector("x")
    with pytest.raises(ValueError, match=r"^subgraph_grad: `cost` or `start` must be given$"):
        subgraph_grad([x], [x])
    with pytest.raises(TypeError, match=r"^subgraph_grad: `wrt` and `end` must be lists of variables$"):
        subgraph_grad(x, [x], cost=x.sum())
    with pytest.raises(TypeError, match=r"^subgraph_grad: `start` must be a dict"):
        subgraph_grad([x], [x], start=[x])


def test_disconnected_type_refuses_assignment():
    with pytest.raises(AssertionError, match="DisconnectedType variable is a symbolic placeholder"):
        DisconnectedType().filter_variable(ot.dvector("x"))
    with pytest.raises(TypeError, match="DisconnectedType variable is a symbolic placeholder; it holds no value"):
        DisconnectedType().filter(1.0)
    placeholder = DisconnectedType()()
    assert DisconnectedType().filter_variable(placeholder) is placeholder
