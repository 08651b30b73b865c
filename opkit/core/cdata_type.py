"""CDataType: an opaque C pointer an op keeps or passes to another, freed by its destructor once."""

from __future__ import annotations

import re

from opkit.core.type import CType

_C_IDENTIFIER = re.compile(r"[A-Za-z_][\w:]*\Z", re.ASCII)

CAPSULE_SUPPORT = r"""
#ifndef OPKIT_CDATA_CAPSULE
#define OPKIT_CDATA_CAPSULE
// A CDataType value in Python: a capsule whose context is the pointer's free function.
extern "C" {
static void opkit_cdata_destructor(PyObject* capsule)
{
    void (*freefunc)(void*) = (void (*)(void*))PyCapsule_GetContext(capsule);
    void* data = PyCapsule_GetPointer(capsule, NULL);
    if (freefunc && data) freefunc(data);
}
}
#endif
"""


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
        if self.freefunc is None:
            return f"{name} = NULL;"
        return f"if ({name}) {{\n    {self.freefunc}({name});\n    {name} = NULL;\n}}"

    def c_support_code(self):
        return CAPSULE_SUPPORT

    def c_declare(self, name, sub, check_input=True):
        return f"{self.ctype} {name};"

    def c_init(self, name, sub):
        return f"{name} = NULL;"

    def c_extract(self, name, sub, check_input=True):
        return f"""{name} = ({self.ctype})PyCapsule_GetPointer(py_{name}, NULL);
if (!{name}) {{
    {sub['fail']}
}}"""

    def c_sync(self, name, sub):
        freefunc = f"(void*){self.freefunc}" if self.freefunc else "NULL"
        release = f"{self.freefunc}({name});" if self.freefunc else ""
        return f"""{{
    PyObject* previous_{name} = py_{name};
    void* previous_data_{name} = PyCapsule_CheckExact(previous_{name}) ? PyCapsule_GetPointer(previous_{name}, NULL)
                                                                          : NULL;
    if (previous_data_{name} == (void*){name} && {name} != NULL) {{
        // The same pointer is already owned by the capsule: keep it (a second capsule would free it twice).
    }} else if ({name} == NULL) {{
        Py_XDECREF(previous_{name});
        Py_INCREF(Py_None);
        py_{name} = Py_None;
    }} else {{
        py_{name} = PyCapsule_New((void*){name}, NULL, opkit_cdata_destructor);
        if (py_{name} && PyCapsule_SetContext(py_{name}, {freefunc}) != 0) {{
            Py_CLEAR(py_{name});
        }}
        if (!py_{name}) {{
            {release}
            py_{name} = previous_{name};
            {sub['fail']}
        }}
        Py_XDECREF(previous_{name});
    }}
}}"""

    def c_cleanup(self, name, sub):
        return ""

    def c_code_cache_version(self):
        return (1,)
