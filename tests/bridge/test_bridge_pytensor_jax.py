"""PyTensor's JAX backend runs a bridged op through opkit's JAX bridge (issue 37, item 5): opkit.bridge.pytensor_jax.

``pytensor.function(..., mode="JAX")`` of a graph with a bridged op (and its gradient, which bridges the op
again) gives numpy's numbers; a node with a non-tensor input is refused by name, in the JAX and numba
backends alike (numba: object mode, the reason logged).
"""

import numpy as np
import pytest

from opkit.core.graph import Apply
from opkit.core.op import Op
from helpers.pytensor_fixture import pytensor  # noqa: F401 (a fixture)


@pytest.fixture(scope="module")
def jax_mode(pytensor):
    jax = pytest.importorskip("jax", reason="JAX is not installed (pip install 'opkit-sdk[jax]')")
    jax.config.update("jax_enable_x64", True)
    return "JAX"


@pytest.fixture(scope="module")
def vtv(pytensor):
    from helpers.tutorial_ops import shaped_vector_times_vector

    from opkit.bridge.pytensor import as_pytensor_op

    return as_pytensor_op(shaped_vector_times_vector())


class Filled(Op):
    """A length-3 vector filled with a scalar (a ScalarType input, not a tensor); no C."""

    __props__ = ()

    def make_node(self, a):
        import opkit.tensor as ot

        return Apply(self, [a], [ot.TensorType(a.type.dtype, shape=(3,))()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.full(3, inputs[0], dtype=node.outputs[0].type.dtype)

    def infer_shape(self, node, input_shapes):
        return [(3,)]


def test_the_jax_backend_runs_the_op_and_its_gradient(pytensor, vtv, jax_mode):
    import pytensor.tensor as pt

    x, y = pt.dvector("x"), pt.dvector("y")
    z = vtv(x, y)
    cost = (z ** 2).sum()
    f = pytensor.function([x, y], [z, cost, *pytensor.grad(cost, [x, y])], mode=jax_mode)
    a, b = np.linspace(-1, 2, 5), np.linspace(3, -2, 5)
    product, value, ga, gb = f(a, b)
    np.testing.assert_allclose(product, a * b, rtol=1e-15)
    np.testing.assert_allclose(value, ((a * b) ** 2).sum(), rtol=1e-13)
    np.testing.assert_allclose(ga, 2 * a * b * b, rtol=1e-13)
    np.testing.assert_allclose(gb, 2 * a * b * a, rtol=1e-13)


def test_a_non_tensor_input_is_refused_by_name_in_the_jax_backend(pytensor, jax_mode):
    import pytensor.scalar as ps

    from opkit.bridge.pytensor import as_pytensor_op
    from opkit.bridge.pytensor_jax import funcify

    node = as_pytensor_op(Filled())(ps.float64("a")).owner
    with pytest.raises(NotImplementedError, match=r"PyTensor's JAX backend cannot run Filled: its input 0 is of "
                                                  r"type float64, and opkit's JAX bridge passes only tensors"):
        funcify(node.op, node)


def test_a_non_tensor_input_runs_in_numbas_object_mode_and_says_why(pytensor, caplog):
    pytest.importorskip("numba", reason="numba is not installed: PyTensor's numba backend is not available")
    import logging

    import pytensor.scalar as ps
    from pytensor.compile.mode import Mode

    from opkit.bridge.pytensor import as_pytensor_op

    a = ps.float64("a")
    with caplog.at_level(logging.WARNING, logger="opkit.bridge.pytensor_numba"):
        f = pytensor.function([a], as_pytensor_op(Filled())(a), mode=Mode(linker="numba"))
    assert ("PyTensor's numba backend runs Filled in object mode (about 5 us a call): its input 0 is of type "
            "float64, not a tensor") in caplog.text
    np.testing.assert_array_equal(f(2.5), [2.5, 2.5, 2.5])
