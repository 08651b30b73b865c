"""theano.configdefaults: the platform facts Theano's code reads (bit widths)."""

import struct


def local_bitwidth():
    """Return the width of a pointer in bits (64 on a 64-bit Python)."""
    return 8 * struct.calcsize("P")


def python_int_bitwidth():
    """Return the width of a C long in bits (what Theano took a Python int's width to be)."""
    return 8 * struct.calcsize("l")


__all__ = ["local_bitwidth", "python_int_bitwidth"]
