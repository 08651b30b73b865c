"""opkit.testing: tools to test ops (the counterpart of theano.tests.unittest_tools).

Names resolve on first use, so loading the pytest plugin (opkit.testing.pytest_plugin)
does not import opkit's core.
"""

# eager: the submodule opkit.testing.verify_grad would shadow a lazy name
from opkit.testing.verify_grad import verify_grad

from opkit.lazy import lazy_names as _lazy_names

_LAZY = {
    "InferShapeTester": "opkit.testing.infer_shape",
    "InferShapeError": "opkit.testing.infer_shape",
    "RepeatedDimensionWarning": "opkit.testing.infer_shape",
    "GradientError": "opkit.testing.verify_grad",
    "numeric_grad": "opkit.testing.verify_grad",
    "RopLopChecker": "opkit.testing.rop_lop",
    "RopLopError": "opkit.testing.rop_lop",
    "BreakRop": "opkit.testing.rop_lop",
    "break_op": "opkit.testing.rop_lop",
    "assert_allclose": "opkit.testing.compare",
    "WrongValueError": "opkit.testing.compare",
    "OpTestCase": "opkit.testing.case",
    "fetch_seed": "opkit.testing.case",
    "seed_rng": "opkit.testing.case",
    "DEFAULT_SEED": "opkit.testing.case",
}
_ALIASES = {"RopLop_checker": "RopLopChecker"}  # the name Theano's test_rop used

__all__ = sorted([*_LAZY, *_ALIASES, "verify_grad"])


__getattr__, __dir__ = _lazy_names(globals(), _LAZY, aliases=_ALIASES, listing=__all__)
