"""pytensor.compile.debug.debugmode: DebugMode and its errors, opkit's; and ``StochasticOrder``."""

from opkit.link.debugmode import (BadDestroyMap, BadThunkOutput, BadViewMap, DebugMode, DebugModeError,
                                  InvalidValueError)


class StochasticOrder(DebugModeError):
    """PyTensor's error for rewrites that give another graph each time they run. opkit's DebugMode runs
    opkit's own rewrites, which are deterministic, and no user rewrites: it never raises this."""


__all__ = ["BadDestroyMap", "BadThunkOutput", "BadViewMap", "DebugMode", "DebugModeError", "InvalidValueError",
           "StochasticOrder"]
