"""pytensor.sparse: opkit has no sparse types; ``SparseTensorType(...)`` raises NotImplementedError naming it."""


class SparseTensorType:
    def __init__(self, format, dtype=None, *args, **kwargs):
        raise NotImplementedError(f"pytensor.sparse.SparseTensorType({format!r}): opkit has no sparse types")


__all__ = ["SparseTensorType"]
