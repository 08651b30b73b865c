"""theano.gof.link: the linker protocol (``Linker``, ``LocalLinker``, ``Container``) and PerformLinker, WrapLinker."""

from opkit.link.lockstep_linkers import WrapLinker, WrapLinkerMany
from opkit.link.theano_linkers import Container, Linker, LocalLinker, PerformLinker

__all__ = ["Container", "Linker", "LocalLinker", "PerformLinker", "WrapLinker", "WrapLinkerMany"]
