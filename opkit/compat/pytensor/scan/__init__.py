"""pytensor.scan: opkit has no loop op. ``scan`` raises NotImplementedError; ``op.Scan`` is a class no op is."""


def scan(*args, **kwargs):
    raise NotImplementedError("pytensor.scan: opkit has no scan op")


__all__ = ["scan"]
