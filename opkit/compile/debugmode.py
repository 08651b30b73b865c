"""``theano.compile.debugmode`` under opkit: DebugMode and its errors (a thin re-export)."""

from opkit.link.debugmode import (BadDestroyMap, BadThunkOutput, BadViewMap, DebugMode, DebugModeError,
                                  InvalidValueError)

__all__ = ["DebugMode", "DebugModeError", "BadThunkOutput", "BadDestroyMap", "BadViewMap", "InvalidValueError"]
