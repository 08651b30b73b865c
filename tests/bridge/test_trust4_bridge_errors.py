"""Bridge errors name the op and say what it lacks, never a raw AttributeError (Trust 4, item 10).

The tutorial's VectorTimesVector (examples/vector_times_vector) has no grad: torch's
``loss.backward()`` through it raised ``AttributeError: 'VectorTimesVector' object has
no attribute 'grad'``; it now raises opkit.grad's reason (the op's name, "not
implemented", what to define), as jax.grad, jax.jvp and PyTensor's grad do. An op
without perform or C code, or without R_op, gives its own opkit error on every path.
A wrong-rank input raises make_node's error with the op and the call named, in each
bridge, the original error kept as its cause.
"""

import pathlib
import sys

import numpy as np
import pytest

import opkit.tensor as ot
from opkit.core.graph import Apply
from opkit.core.op import Op
from helpers.pytensor_fixture import pytensor  # noqa: F401 (a fixture)

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tutorial_class():
    """The tutorial's VectorTimesVector: no grad, no R_op, no infer_shape."""
    sys.path.insert(0, str(ROOT / "examples" / "vector_times_vector"))
    try:
        from vector_times_vector.op import VectorTimesVector
    finally:
        sys.path.remove(str(ROOT / "examples" / "vector_times_vector"))
    return VectorTimesVector


@pytest.fixture(scope="module")
def shaped(tutorial_class):
    """The tutorial's op with infer_shape (JAX needs output shapes), still without grad."""

    class ShapedVectorTimesVector(tutorial_class):
        def infer_shape(self, node, input_shapes):
            return [input_shapes[0]]

    return ShapedVectorTimesVector()


class Bare(Op):
    """An op with make_node and infer_shape only: no perform, no C code, no grad, no R_op."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]


NO_GRAD = r"grad method for input 0 .* of the {name} op is not implemented.*Define grad\(inputs, output_grads\)"


def _no_attribute_error(excinfo):
    chain, exc = [], excinfo.value
    while exc is not None:
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    assert not any(isinstance(e, AttributeError) for e in chain), chain


def test_torch_backward_through_an_op_without_grad_names_the_op(tutorial_class):
    torch = pytest.importorskip("torch")
    from opkit.bridge.torch import as_torch_op

    x = torch.ones(3, dtype=torch.float64, requires_grad=True)
    loss = as_torch_op(tutorial_class())(x, x).sum()
    with pytest.raises(NotImplementedError, match=NO_GRAD.format(name="VectorTimesVector")) as excinfo:
        loss.backward()
    assert "the gradient of VectorTimesVector for input 0" in str(excinfo.value)
    _no_attribute_error(excinfo)


def test_torch_backward_for_an_input_that_needs_no_gradient_still_runs(tutorial_class):
    """Only an input torch asks a gradient for raises: the other one's missing grad is not an error."""
    torch = pytest.importorskip("torch")
    from opkit.bridge.torch import as_torch_op

    x = torch.ones(3, dtype=torch.float64)
    y = torch.ones(3, dtype=torch.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="for input 1"):
        as_torch_op(tutorial_class())(x, y).sum().backward()


@pytest.mark.parametrize("transform", ["grad", "jvp"])
def test_jax_derivatives_of_an_op_without_grad_name_the_op(shaped, transform):
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    from opkit.bridge.jax import as_jax_op

    f = as_jax_op(shaped)
    x = jnp.ones(3, dtype=jnp.float32)
    with pytest.raises(Exception, match=NO_GRAD.format(name="ShapedVectorTimesVector")) as excinfo:
        if transform == "grad":
            jax.grad(lambda a: f(a, a).sum())(x)
        else:
            jax.jvp(lambda a: f(a, a), (x,), (x,))
    _no_attribute_error(excinfo)


def test_pytensor_grad_and_rop_of_an_op_without_grad_name_the_op(tutorial_class, pytensor):
    import pytensor.tensor as pt
    from opkit.bridge.pytensor import as_pytensor_op

    x = pt.dvector("x")
    y = as_pytensor_op(tutorial_class())(x, x)
    for compute in (lambda: pytensor.grad(y.sum(), x), lambda: pytensor.gradient.Rop(y, x, x)):
        with pytest.raises(NotImplementedError, match="the gradient of VectorTimesVector: the opkit op defines "
                                                      "neither grad nor L_op") as excinfo:
            compute()
        _no_attribute_error(excinfo)


