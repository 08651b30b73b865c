"""Every PyTensor variable kind reaches a bridged op as the opkit type it expects (Trust 4, item 9).

PyMC passes observed data and covariates as constants: ``pytensor.grad`` through
``as_pytensor_op(op)(a, pt.as_tensor(xs))`` gave the op's grad a bare opkit
``Constant`` (no dtype, no operators), and ``g * x`` raised AttributeError. A
constant now mirrors as the type's own constant (a TensorConstant of the same
TensorType), as shared variables, random variables and pm.Data mirror as the
type's variables; and back: opkit constants a gradient makes become PyTensor
constants of the type's own class. The PyMC model test samples where PyMC is
installed (PyMC 6 needs Python >= 3.12; CI installs it there).
"""

import numpy as np
import pytest

import opkit.tensor as ot
from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.scalar_type import ScalarType
from opkit.core.tensor.types.variable import TensorConstant, TensorVariable
from helpers.pytensor_fixture import pytensor  # noqa: F401 (a fixture)

# PyTensor is imported by the `pytensor` fixture (tests/bridge/conftest.py: its compile directories in a
# temporary directory), so no module-level import of it or of opkit.bridge.pytensor here.


@pytest.fixture(scope="module")
def pt(pytensor):
    import pytensor.tensor

    return pytensor.tensor


@pytest.fixture(scope="module")
def bridge(pytensor):
    import opkit.bridge.pytensor
    import opkit.bridge.pytensor_graph

    return opkit.bridge.pytensor, opkit.bridge.pytensor_graph


XS = np.array([0.5, 1.0, 1.5, 2.0])


class Scale(Op):
    """a * x for a scalar a and a vector x; its grad multiplies the output gradient by the inputs."""

    __props__ = ()

    def make_node(self, a, x):
        a, x = ot.as_tensor_variable(a), ot.as_tensor_variable(x)
        return Apply(self, [a, x], [x.type()])

    def perform(self, node, inputs, output_storage):
        a, x = inputs
        output_storage[0][0] = np.asarray(a * x, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, node, input_shapes):
        return [input_shapes[1]]

    def grad(self, inputs, output_grads):
        a, x = inputs
        (g,) = output_grads
        return [(g * x).sum(), g * a]


@pytest.mark.parametrize("kind", ["constant", "named constant", "shared", "computed", "variable"])
def test_grad_through_an_op_fed_any_variable_kind_matches_the_pure_pytensor_graph(kind, pytensor, pt, bridge):
    as_pytensor_op = bridge[0].as_pytensor_op
    a = pt.dscalar("a")
    x = pt.dvector("x")
    value = {"constant": pt.as_tensor(XS), "named constant": pt.constant(XS, name="xs"),
             "shared": pytensor.shared(XS, name="xs_shared"), "computed": pt.exp(pt.log(pt.as_tensor(XS))),
             "variable": x}[kind]
    inputs = [a, x] if kind == "variable" else [a]
    bridged = as_pytensor_op(Scale())(a, value)
    pure = a * value
    args = [2.0, XS] if kind == "variable" else [2.0]
    for wrt in [a] + ([x] if kind == "variable" else []):
        got = pytensor.function(inputs, pytensor.grad((bridged ** 2).sum(), wrt))(*args)
        expected = pytensor.function(inputs, pytensor.grad((pure ** 2).sum(), wrt))(*args)
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(pytensor.function(inputs, bridged)(*args), 2.0 * XS)


def test_grad_through_a_random_variable_input(pytensor, pt, bridge):
    as_pytensor_op = bridge[0].as_pytensor_op
    a = pt.dscalar("a")
    rng = pytensor.shared(np.random.default_rng(3))
    draws = pt.random.normal(size=4, rng=rng)
    got, bridged_draws = pytensor.function([a], [pytensor.grad(as_pytensor_op(Scale())(a, draws).sum(), a),
                                                 draws])(2.0)
    np.testing.assert_allclose(got, bridged_draws.sum(), rtol=1e-12)


def test_a_constant_mirrors_as_the_tensor_constant_of_its_type(pytensor, pt, bridge):
    mirror_variable = bridge[1].mirror_variable
    mirrored = mirror_variable(pt.constant(XS.astype("float32"), name="xs"), "a test")
    assert isinstance(mirrored, TensorConstant)
    assert mirrored.type == ot.TensorType("float32", shape=(4,)) and mirrored.dtype == "float32"
    assert mirrored.name == "xs" and np.array_equal(mirrored.data, XS.astype("float32"))
    assert (mirrored * 2).type.dtype == "float32"  # operators, as an op's grad uses them
    shared = mirror_variable(pytensor.shared(XS), "a test")
    assert isinstance(shared, TensorVariable) and not isinstance(shared, TensorConstant)
    scalar = mirror_variable(pytensor.scalar.constant(1.5), "a test")
    assert isinstance(scalar.type, ScalarType) and scalar.data == 1.5


def test_opkit_constants_come_back_as_pytensor_constants_of_their_type(pytensor, bridge):
    to_pytensor_graph = bridge[1].to_pytensor_graph
    from pytensor.graph.basic import Constant as PtConstant
    from pytensor.scalar.basic import ScalarConstant as PtScalarConstant
    from pytensor.tensor.variable import TensorConstant as PtTensorConstant

    tensor, = to_pytensor_graph([ot.constant(XS)], [], "a test")
    assert isinstance(tensor, PtTensorConstant) and np.array_equal(tensor.data, XS)
    scalar, = to_pytensor_graph([ScalarType("float64").make_constant(2.5)], [], "a test")
    assert isinstance(scalar, PtScalarConstant) and isinstance(scalar, PtConstant) and scalar.data == 2.5


def test_a_pymc_model_with_an_opkit_op_on_observed_constants_samples_as_the_pure_model(pytensor, pt, bridge):
    """PyMC: mu's posterior with the bridged op fed constant covariates equals the pure-PyTensor model's."""
    pm = pytest.importorskip("pymc", reason="PyMC is not installed (PyMC 6 needs Python >= 3.12)")
    as_pytensor_op = bridge[0].as_pytensor_op
    rng = np.random.default_rng(11)
    ys = 1.7 * XS + rng.normal(0.0, 0.3, size=XS.shape)
    means = {}
    for name in ("bridged", "pure", "data"):
        with pm.Model():
            mu = pm.Normal("mu", 0.0, 10.0)
            if name == "data":
                xs = pm.Data("xs", XS)
                prediction = as_pytensor_op(Scale())(mu, xs)
            else:
                xs = pt.as_tensor(XS)
                prediction = as_pytensor_op(Scale())(mu, xs) if name == "bridged" else mu * xs
            pm.Normal("y", prediction, 0.3, observed=ys)
            trace = pm.sample(draws=400, tune=400, chains=1, cores=1, random_seed=5, progressbar=False,
                              compute_convergence_checks=False)
        means[name] = float(trace.posterior["mu"].mean())
    # The exact posterior mean of mu (normal prior, normal likelihood).
    precision = 1 / 10.0 ** 2 + (XS ** 2).sum() / 0.3 ** 2
    exact = (XS * ys).sum() / 0.3 ** 2 / precision
    sd = precision ** -0.5
    assert abs(means["bridged"] - means["pure"]) < 1e-6 + 0.05 * sd, means
    assert abs(means["data"] - means["pure"]) < 1e-6 + 0.05 * sd, means
    assert abs(means["pure"] - exact) < 0.5 * sd, (means, exact)
