"""theano.tests: ``unittest_tools`` (opkit.testing's names), loaded on first use as ``theano.tests.unittest_tools``."""

import importlib


def __getattr__(name):
    if name == "unittest_tools":
        return importlib.import_module(f"{__name__}.unittest_tools")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
