"""RopLopChecker: check an op's R_op and gradient against Jacobians.

R_op is checked exactly against the Jacobian assembled from Lop (one
vector-Jacobian product per output element); Lop, and so the op's grad,
is checked against a finite-difference Jacobian.
"""

from __future__ import annotations

import numpy as np

from opkit.config import config
from opkit.core.gradient import Lop, Rop, grad_undefined
from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.tensor.types.constructors import matrix, vector
from opkit.core.tensor.types.type import TensorType
from opkit.link.function import function
from opkit.testing.case import OpTestCase, uniform
from opkit.testing.compare import WrongValueError, assert_allclose
from opkit.testing.verify_grad import DEFAULT_TOL, numeric_jacobian


class RopLopError(AssertionError):
    """Rop or Lop of an expression disagrees with its Jacobian."""

    def __init__(self, method, message, expected=None, value=None):
        self.method = method
        self.expected = expected
        self.value = value
        super().__init__(f"{method} mismatch: {message}")


class BreakRop(Op):
    """Identity with neither a gradient nor an R_op: cuts every differentiable path through it."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]

    def grad(self, inputs, output_grads):
        return [grad_undefined(self, 0, inputs[0])]

    def R_op(self, inputs, eval_points):
        return [None]


break_op = BreakRop()


class RopLopChecker(OpTestCase):
    """Base class giving tests ``check_rop_lop``, ``check_mat_rop_lop`` and ``check_nondiff_rop``.

    Sets ``self.x``/``self.v`` (vectors of length ``self.in_shape``) and
    ``self.mx``/``self.mv`` (matrices of shape ``self.mat_in_shape``), of
    dtype config.floatX.
    """

    def prepare_fixture(self):
        self.x, self.v = vector("x"), vector("v")
        self.in_shape = (5 + self.rng.randint(3),)
        self.mx, self.mv = matrix("mx"), matrix("mv")
        self.mat_in_shape = (5 + self.rng.randint(3), 5 + self.rng.randint(3))

    def check_nondiff_rop(self, y):
        """Check that Rop of `y` with respect to ``self.x`` raises (ValueError or NotImplementedError)."""
        try:
            result = Rop(y, self.x, self.v)
        except (ValueError, NotImplementedError):
            return
        raise RopLopError("Rop", f"Rop of a non-differentiable expression should raise ValueError, "
                          f"but returned {result}.\nHint: an R_op must return None for outputs without "
                          "a differentiable path to its inputs.")

    def check_rop_lop(self, y, out_shape):
        """Check Rop and Lop of `y`, an expression of the vector ``self.x`` whose value has `out_shape`."""
        self._check(y, self.x, self.v, self.in_shape, out_shape)

    def check_mat_rop_lop(self, y, out_shape):
        """Check Rop and Lop of `y`, an expression of the matrix ``self.mx`` whose value has `out_shape`."""
        self._check(y, self.mx, self.mv, self.mat_in_shape, out_shape)

    def _check(self, y, x, v, in_shape, out_shape):
        out_shape = tuple(out_shape)
        vx = uniform(self.rng, in_shape, config.floatX)
        forward = function([x], y, on_unused_input="ignore")
        if np.shape(forward(vx)) != out_shape:
            raise ValueError(f"out_shape is {out_shape} but y evaluates to shape {np.shape(forward(vx))}")
        u = TensorType(y.dtype, (None,) * y.ndim)("u")
        lop_fn = function([x, u], Lop(y, x, u), on_unused_input="ignore")
        size = int(np.prod(out_shape))
        jacobian = np.stack([np.ravel(lop_fn(vx, np.eye(size, dtype=y.dtype)[k].reshape(out_shape)))
                             for k in range(size)]) if size else np.zeros((0, vx.size))
        vu = uniform(self.rng, out_shape, y.dtype)
        tol = DEFAULT_TOL.get(str(vx.dtype), 1e-4)
        numeric = numeric_jacobian(forward, [vx], 0)
        _compare("Lop", "Lop(y, x, u) against u times the finite-difference Jacobian",
                 (vu.reshape(-1) @ numeric).reshape(in_shape), lop_fn(vx, vu), rtol=tol, atol=tol)
        vv = uniform(self.rng, in_shape, config.floatX)
        rop_fn = function([x, v], Rop(y, x, v), on_unused_input="ignore")
        _compare("Rop", "Rop(y, x, v) against the Jacobian (from Lop) times v",
                 (jacobian @ vv.reshape(-1)).reshape(out_shape), rop_fn(vx, vv))


def _compare(method, what, expected, value, rtol=None, atol=None):
    try:
        assert_allclose(expected, value, rtol=rtol, atol=atol)
    except WrongValueError as exc:
        raise RopLopError(method, f"{what}\n{exc}", expected=expected, value=value) from None
