"""pytensor.graph.rewriting.basic: ``node_rewriter``; opkit runs no user rewrites (see the package's docstring)."""


class NodeRewriter:
    """A function registered as a node rewrite; kept, never run by opkit."""

    def __init__(self, function, tracks):
        self.function = function
        self.tracks = tracks
        self.__name__ = getattr(function, "__name__", "rewrite")

    def transform(self, fgraph, node):
        return self.function(fgraph, node)

    def __call__(self, *args, **kwargs):
        return self.function(*args, **kwargs)


def node_rewriter(tracks, inplace=False, requirements=()):
    """PyTensor's decorator of a local rewrite: returns a NodeRewriter that opkit's modes never apply."""
    return lambda function: NodeRewriter(function, tracks)


__all__ = ["NodeRewriter", "node_rewriter"]
