"""theano.tests.unittest_tools: opkit.testing's names (``verify_grad``, ``InferShapeTester``, ``fetch_seed``...)
and ``SkipTest`` (unittest's, which nose's was)."""

from unittest import SkipTest

from opkit.testing import *  # noqa: F403
from opkit.testing import __all__ as _names

__all__ = [*_names, "SkipTest"]
