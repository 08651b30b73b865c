"""pytensor.tensor.random: opkit has no random variables; ``RandomStream(...)`` raises NotImplementedError."""


class RandomStream:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("pytensor.tensor.random.RandomStream: opkit has no random variables")


__all__ = ["RandomStream"]
