"""The functions verify_grad compiles: the checked function's output, a random projection's cost, its gradient.

A module of its own: opkit.testing, and so the pytest plugin, loads verify_grad without opkit's core;
verify_grad imports this module when it first checks a gradient.
"""

from __future__ import annotations

import numpy as np

from opkit.core.gradient import grad
from opkit.core.graph import Variable
from opkit.core.tensor.reductions.reduction import sum as tensor_sum
from opkit.core.tensor.types.type import TensorType
from opkit.link.function import function


def cost_and_gradient(fun, pt, mode=None, cast_to_output_type=False):
    """Return (the output's shape at `pt`, the projection's dtype, the cost function, its gradient function).

    The cost is sum(projection * fun(*inputs)); both functions take the inputs, then the projection. The
    gradient function returns the cost's gradient with respect to each input.
    """
    inputs = [TensorType(p.dtype, tuple(1 if s == 1 else None for s in p.shape))(f"input {i}")
              for i, p in enumerate(pt)]
    output = fun(*inputs)
    if not isinstance(output, Variable):
        raise NotImplementedError(f"verify_grad checks a function with one output; {fun} returned {output!r}")
    out_shape = np.shape(function(inputs, output, mode=mode, on_unused_input="ignore")(*[p.copy() for p in pt]))
    proj_dtype = output.dtype if cast_to_output_type and output.dtype == "float32" else "float64"
    projection = TensorType(proj_dtype, (None,) * output.ndim)("random_projection")
    cost = tensor_sum(projection * output)
    cost_fn = function(inputs + [projection], cost, mode=mode, on_unused_input="ignore")
    grad_fn = function(inputs + [projection], grad(cost, inputs, disconnected_inputs="ignore"),
                       mode=mode, on_unused_input="ignore")
    return out_shape, proj_dtype, cost_fn, grad_fn
