"""What runs a function's nodes, decided once per function: compiled C, shipped modules, or Python.

`decide_backend()` probes the compiler (opkit.cop's find_compiler, memoized per
process) and reads ``config.python_fallback`` once. It is called at the entries
that make a callable from a graph, and nowhere below them: ``FunctionMaker``
(opkit.function), Theano's ``Linker.accept`` and the one node runner's
preallocated form (opkit.link.node_runner). Each passes the answer down as a
required argument, to its linker, the binders, cop's door (``load_region``
without a compiler, ``build_region`` with one) and the choice of the function
class (tests/link/test_backend_once.py checks it):

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

from opkit.config import config
from opkit.cop.toolchain.compiler import find_compiler
from opkit.errors import CompileError

COMPILE, SHIPPED, PYTHON = "compile", "shipped", "python"


class Backend:
    """The backend of one function: `kind` (COMPILE, SHIPPED or PYTHON) and, without a compiler, why.

    Immutable, compared by value. A plain class, not a dataclass: making a dataclass execs generated
    code at import, on the path of every fresh process's first function.
    """

    __slots__ = ("kind", "error", "python_fallback")
    kind: str
    error: CompileError | None  # the compiler probe's error (None when kind is COMPILE)
    python_fallback: bool  # config.python_fallback when decided: with a compiler, a call path that fails to
    # build gives a Python one (opkit.link.function.function_class)

    def __init__(self, kind: str, error: CompileError | None = None, python_fallback: bool | None = None) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "error", error)
        object.__setattr__(self, "python_fallback", kind == PYTHON if python_fallback is None else python_fallback)

    def __setattr__(self, name, value):
        raise AttributeError(f"a Backend is immutable: cannot set {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"a Backend is immutable: cannot delete {name!r}")

    def __eq__(self, other):
        if type(other) is not Backend:
            return NotImplemented
        return (self.kind, self.error, self.python_fallback) == (other.kind, other.error, other.python_fallback)

    def __hash__(self):
        return hash((self.kind, self.error, self.python_fallback))

    def __repr__(self):
        fallback = "" if self.python_fallback == (self.kind == PYTHON) else f", python_fallback={self.python_fallback!r}"
        return f"Backend(kind={self.kind!r}, error={self.error!r}{fallback})"

    def __reduce__(self):  # pickle and copy rebuild it through __init__ (its __setattr__ refuses)
        return (Backend, (self.kind, self.error, self.python_fallback))

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
    """Return the backend for a callable made now (see the module docstring): call it once, at the entry."""
    try:
        find_compiler()
    except CompileError as exc:
        return Backend(PYTHON if config.python_fallback else SHIPPED, exc.with_traceback(None))  # no frames kept
    return Backend(COMPILE, python_fallback=bool(config.python_fallback))

