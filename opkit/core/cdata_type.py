"""CDataType: an opaque C pointer an op keeps or passes to another, freed by its destructor once."""

from __future__ import annotations

import re

from opkit.core.c_source import render
from opkit.core.type import CType

_C_IDENTIFIER = re.compile(r"[A-Za-z_][\w:]*\Z", re.ASCII)

def _c(macro, **values):
    """Return the C text of `macro` in opkit/templates/cdata_type.c.j2."""
    return render("cdata_type.c.j2", macro, **values)


class CDataType(CType):
    """A C pointer of type `ctype` (``"my_state_t*"``); `freefunc` (a C function name) frees it.

    Between nodes the pointer travels in a capsule that owns it: the capsule
    calls `freefunc` once, when the last reference to it goes. State an op
    keeps in its struct (``c_support_code_struct``) is freed by the op's
    ``c_cleanup_code_struct``, which ``c_free(name)`` writes.
    """

    def __init__(self, ctype, freefunc=None):
        if not isinstance(ctype, str) or not ctype.strip():
            raise TypeError(f"CDataType: ctype must be a C pointer type such as 'my_state_t*', got {ctype!r}")
        if freefunc is not None and not (isinstance(freefunc, str) and _C_IDENTIFIER.match(freefunc)):
            raise TypeError(f"CDataType: freefunc must name a C function, got {freefunc!r}")
        self.ctype = ctype.strip()
        self.freefunc = freefunc

    def __eq__(self, other):
        return type(self) is type(other) and (self.ctype, self.freefunc) == (other.ctype, other.freefunc)

    def __hash__(self):
        return hash((type(self), self.ctype, self.freefunc))

    def __str__(self):
        return f"CDataType({self.ctype})"

    __repr__ = __str__

    def filter(self, value, strict=False, allow_downcast=None):
        if value is None or type(value).__name__ == "PyCapsule":
            return value
        raise TypeError(f"expected a capsule made by C code for {self}, got {type(value).__name__}")

    def values_eq(self, a, b):
        return a is b

    def c_free(self, name):
        """Return C code freeing the pointer in `name` (once: it is set to NULL)."""
        return _c("free", name=name, freefunc=self.freefunc)

    def c_support_code(self):
        return _c("capsule_support")

    def c_declare(self, name, sub, check_input=True):
        return _c("declare", ctype=self.ctype, name=name)

    def c_init(self, name, sub):
        return _c("init", name=name)

    def c_extract(self, name, sub, check_input=True):
        return _c("extract", ctype=self.ctype, name=name, fail=sub["fail"])

    def c_sync(self, name, sub):
        return _c("sync", name=name, freefunc=self.freefunc, fail=sub["fail"])

    def c_cleanup(self, name, sub):
        return ""

    def c_code_cache_version(self):
        return (1,)
