"""pytensor.link.basic: ``Container`` and the linker classes (Theano's interface, ``opkit.link.theano_linkers``)."""

from opkit.link.theano_linkers import Container, Linker, LocalLinker, PerformLinker, WrapLinker, WrapLinkerMany

__all__ = ["Container", "Linker", "LocalLinker", "PerformLinker", "WrapLinker", "WrapLinkerMany"]
