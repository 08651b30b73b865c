"""Per-call cost of a PyMC model's log-density and gradient whose mean is a bridged opkit op (issue 37, item 5).

    python benchmarks/figure_bridge_pymc.py [--quick]     # a Python >= 3.12 with PyMC installed

The model: 200 observations y ~ Normal(mean, sigma), w ~ Normal(0, 1) of 200 entries, sigma ~ HalfNormal(1),
with the mean ``w * x`` for the observed covariates x:
- opkit: the mean is ``as_pytensor_op(VectorTimesVector)(w, x)``, the tutorial's op (C code) with infer_shape and a
  grad that applies the op again, so its gradient is a second bridged node; PyTensor's numba backend calls the op's
  C through opkit's raw-buffer handler (opkit.bridge.pytensor_numba);
- pytensor (the baseline): the same model with the mean ``w * x``, PyTensor's own ops;
- object mode: the bridged model as PyTensor's numba backend ran it before (the op's perform in object mode).
Each contender is ``model.logp_dlogp_function()`` called on one point, as PyMC's NUTS calls it.
Target: at most 1.2x the pure-PyTensor model. Needs PyMC (PyMC 6 needs Python >= 3.12): the figure is skipped
where it is not installed.
"""

from __future__ import annotations

import pathlib
import sys

from context import Context
from needs import FigureSkipped, require  # noqa: F401  (FigureSkipped: where this figure's skip is defined)
from example_ops import shaped_vector_times_vector
from report import OPKIT, Figure, Target
from timing import call_sampler, interleave

PURE = "pytensor"
OBJECT_MODE = "object mode"
SIZE = 200


def model(pm, mean, xs, ys):
    """Return the PyMC model whose mean is `mean(w, x)`."""
    import pytensor.tensor as pt

    with pm.Model() as m:
        w = pm.Normal("w", 0.0, 1.0, shape=len(xs))
        sigma = pm.HalfNormal("sigma", 1.0)
        pm.Normal("y", mean(w, pt.as_tensor(xs)), sigma, observed=ys)
    return m


def _logp_dlogp(m):
    function = m.logp_dlogp_function(ravel_inputs=True)
    function.set_extra_values({})
    from pymc.blocking import DictToArrayBijection

    return function, DictToArrayBijection.map(m.initial_point()).data


def _samplers(ctx: Context):
    require("pymc")
    import pymc as pm

    import numpy as np

    from opkit.bridge import pytensor_numba
    from opkit.bridge.pytensor import as_pytensor_op

    rng = np.random.default_rng(0)
    xs = rng.normal(size=SIZE)
    ys = 0.7 * xs + rng.normal(0.0, 0.5, size=SIZE)
    op = as_pytensor_op(shaped_vector_times_vector())
    functions = {OPKIT: _logp_dlogp(model(pm, op, xs, ys)), PURE: _logp_dlogp(model(pm, lambda w, x: w * x, xs, ys))}
    direct = pytensor_numba.direct_function
    pytensor_numba.direct_function = _object_mode
    try:
        functions[OBJECT_MODE] = _logp_dlogp(model(pm, lambda w, x: op(w, x) + 0.0, xs, ys))
    finally:
        pytensor_numba.direct_function = direct
    expected = functions[PURE][0](functions[PURE][1])
    for name, (function, point) in functions.items():
        got = function(point)
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-12, err_msg=name)
        np.testing.assert_allclose(got[1], expected[1], rtol=1e-12, err_msg=name)
    return {name: call_sampler(function, (point,), ctx.budget) for name, (function, point) in functions.items()}


def _object_mode(op, node):
    from opkit.bridge.pytensor_numba import NotDirect

    raise NotDirect(f"{op}: object mode, as before the numba bridge (the benchmark's comparison)")


def bridge_pymc(ctx: Context) -> Figure:
    stats = interleave(_samplers(ctx), ctx.rounds(30, 7))
    notes = [f"logp and gradient of a PyMC model, {SIZE} observations, PyTensor's numba backend, one point "
             "(model.logp_dlogp_function)"]
    return Figure("bridge_pymc", f"PyMC logp+grad with a bridged opkit op, {SIZE} observations", "us", stats, PURE,
                  Target("ratio", 1.2), notes)


FIGURES = {"bridge_pymc": bridge_pymc}


def main(argv=None):
    import argparse
    import logging
    import tempfile

    from context import prepare_environment
    from report import detail_table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, shorter samples")
    args = parser.parse_args(argv)
    logging.getLogger("opkit.bridge.pytensor_numba").setLevel(logging.ERROR)  # the object-mode contender's reason
    with tempfile.TemporaryDirectory(prefix="opkit-bench-pymc-") as work:
        ctx = Context(quick=args.quick, workdir=pathlib.Path(work))
        prepare_environment(ctx)
        figure = bridge_pymc(ctx)
        print(detail_table(figure))
        for name in figure.stats:
            print(f"  {name}: {figure.stats[name].median:.2f} us, {figure.ratio(name):.2f}x the pure-PyTensor model")


if __name__ == "__main__":
    main()
