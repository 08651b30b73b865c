"""pytensor.gradient: opkit.gradient's names (``grad``, ``Lop``, ``Rop``, ``verify_grad``, ``DisconnectedType``...)."""

from opkit.gradient import *  # noqa: F403
from opkit.gradient import __all__  # noqa: F401
