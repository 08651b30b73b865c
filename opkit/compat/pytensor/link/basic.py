"""pytensor.link.basic: ``Container`` and the linker classes (Theano's interface, ``opkit.link.theano_linkers``)."""

from opkit.link.lockstep_linkers import WrapLinker, WrapLinkerMany
from opkit.link.theano_linkers import Container, Linker, LocalLinker, PerformLinker

__all__ = ["Container", "Linker", "LocalLinker", "PerformLinker", "WrapLinker", "WrapLinkerMany"]


class WrapLinker(WrapLinker):  # noqa: F811  (PyTensor's variant of Theano's class)
    """PyTensor's WrapLinker: the wrapper is called as ``wrapper(fgraph, i, node, *thunks)`` (Theano's: without fgraph)."""

    pass_fgraph = True


def WrapLinkerMany(linkers, wrappers):  # noqa: N802, F811
    """PyTensor's WrapLinkerMany: a WrapLinker whose wrapper runs each of `wrappers` in turn, the graph first."""
    def wrapper(*args):
        for function in wrappers:
            function(*args)

    return WrapLinker(linkers, wrapper)
