"""SHA-256 for opkit's keys, identities and checks, without loading OpenSSL in a process that hashes little.

Importing hashlib loads OpenSSL's libcrypto: a few milliseconds of a fresh process,
more than all the hashing a warm one does (keys and identities of a few kB, shared
objects of tens of kB). CPython's own SHA-256 (its builtin _sha2 / _sha256 module)
gives the same digests; data of LARGE bytes or more goes through hashlib, whose
SHA-256 is several times faster per byte.
"""

from __future__ import annotations

try:  # Python 3.12+
    from _sha2 import sha256 as _builtin_sha256
except ImportError:
    try:  # Python 3.11
        from _sha256 import sha256 as _builtin_sha256
    except ImportError:  # a CPython built without it, or another Python
        _builtin_sha256 = None

LARGE = 1 << 18


def sha256(data: bytes = b""):
    """Return a SHA-256 hash object of `data` (as hashlib.sha256: update, digest, hexdigest, copy)."""
    if _builtin_sha256 is None or len(data) >= LARGE:
        import hashlib

        return hashlib.sha256(data)
    return _builtin_sha256(data)
