"""A precompiled header's folder, `pch/<digest>/` (opkit.cop.compiledir.layout): what opkit writes there, and
whether the files are usable as they are.

opkit.cop.toolchain.pch builds the header; opkit.cop.store.leftovers removes a folder that fails this check
(a build killed half-way leaves one) without importing the builder, which a warm process never needs.
"""

from __future__ import annotations

from opkit.cop.compiledir.layout import PCH_DIGEST_FILE, PCH_GCH, PCH_HEADER_FILE
from opkit.cop.compiledir.private_fs import read_sealed
from opkit.core.digest import sha256

PCH_HEADER = """// opkit precompiled header: what every generated module includes first.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#ifndef NPY_NO_DEPRECATED_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#endif
#include <numpy/arrayobject.h>
#include <new>
#include <cstddef>
#include <cmath>
"""


def intact(directory) -> bool:
    """Return whether the header and its .gch are there and are what opkit wrote (the .gch's sealed sha256)."""
    try:
        with open(directory / PCH_HEADER_FILE, "rb") as handle:
            if handle.read() != PCH_HEADER.encode():
                return False
        digest = read_sealed(directory / PCH_DIGEST_FILE)
        with open(directory / PCH_GCH, "rb") as handle:
            return digest is not None and sha256(handle.read()).hexdigest().encode() == digest
    except OSError:
        return False
