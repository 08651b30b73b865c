"""OpenMPOp: an op whose C code is compiled with OpenMP when allowed and supported."""

from __future__ import annotations

from opkit.config import config
from opkit.core.op import Op
from opkit.cop import host
from opkit.cop.build import modules_use_openmp
from opkit.cop.compiler import find_compiler

OPENMP_FLAG = host.OPENMP_FLAG
NO_OPENMP_FLAG = "-fno-openmp"


def openmp_supported(compiler=None) -> bool:
    """Return True if the compiler builds and links a shared object with -fopenmp (asked once per compiler)."""
    return host.openmp_supported(compiler or find_compiler())


class OpenMPOp(Op):
    """An Op whose C code is compiled with ``-fopenmp`` when ``config.openmp`` is on and the compiler can.

    Otherwise it compiles without, and ``#pragma omp`` lines are ignored (guard
    calls into the OpenMP runtime with ``#ifdef _OPENMP``). ``openmp=False``
    (or True) overrides the config for one op; the flag is part of the
    module's identity, so each setting has its own module. An op with
    ``openmp=False`` compiles its whole module without OpenMP (``-fno-openmp``),
    so opkit's own loops there run on one thread. Combine with COp as
    ``class MyOp(OpenMPOp, COp)``.
    """

    openmp = None  # None: follow config.openmp

    def __init__(self, *args, openmp=None, **kwargs):
        self.openmp = openmp
        super().__init__(*args, **kwargs)

    def uses_openmp(self) -> bool:
        """Return True if this op's C code is compiled with OpenMP."""
        wanted = config.openmp if self.openmp is None else self.openmp
        return bool(wanted) and openmp_supported()

    def c_compile_args(self, c_compiler=None):
        args = list(super().c_compile_args(c_compiler))
        if self.uses_openmp():
            return args + [OPENMP_FLAG]
        # Every module is built with -fopenmp when modules_use_openmp(); a later -fno-openmp wins.
        return args + [NO_OPENMP_FLAG] if modules_use_openmp() else args

    def c_headers(self, c_compiler=None):
        headers = list(super().c_headers(c_compiler))
        return headers + ["<omp.h>"] if self.uses_openmp() else headers
