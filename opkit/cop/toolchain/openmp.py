"""OpenMPOp: an op whose C code is compiled with OpenMP when allowed and supported."""

from __future__ import annotations

from opkit.config import config
from opkit.core.op import Op
from opkit.cop.toolchain import host
from opkit.cop.toolchain.flags import modules_use_openmp
from opkit.cop.toolchain.compiler import find_compiler

OPENMP_FLAG = host.OPENMP_FLAG
NO_OPENMP_FLAG = "-fno-openmp"


def openmp_supported(compiler=None) -> bool:
    """Return True if the compiler builds and links a shared object with -fopenmp (asked once per compiler)."""
    return host.openmp_supported(compiler or find_compiler())


class OpenMPOp(Op):
    """An Op whose C code is compiled with ``-fopenmp`` when OpenMP is wanted and the compiler can.

    As Theano's: ``OpenMPOp(openmp=None)`` takes ``config.openmp`` at construction when
    `openmp` is None, and ``self.openmp`` is a bool an op's C code generation tests
    (``if self.openmp:`` emit ``#pragma omp ...``): True when OpenMP is wanted and the
    compiler supports it (asked once per compiler, at the first read, never at import;
    the answer is kept in the compile cache). Without it the op compiles without
    ``-fopenmp``, and ``#pragma omp`` lines are ignored (guard calls into the OpenMP
    runtime with ``#ifdef _OPENMP``). The flag is part of the module's identity (its
    compile arguments), so each setting has its own module. An op with ``openmp=False``
    compiles its whole module without OpenMP (``-fno-openmp``), so opkit's own loops
    there run on one thread. Combine with COp as ``class MyOp(OpenMPOp, COp)``.
    """

    def __init__(self, *args, openmp=None, **kwargs):
        self.openmp = config.openmp if openmp is None else openmp
        super().__init__(*args, **kwargs)

    @property
    def openmp(self) -> bool:
        """True if this op's C code is compiled with OpenMP: wanted, and the compiler supports it."""
        wanted = self.__dict__.get("_openmp_wanted")
        if wanted is None:  # a subclass whose __init__ did not call OpenMPOp's: config.openmp now
            wanted = config.openmp
        return bool(wanted) and openmp_supported()

    @openmp.setter
    def openmp(self, value):
        self.__dict__["_openmp_wanted"] = None if value is None else bool(value)

    def __setstate__(self, state):
        if "openmp" in state:  # pickled before openmp was a property: the wish it stored
            state = dict(state)
            state["_openmp_wanted"] = state.pop("openmp")
        self.__dict__.update(state)

    @staticmethod
    def test_gxx_support() -> bool:
        """Return True if the C++ compiler builds with -fopenmp (Theano's and PyTensor's name; asked once)."""
        return openmp_supported()

    def update_self_openmp(self) -> None:
        """Theano's and PyTensor's hook: make ``self.openmp`` False where the compiler has no OpenMP.

        ``self.openmp`` already says so on every read; this keeps ops that call it working.
        """
        if not openmp_supported():
            self.openmp = False

    def uses_openmp(self) -> bool:
        """Return True if this op's C code is compiled with OpenMP (``self.openmp``)."""
        return self.openmp

    def c_compile_args(self, c_compiler=None):
        args = list(super().c_compile_args(c_compiler))
        if self.openmp:
            return args + [OPENMP_FLAG]
        # Every module is built with -fopenmp when modules_use_openmp(); a later -fno-openmp wins.
        return args + [NO_OPENMP_FLAG] if modules_use_openmp() else args

    def c_headers(self, c_compiler=None):
        headers = list(super().c_headers(c_compiler))
        return headers + ["<omp.h>"] if self.openmp else headers
