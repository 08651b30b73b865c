"""pytensor.tensor.elemwise: ``Elemwise``, ``DimShuffle`` and ``CAReduce`` (the tuple of opkit's reductions)."""

from opkit.compat.theano.tensor.elemwise import CAReduce, DimShuffle, Elemwise

__all__ = ["CAReduce", "DimShuffle", "Elemwise"]
