"""pytensor.graph.op: ``Op``, opkit's, and ``HasInnerGraph``, the interface of an op that holds a graph.

opkit has no op of that kind (no OpFromGraph, no Scan); ``HasInnerGraph`` is PyTensor's interface
for code that defines one: ``inner_inputs``, ``inner_outputs``, ``fn`` and ``clone``.
"""

import abc

from opkit.core.op import Op


class HasInnerGraph(abc.ABC):
    """An op whose computation is a graph of its own (PyTensor's interface)."""

    @property
    @abc.abstractmethod
    def fn(self):
        """The compiled inner graph."""

    @property
    @abc.abstractmethod
    def inner_inputs(self):
        """The inner graph's inputs."""

    @property
    @abc.abstractmethod
    def inner_outputs(self):
        """The inner graph's outputs."""

    @abc.abstractmethod
    def clone(self):
        """Return a copy of the op with a copy of its inner graph."""


__all__ = ["HasInnerGraph", "Op"]
