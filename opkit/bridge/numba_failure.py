"""The nopython function raising a failed raw call's error (opkit.bridge.pytensor_numba; imports numba).

A module of its own: numba pickles the function around an object-mode block by reference, and the generated
node functions are made by exec, so they have no module to find it in.
"""

import numba

from opkit.bridge.slot_call import raise_last_error


@numba.njit
def failed():
    """Raise the error of the last failed raw call: the op's own exception (object mode, on failure only)."""
    with numba.objmode():
        raise_last_error()
