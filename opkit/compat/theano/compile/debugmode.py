"""theano.compile.debugmode: DebugMode and its errors (opkit's)."""

from opkit.compile.debugmode import *  # noqa: F403
from opkit.compile.debugmode import __all__  # noqa: F401
