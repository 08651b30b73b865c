"""``theano.tests.unittest_tools`` under opkit: every name of :mod:`opkit.testing`.

``from opkit.tests.unittest_tools import verify_grad, InferShapeTester`` works as the
Theano import did; the names are the very objects of opkit.testing, resolved on first use.
"""

import opkit.testing as _testing

__all__ = list(_testing.__all__)


def __getattr__(name):
    return getattr(_testing, name)


def __dir__():
    return __all__
