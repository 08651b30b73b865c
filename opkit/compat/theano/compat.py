"""theano.compat: Theano's Python 2/3 names, on Python 3 (``izip`` is zip, ``PY3`` is True ...)."""

from collections import OrderedDict  # noqa: F401
from collections.abc import Callable, Iterable, Mapping, MutableMapping  # noqa: F401
from io import BytesIO, StringIO  # noqa: F401

PY3 = True
imap, izip, ifilter = map, zip, filter
string_types, integer_types = (str,), (int,)


def cmp(a, b):
    """Python 2's cmp: -1, 0 or 1."""
    return (a > b) - (a < b)


def exc_message(e):
    """Return an exception's message (its first argument, or its text)."""
    return e.args[0] if e.args else str(e)


def iteritems(d):
    return iter(d.items())


def itervalues(d):
    return iter(d.values())


def decode(x):
    return x.decode() if isinstance(x, bytes) else x


__all__ = ["BytesIO", "Callable", "Iterable", "Mapping", "MutableMapping", "OrderedDict", "PY3", "StringIO", "cmp",
           "decode", "exc_message", "ifilter", "imap", "integer_types", "iteritems", "itervalues", "izip",
           "string_types"]
