"""theano.configparser: ``change_flags`` (opkit.config's: a context manager and a decorator)."""

from opkit.config import config

change_flags = config.change_flags

__all__ = ["change_flags"]
