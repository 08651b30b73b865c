"""What every object with C code (an Op or a CType) may declare, with empty defaults."""

from __future__ import annotations

import functools
import inspect


class MethodNotDefined(NotImplementedError):
    """An optional method (perform, c_code, ...) is not provided by this op or type.

    A NotImplementedError, as PyTensor's ``COp.c_code`` raises for an op without C.
    """


def takes_compiler_positionally(method, given=0) -> bool:
    """True if `method` has a positional parameter left after `given` arguments and none named c_compiler.

    Theano 1.0 passes the compiler positionally, to a parameter of any name (``c_headers(self, compiler)``);
    PyTensor and opkit by the keyword ``c_compiler``.
    """
    function = getattr(method, "__func__", method)
    try:
        named, count = _positional(function)
    except TypeError:  # an unhashable callable
        named, count = _positional.__wrapped__(function)
    return not named and count - hasattr(method, "__self__") > given


@functools.lru_cache(maxsize=4096)
def _positional(function):
    """Return (takes c_compiler by keyword, the number of positional parameters) of `function`."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return True, 0
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters):
        return True, 0  # **kwargs takes it by name; *args alone says nothing of a compiler
    named = any(p.name == "c_compiler" and p.kind is not p.POSITIONAL_ONLY for p in parameters)
    return named, sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)


def call_with_compiler(method, c_compiler=None):
    """Call a flags method (c_headers, c_compile_args, ...) as it was written to be called."""
    if takes_compiler_positionally(method):
        return method(c_compiler)
    if _keyword_compiler(method):
        return method(c_compiler=c_compiler)
    return method()


def _keyword_compiler(method):
    function = getattr(method, "__func__", method)
    try:
        return _positional(function)[0] and bool(inspect.signature(function).parameters)
    except TypeError:
        return False


class CLinkerObject:
    """Headers, libraries, flags, shared code and cache version; override and extend with super()."""

    def c_headers(self, c_compiler=None):
        return []

    def c_header_dirs(self, c_compiler=None):
        return []

    def c_libraries(self, c_compiler=None):
        return []

    def c_lib_dirs(self, c_compiler=None):
        return []

    def c_compile_args(self, c_compiler=None):
        return []

    def c_no_compile_args(self, c_compiler=None):
        return []

    def c_init_code(self):
        return []

    def c_support_code(self):
        return ""

    def c_code_cache_version(self):
        """Return a tuple to change with the C code; () means: never reuse it across processes."""
        return ()
