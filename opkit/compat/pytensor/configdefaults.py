"""pytensor.configdefaults: ``config``, opkit's flags as PyTensor code reads them (``cxx`` is the compiler
found, "" when there is none; see opkit.compat.config)."""

from opkit.compat.config import pytensor_config as config

__all__ = ["config"]
