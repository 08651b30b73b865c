"""pytensor.graph.rewriting.db: rewrite databases; opkit runs no user rewrites (see the package's docstring)."""


class RewriteDatabase:
    """Registers rewrites; ``query`` (what a mode would run) raises NotImplementedError naming the gap."""

    def __init__(self, *args, **kwargs):
        self.rewrites = {}

    def register(self, name, rewrite, *tags, **kwargs):
        self.rewrites[name] = rewrite
        return rewrite

    def query(self, *tags, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}.query: opkit's modes do not run user rewrites "
                                  f"({', '.join(self.rewrites) or 'none registered'}); opkit has no rewrite database")


class EquilibriumDB(RewriteDatabase):
    """PyTensor's database of rewrites applied until the graph stops changing."""


class SequenceDB(RewriteDatabase):
    """PyTensor's database of rewrites applied in order."""


__all__ = ["EquilibriumDB", "RewriteDatabase", "SequenceDB"]
