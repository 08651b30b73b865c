"""Seeded random numbers for op tests, and the test-case base that works under pytest and unittest."""

from __future__ import annotations

import functools
import inspect
import unittest

import numpy as np

DEFAULT_SEED = 666
"""The seed every opkit test tool starts from, so a failure reproduces."""


def fetch_seed(pseed=None):
    """Return `pseed` if given, else DEFAULT_SEED."""
    return DEFAULT_SEED if pseed is None else int(pseed)


def seed_rng(pseed=None):
    """Seed numpy's global random generator (numpy.random.rand & co.) and return the seed."""
    seed = fetch_seed(pseed)
    np.random.seed(seed)
    return seed


def as_random_state(rng):
    """Return a numpy RandomState or Generator for `rng` (None: seeded with DEFAULT_SEED; an int: that seed)."""
    if rng is None or isinstance(rng, (int, np.integer)):
        return np.random.RandomState(fetch_seed(rng))
    if isinstance(rng, (np.random.RandomState, np.random.Generator)):
        return rng
    if rng is np.random:
        return np.random.mtrand._rand
    raise TypeError(f"rng must be None, an int seed, a numpy RandomState or Generator, not {rng!r}")


def uniform(rng, shape, dtype, low=0.0, high=1.0):
    """Return uniform random numbers of `shape` and `dtype` from a RandomState or Generator."""
    return np.asarray(rng.uniform(low, high, size=shape), dtype=dtype)


def _takes_no_argument(function):
    """Return True for a method written ``def setup_method(self)`` (PyTensor's style)."""
    parameters = list(inspect.signature(function).parameters.values())[1:]
    return not any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in parameters)


def _setup_wrapper(function):
    """Wrap a subclass's setup/teardown_method: it takes pytest's method argument or not, and runs once per test.

    pytest calls it on a unittest.TestCase, and setUp/tearDown call it for plain
    unittest runs: under pytest the second call finds it has run already.
    """
    no_argument = _takes_no_argument(function)
    ran = f"_opkit_ran_{id(function)}"

    @functools.wraps(function)
    def wrapper(self, method=None):
        if ran in self.__dict__:
            return None
        self.__dict__[ran] = True
        return function(self) if no_argument else function(self, method)

    wrapper._opkit_wrapped = True
    return wrapper


class OpTestCase(unittest.TestCase):
    """Base of the op-testing classes: a unittest.TestCase that pytest also sets up.

    Before each test, numpy's global generator is seeded and ``self.rng`` is
    a RandomState with the same seed. pytest calls ``setup_method`` and then
    ``setUp``; unittest calls ``setUp``: the preparation runs once either way,
    so a subclass may extend whichever it likes with ``super()``. A subclass's
    ``setup_method(self)`` (PyTensor's style, no method argument) is wrapped to
    accept the test method pytest passes to unittest.TestCase classes.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in ("setup_method", "teardown_method"):
            own = cls.__dict__.get(name)
            if inspect.isfunction(own) and not getattr(own, "_opkit_wrapped", False):
                setattr(cls, name, _setup_wrapper(own))

    def setUp(self):
        self._prepare()
        self.setup_method(None)  # a subclass's PyTensor-style setup runs under plain unittest too (once)

    def tearDown(self):
        self.teardown_method(None)

    def teardown_method(self, method=None):
        """Nothing to undo here; subclasses may extend it (PyTensor's style, with or without `method`)."""

    def setup_method(self, method=None):
        self._prepare()

    def _prepare(self):
        if self.__dict__.get("_opkit_prepared"):
            return
        self._opkit_prepared = True
        self.rng = np.random.RandomState(seed_rng())
        self.prepare_fixture()

    def prepare_fixture(self):
        """Set the attributes a checker needs (called once per test, after seeding)."""
