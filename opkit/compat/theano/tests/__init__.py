"""theano.tests: ``unittest_tools`` (opkit.testing's names), loaded on first use as ``theano.tests.unittest_tools``."""

from opkit.lazy import lazy_names as _lazy_names

__getattr__, __dir__ = _lazy_names(globals(), submodules={"unittest_tools": "opkit.compat.theano.tests.unittest_tools"})
