"""pytensor.misc.frozendict: an immutable, hashable dict (the same class as theano.misc.frozendict)."""

from opkit.compat.theano.misc.frozendict import frozendict

__all__ = ["frozendict"]
