"""Ops that change how gradients flow and nothing else: zero_grad, disconnected_grad, undefined_grad,
grad_clip, grad_scale (Theano's and PyTensor's).

Each computes its input unchanged (a view, as ViewOp). Only its gradient differs. Compiled graphs do
not keep them: FAST_RUN's first rewrite (``rewrites.gradient_ops``) replaces each with its input.
"""

from __future__ import annotations

from opkit.core.builtin_ops import ViewOp
from opkit.core.gradient_points import zero_gradient
from opkit.core.gradient_types import disconnected_type, grad_undefined
from opkit.core.tensor.elementwise.elemwise_math import clip


class GradientOp(ViewOp):
    """The identity forward; subclasses define the gradient. ``forward_identity`` lets rewrites drop it."""

    forward_identity = True

    def __str__(self):
        return type(self).__name__


class ZeroGrad(GradientOp):
    """Its gradient is zero (the expression is a constant for grad, which still walks through it)."""

    def grad(self, inputs, output_grads):
        return [zero_gradient(inputs[0])]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else zero_gradient(eval_points[0])]


class DisconnectedGrad(GradientOp):
    """Its input is disconnected from its output, for grad: nothing flows back through it."""

    def grad(self, inputs, output_grads):
        return [disconnected_type()]

    def connection_pattern(self, node):
        return [[False]]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else zero_gradient(eval_points[0])]


class UndefinedGrad(GradientOp):
    """Its gradient is undefined: grad raises when the gradient of a variable asked for goes through it."""

    def grad(self, inputs, output_grads):
        return [grad_undefined(self, 0, inputs[0])]

    def R_op(self, inputs, eval_points):
        return [None]


class GradClip(GradientOp):
    """Its gradient is the output's gradient clipped to [clip_lower_bound, clip_upper_bound]."""

    __props__ = ("clip_lower_bound", "clip_upper_bound")

    def __init__(self, clip_lower_bound, clip_upper_bound):
        if not clip_upper_bound >= clip_lower_bound:
            raise ValueError(f"grad_clip: the upper bound {clip_upper_bound!r} must be >= the lower bound "
                             f"{clip_lower_bound!r}")
        self.clip_lower_bound = clip_lower_bound
        self.clip_upper_bound = clip_upper_bound

    def grad(self, inputs, output_grads):
        return [clip(output_grads[0], self.clip_lower_bound, self.clip_upper_bound)]


class GradScale(GradientOp):
    """Its gradient is the output's gradient times `multiplier`."""

    __props__ = ("multiplier",)

    def __init__(self, multiplier):
        self.multiplier = multiplier

    def grad(self, inputs, output_grads):
        return [output_grads[0] * self.multiplier]


zero_grad_ = ZeroGrad()
disconnected_grad_ = DisconnectedGrad()
undefined_grad_ = UndefinedGrad()


def zero_grad(x):
    """Return `x`, whose gradient is zero (grad still goes through it, with zeros)."""
    return zero_grad_(x)


def disconnected_grad(x):
    """Return `x`, disconnected for grad: no gradient flows back through it (faster than zero_grad)."""
    return disconnected_grad_(x)


def undefined_grad(x):
    """Return `x`, whose gradient is undefined: grad raises if a gradient asked for needs it."""
    return undefined_grad_(x)


def grad_clip(x, lower_bound, upper_bound):
    """Return `x`, whose gradient is clipped to [lower_bound, upper_bound] elementwise."""
    return GradClip(lower_bound, upper_bound)(x)


def grad_scale(x, multiplier):
    """Return `x`, whose gradient is multiplied by `multiplier` (-1 reverses it)."""
    return GradScale(multiplier)(x)


__all__ = ["DisconnectedGrad", "GradClip", "GradScale", "GradientOp", "UndefinedGrad", "ZeroGrad",
           "disconnected_grad", "disconnected_grad_", "grad_clip", "grad_scale", "undefined_grad",
           "undefined_grad_", "zero_grad", "zero_grad_"]