def test_an_op_without_perform_or_c_code_says_so_in_every_bridge(pytensor):
    message = r"Bare \(.*Bare\) has neither perform\(\) nor C code"
    torch = pytest.importorskip("torch")
    from opkit.bridge.torch import as_torch_op

    with pytest.raises(NotImplementedError, match=message):
        as_torch_op(Bare())(torch.ones(3, dtype=torch.float64))
    jnp = pytest.importorskip("jax.numpy")
    from opkit.bridge.jax import as_jax_op

    with pytest.raises(NotImplementedError, match=message):
        as_jax_op(Bare())(jnp.ones(3, dtype=jnp.float32))
    import pytensor.tensor as pt
    from opkit.bridge.pytensor import as_pytensor_op

    x = pt.dvector()
    with pytest.raises(NotImplementedError, match=message):
        pytensor.function([x], as_pytensor_op(Bare())(x))(np.ones(3))


def test_a_wrong_rank_names_the_op_and_the_call_in_every_bridge(tutorial_class, shaped, pytensor):
    torch = pytest.importorskip("torch")
    jnp = pytest.importorskip("jax.numpy")
    import pytensor.tensor as pt
    from opkit.bridge.jax import as_jax_op
    from opkit.bridge.pytensor import as_pytensor_op
    from opkit.bridge.torch import as_torch_op

    calls = {
        "as_jax_op(ShapedVectorTimesVector) called on (float32 of rank 2, float32 of rank 1)":
            lambda: as_jax_op(shaped)(jnp.ones((2, 3), jnp.float32), jnp.ones(3, jnp.float32)),
        "as_pytensor_op(VectorTimesVector) called on (float64 of rank 2, float64 of rank 1)":
            lambda: as_pytensor_op(tutorial_class())(pt.dmatrix(), pt.dvector()),
        "as_torch_op(VectorTimesVector) called on (float64 of rank 2, float64 of rank 1)":
            lambda: as_torch_op(tutorial_class())(torch.ones((2, 3), dtype=torch.float64),
                                                  torch.ones(3, dtype=torch.float64)),
    }
    for call, run in calls.items():
        with pytest.raises(TypeError) as excinfo:
            run()
        text = str(excinfo.value)
        assert call in text, text
        assert "x must be a 1-d vector" in text or "1-d" in text, text
        assert isinstance(excinfo.value.__cause__, TypeError), "the refusal is kept as the cause"


def test_pytensor_differentiates_an_op_that_defines_pullback_only(pytensor):
    """PyTensor's name for L_op: opkit.grad takes it, so the PyTensor bridge does too (not 'defines neither')."""
    import pytensor.tensor as pt
    from opkit.bridge.pytensor import as_pytensor_op

    class Double(Op):
        __props__ = ()

        def make_node(self, x):
            x = ot.as_tensor_variable(x)
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = 2 * inputs[0]

        def pullback(self, inputs, outputs, cotangents):
            return [2 * cotangents[0]]

    x = pt.dvector("x")
    g = pytensor.function([x], pytensor.grad(as_pytensor_op(Double())(x).sum(), x))(np.ones(3))
    np.testing.assert_array_equal(g, [2.0, 2.0, 2.0])


def test_a_python_number_an_op_does_not_take_is_refused_naming_the_op_and_the_call(tutorial_class, shaped):
    """The tutorial's make_node reads x.type: a Python number in its place fails there, named as the call."""
    torch = pytest.importorskip("torch")
    jnp = pytest.importorskip("jax.numpy")
    from opkit.bridge.jax import as_jax_op
    from opkit.bridge.torch import as_torch_op

    calls = {"as_jax_op(ShapedVectorTimesVector)": lambda: as_jax_op(shaped)(jnp.ones(3, jnp.float32), 2.0),
             "as_torch_op(VectorTimesVector)": lambda: as_torch_op(tutorial_class())(torch.ones(3), 2.0)}
    for call, run in calls.items():
        with pytest.raises(AttributeError) as excinfo:
            run()
        text = str(excinfo.value)
        assert f"{call} called on (float32 of rank 1, Python float 2.0)" in text and "make_node refused" in text
        assert isinstance(excinfo.value.__cause__, AttributeError)
