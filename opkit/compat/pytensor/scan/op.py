"""pytensor.scan.op: ``Scan``, a class no opkit op is an instance of (opkit has no loop op)."""

from opkit.core.op import Op


class Scan(Op):
    """PyTensor's loop op; opkit has none, so ``isinstance(node.op, Scan)`` is always False."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("pytensor.scan.op.Scan: opkit has no scan op")


__all__ = ["Scan"]
