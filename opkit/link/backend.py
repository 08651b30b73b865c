"""What runs a function's nodes, decided once per function: compiled C, shipped modules, or Python.

`decide_backend()` probes the compiler (opkit.cop's find_compiler, memoized per
process) and reads ``config.python_fallback`` once; the FunctionMaker keeps the
answer and passes it to its linker and to the choice of the function class, so
no linker asks again:

- ``compile``: a C++ compiler is here; modules are compiled (or loaded from the cache).
- ``shipped``: no compiler; a node with C code runs the module an installed
  package ships for it, and a node without one is a MissingModuleError that
  says which ``opkit build`` command makes it.
- ``python``: no compiler and ``python_fallback`` on: shipped modules where
  there are some, the node's perform() elsewhere (with a warning), and Python
  wherever only a compiled form exists (the call path, DebugMode's C check).
"""

from __future__ import annotations

import warnings

from opkit.errors import CompileError

COMPILE, SHIPPED, PYTHON = "compile", "shipped", "python"


class Backend:
    """The backend of one function: `kind` (COMPILE, SHIPPED or PYTHON) and, without a compiler, why.

    Immutable, compared by value. A plain class, not a dataclass: making a dataclass execs generated
    code at import, on the path of every fresh process's first function.
    """

    __slots__ = ("kind", "error")
    kind: str
    error: CompileError | None  # the compiler probe's error (None when kind is COMPILE)

    def __init__(self, kind: str, error: CompileError | None = None) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "error", error)

    def __setattr__(self, name, value):
        raise AttributeError(f"a Backend is immutable: cannot set {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"a Backend is immutable: cannot delete {name!r}")

    def __eq__(self, other):
        if type(other) is not Backend:
            return NotImplemented
        return (self.kind, self.error) == (other.kind, other.error)

    def __hash__(self):
        return hash((self.kind, self.error))

    def __repr__(self):
        return f"Backend(kind={self.kind!r}, error={self.error!r})"

    def __reduce__(self):  # pickle and copy rebuild it through __init__ (its __setattr__ refuses)
        return (Backend, (self.kind, self.error))

    @property
    def compiles(self) -> bool:
        """True if C can be compiled here."""
        return self.kind == COMPILE

    def compiles_or_warns(self, what: str, stacklevel: int = 2) -> bool:
        """Return True if C can be compiled; else warn (PYTHON) or raise the compiler's error (SHIPPED).

        `what` says what runs in Python instead, for the warning.
        """
        if self.kind == COMPILE:
            return True
        if self.kind == SHIPPED:
            raise self.error.with_traceback(None)
        warnings.warn(f"no C++ compiler: running {what} (OPKIT_FLAGS=python_fallback=true); "
                      "run `opkit doctor` to fix the toolchain", RuntimeWarning, stacklevel=stacklevel + 1)
        return False


def decide_backend() -> Backend:
    """Return the backend for a function made now (see the module docstring)."""
    from opkit.config import config
    from opkit.cop.toolchain.compiler import find_compiler

    try:
        find_compiler()
    except CompileError as exc:
        return Backend(PYTHON if config.python_fallback else SHIPPED, exc.with_traceback(None))  # no frames kept
    return Backend(COMPILE)

