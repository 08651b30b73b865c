"""theano.gof.params_type: ``ParamsType`` and ``Params`` (opkit's)."""

from opkit import Params, ParamsType

__all__ = ["Params", "ParamsType"]
