"""What runs a function's nodes, decided once per function: compiled C, shipped modules, or Python; and for which
device.

A `Backend` is the answer of opkit.decision.decide(device), the one decision, made at the entries that make
a callable from a graph (opkit.function's FunctionMaker, Theano's ``Linker.accept``, the one node runner's
preallocated form, Op.make_thunk): it probes the compiler once and reads ``config.python_fallback`` once, and
carries the device's target (opkit.cop.generate.target) with it. Each entry passes it down as a required
argument, to its linker, the binders, the regions they cut (`Region.target`, which code generation reads),
cop's door (``load_region`` without a compiler, ``build_region`` with one) and the choice of the function
class. No module of link or cop decides it again (tests/link/test_backend_once.py checks it):

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
    """The backend of one function: `kind` (COMPILE, SHIPPED or PYTHON), without a compiler why, and `target`,
    the device its modules are generated for (None: a backend for CPU graphs only, as tests make by hand).

    Immutable, compared by value. A plain class, not a dataclass: making a dataclass execs generated
    code at import, on the path of every fresh process's first function.
    """

    __slots__ = ("kind", "error", "python_fallback", "target")
    kind: str
    error: CompileError | None  # the compiler probe's error (None when kind is COMPILE)
    python_fallback: bool  # config.python_fallback when decided: with a compiler, a call path that fails to
    # build gives a Python one (opkit.link.function.function_class)
    target: object  # the device's opkit.cop.generate.target.Target (one object per device), or None

    def __init__(self, kind: str, error: CompileError | None = None, python_fallback: bool | None = None,
                 target=None) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "error", error)
        object.__setattr__(self, "python_fallback", kind == PYTHON if python_fallback is None else python_fallback)
        object.__setattr__(self, "target", target)

    def __setattr__(self, name, value):
        raise AttributeError(f"a Backend is immutable: cannot set {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"a Backend is immutable: cannot delete {name!r}")

    def __eq__(self, other):
        if type(other) is not Backend:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self):
        return hash(self._fields())

    def _fields(self):
        return (self.kind, self.error, self.python_fallback, self.target)

    def __repr__(self):
        fallback = "" if self.python_fallback == (self.kind == PYTHON) else f", python_fallback={self.python_fallback!r}"
        target = "" if self.target is None else f", target={self.target!r}"
        return f"Backend(kind={self.kind!r}, error={self.error!r}{fallback}{target})"

    def __reduce__(self):  # pickle and copy rebuild it through __init__ (its __setattr__ refuses)
        return (Backend, self._fields())

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
