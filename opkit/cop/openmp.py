"""OpenMPOp: an op whose C code is compiled with OpenMP when allowed and supported."""

from __future__ import annotations

import functools
import subprocess
import tempfile

from opkit.config import config
from opkit.core.op import Op
from opkit.cop.compiler import find_compiler

OPENMP_FLAG = "-fopenmp"
_PROBE = "#include <omp.h>\nint opkit_probe(void) { return omp_get_max_threads(); }\n"


def openmp_supported(compiler=None) -> bool:
    """Return True if the compiler builds and links a shared object with -fopenmp (probed once per compiler)."""
    compiler = compiler or find_compiler()
    return _probe(compiler.command)


@functools.lru_cache(maxsize=None)
def _probe(command) -> bool:
    with tempfile.TemporaryDirectory(prefix="opkit-openmp-") as work:
        source = f"{work}/probe.cpp"
        with open(source, "w", encoding="utf-8") as handle:
            handle.write(_PROBE)
        try:
            run = subprocess.run([*command, OPENMP_FLAG, "-shared", "-fPIC", source, "-o", f"{work}/probe.so"],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 check=False, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            return False
    return run.returncode == 0


class OpenMPOp(Op):
    """An Op whose C code is compiled with ``-fopenmp`` when ``config.openmp`` is on and the compiler can.

    Otherwise it compiles without, and ``#pragma omp`` lines are ignored (guard
    calls into the OpenMP runtime with ``#ifdef _OPENMP``). ``openmp=False``
    (or True) overrides the config for one op; the flag is part of the
    module's identity, so each setting has its own module. Combine with COp as
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
        return args + [OPENMP_FLAG] if self.uses_openmp() else args

    def c_headers(self, c_compiler=None):
        headers = list(super().c_headers(c_compiler))
        return headers + ["<omp.h>"] if self.uses_openmp() else headers
