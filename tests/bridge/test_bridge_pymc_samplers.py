"""PyMC models with a bridged opkit op sample with every PyMC sampler (issue 37, item 5).

PyTensor's JAX backend runs a bridged op through opkit's JAX bridge (opkit.bridge.pytensor_jax), so
``pm.sample(nuts_sampler="numpyro")`` runs such a model; PyMC's own NUTS runs it through the numba backend,
which calls the op's C directly (opkit.bridge.pytensor_numba). Each posterior mean is compared with the same
model written in PyTensor's own ops (and with the exact posterior). Short chains, a fixed seed. PyMC 6 needs
Python >= 3.12 (CI's second venv installs it, with numpyro and blackjax < 1.3: PyMC 6.4's blackjax path fails
with later blackjax versions whatever the model, a TypeError about progress_bar).
"""

import numpy as np
import pytest

from helpers.pytensor_fixture import pytensor  # noqa: F401 (a fixture)

XS = np.array([0.5, 1.0, 1.5, 2.0])
NOISE = 0.3
PRIOR = 10.0


@pytest.fixture(scope="module")
def pm(pytensor):
    return pytest.importorskip("pymc", reason="PyMC is not installed (PyMC 6 needs Python >= 3.12)")


@pytest.fixture(scope="module")
def op(pytensor):
    """The tutorial's VectorTimesVector (C code) with infer_shape and a grad that applies the op again."""
    from helpers.tutorial_ops import shaped_vector_times_vector

    from opkit.bridge.pytensor import as_pytensor_op

    return as_pytensor_op(shaped_vector_times_vector())


def _observed():
    return 1.7 * XS + np.random.default_rng(11).normal(0.0, NOISE, size=XS.shape)


def _model(pm, mean):
    import pytensor.tensor as pt

    with pm.Model() as model:
        w = pm.Normal("w", 0.0, PRIOR, shape=len(XS))
        pm.Normal("y", mean(w, pt.as_tensor(XS)), NOISE, observed=_observed())
    return model


def _posterior_mean(pm, model, **kwargs):
    with model:
        trace = pm.sample(draws=300, tune=300, chains=1, random_seed=5, progressbar=False,
                          compute_convergence_checks=False, **kwargs)
    return trace.posterior["w"].mean(("chain", "draw")).values


def _exact():
    """The exact posterior mean and standard deviation of each w (normal prior, one normal observation each)."""
    precision = 1 / PRIOR ** 2 + XS ** 2 / NOISE ** 2
    return XS * _observed() / NOISE ** 2 / precision, precision ** -0.5


@pytest.mark.parametrize("sampler", ["pymc", "numpyro", "blackjax"])
def test_a_model_with_a_bridged_op_samples_as_the_pure_model(sampler, pm, op):
    if sampler != "pymc":  # PyMC 6.4's blackjax path needs blackjax < 1.3 (later ones refuse its progress_bar)
        pytest.importorskip(sampler, reason=f"{sampler} is not installed (pip install {sampler})")
    bridged = _posterior_mean(pm, _model(pm, op), nuts_sampler=sampler)
    pure = _posterior_mean(pm, _model(pm, lambda w, x: w * x), nuts_sampler=sampler)
    exact, sd = _exact()
    # the same sampler on the same density: the chains agree to rounding (XLA's arithmetic and the op's C may
    # differ in the last bits, which NUTS can amplify over 300 draws: a tenth of a posterior sd)
    np.testing.assert_allclose(bridged, pure, atol=1e-9 if sampler == "pymc" else 0.1 * sd.max())
    assert np.all(np.abs(bridged - exact) < 0.5 * sd), (bridged, exact, sd)


def test_pymcs_default_sampler_never_runs_the_ops_perform(pm, op, monkeypatch):
    """PyMC's NUTS on the numba backend: the op and its gradient node call the op's C from nopython code."""
    from opkit.bridge.pytensor import PyTensorOp

    def perform(self, node, inputs, output_storage):
        raise AssertionError("the bridged op ran in object mode")

    monkeypatch.setattr(PyTensorOp, "perform", perform)
    model = _model(pm, op)
    function = model.logp_dlogp_function(ravel_inputs=True)
    function.set_extra_values({})
    point = np.linspace(0.5, 2.0, len(XS))
    value, gradient = function(point)
    mean = point * XS
    np.testing.assert_allclose(gradient, -point / PRIOR ** 2 + (_observed() - mean) * XS / NOISE ** 2, rtol=1e-12)
    assert np.isfinite(value)
