"""The benchmark run's settings and private directories, and the optional PyTensor contender."""

from __future__ import annotations

import dataclasses
import os
import pathlib
import sys
from types import ModuleType


@dataclasses.dataclass
class Context:
    """What every figure needs: quick or full, the run's temp directories, and PyTensor if present.

    `workdir` is private to this run; opkit's compile cache is `workdir/opkit`
    (never the user's ~/.cache), PyTensor's `workdir/pytensor-cache`; child
    processes run in the empty `workdir/cwd`, so `python -c` imports nothing by accident.
    """

    quick: bool
    workdir: pathlib.Path
    pytensor: ModuleType | None = None
    threads: int = 1

    @property
    def cores(self) -> str:
        """Return the machine's cores in words, for the report."""
        return f"{os.cpu_count()} cores ({cpu_model()}), {usable_cores()} usable by this process"

    @property
    def compiledir(self) -> pathlib.Path:
        return self.workdir / "opkit-cache"

    @property
    def cwd(self) -> pathlib.Path:
        path = self.workdir / "cwd"
        path.mkdir(exist_ok=True)
        return path

    def rounds(self, full: int, quick: int) -> int:
        return quick if self.quick else full

    @property
    def budget(self) -> float:
        """Seconds one timeit-style sample of a microsecond call should last."""
        return 0.01 if self.quick else 0.04

    def subprocess_env(self) -> dict:
        """Environment for child Pythons: this run's caches, and .pyc files written as users have them."""
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        return env

    def pytensor_modes(self) -> dict[str, object]:
        """Return {label: mode} for PyTensor's default linker and its C linker (empty without PyTensor)."""
        if self.pytensor is None:
            return {}
        from pytensor.compile.mode import Mode, get_default_mode

        default = type(get_default_mode().linker).__name__.replace("Linker", "").lower() or "default"
        return {f"pytensor ({default})": get_default_mode(), "pytensor (c)": Mode(linker="c")}

    def pytensor_functions(self, build, trust_input: bool = True) -> dict[str, object]:
        """Compile `build(tensor_module) -> (inputs, output)` with each PyTensor mode."""
        functions = {}
        for label, mode in self.pytensor_modes().items():
            inputs, output = build(self.pytensor.tensor)
            fn = self.pytensor.function(inputs, output, mode=mode)
            fn.trust_input = trust_input
            functions[label] = fn
        return functions


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def cache_environment(directory: pathlib.Path, environ=os.environ) -> dict[str, str]:
    """Return the variables that point opkit's, PyTensor's and numba's caches into `directory` (its opkit-cache,
    pytensor-cache and numba-cache folders); PYTENSOR_FLAGS keeps `environ`'s other flags."""
    flags = [f for f in environ.get("PYTENSOR_FLAGS", "").split(",") if f and not f.startswith("base_compiledir=")]
    return {"OPKIT_COMPILEDIR": str(directory / "opkit-cache"),
            "PYTENSOR_FLAGS": ",".join([*flags, f"base_compiledir={directory / 'pytensor-cache'}"]),
            "NUMBA_CACHE_DIR": str(directory / "numba-cache")}


def prepare_environment(ctx: Context) -> None:
    """Point opkit's, PyTensor's and numba's caches into the run's directory; call before importing them.

    The environment carries the choice to every child process too.
    """
    os.environ.update(cache_environment(ctx.workdir))
    # opkit's config.threads, numba's and OpenMP's thread pools all follow --threads.
    os.environ["OMP_NUM_THREADS"] = str(ctx.threads)
    os.environ["NUMBA_NUM_THREADS"] = str(ctx.threads)


def import_pytensor(enabled: bool) -> ModuleType | None:
    """Return the pytensor module if enabled and importable in this interpreter, else None."""
    if not enabled:
        return None
    try:
        import pytensor
        import pytensor.tensor  # noqa: F401
    except ImportError:
        return None
    return pytensor


def machine_description(ctx: Context) -> dict:
    """Return the facts a reader needs to weigh the figures: versions, CPUs, compiler, load."""
    import platform

    import numpy

    import opkit
    from opkit.cop.toolchain.compiler import find_compiler

    return {"python": sys.version.split()[0], "platform": platform.platform(), "cpus": os.cpu_count(),
            "cpu_model": cpu_model(), "usable_cores": usable_cores(), "threads": ctx.threads,
            "march": opkit.config.march,
            "numpy": numpy.__version__, "opkit": opkit.__version__,
            "pytensor": ctx.pytensor.__version__ if ctx.pytensor else None,
            "compiler": find_compiler().identity, "loadavg_start": os.getloadavg(), "quick": ctx.quick}
