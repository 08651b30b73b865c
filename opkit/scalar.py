"""opkit.scalar: dtype helpers (``theano.scalar.upcast`` ports to ``opkit.scalar.upcast``)."""

from opkit.core.tensor.basic import upcast

__all__ = ["upcast"]
