"""pytensor.link.numba: ``NumbaLinker``, a class no opkit linker is an instance of (opkit has no numba back-end).

PyTensor's tests ask ``isinstance(get_default_mode().linker, NumbaLinker)`` to skip what its numba back-end
does not do; here that is always False.
"""


class NumbaLinker:
    """PyTensor's numba linker; opkit has none, so constructing one raises NotImplementedError."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("pytensor.link.numba.NumbaLinker: opkit has no numba back-end")


__all__ = ["NumbaLinker"]
