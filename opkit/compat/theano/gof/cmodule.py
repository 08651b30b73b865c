"""theano.gof.cmodule: the compiler's version and Theano's probes (``GCC_compiler.try_flags``, ``try_compile_tmp``).

Ops call these to ask whether a flag or a test program compiles (and runs) before choosing their
C; here they run opkit's compiler (``config.cxx``, else g++, clang++ or c++ on PATH) through the one
door opkit runs compilers by (opkit.cop.toolchain.compiler). Theano's module cache and its
``compile_str`` are not here: opkit builds, names and caches its modules itself.
"""

from __future__ import annotations

import os
import tempfile

from opkit.cop.blas import detect_ldflags
from opkit.cop.toolchain.compiler import find_compiler, run_tool
from opkit.errors import CompileError

PROBE_TIMEOUT = 120  # seconds: a probe is a tiny program


def _compiler_command():
    try:
        return find_compiler().command
    except CompileError:
        return None


def gcc_version():
    """Return the compiler's version (``-dumpversion``: '12' or '12.2.0'); '' without a compiler."""
    command = _compiler_command()
    if command is None:
        return ""
    status, output = run_tool([*command, "-dumpversion"], PROBE_TIMEOUT)
    return output.strip() if status == 0 else ""


def default_blas_ldflags():
    """Return the BLAS link flags opkit detects (PyTensor's name; config.blas__ldflags)."""
    return detect_ldflags()


class GCC_compiler:  # noqa: N801  (Theano's name)
    """Theano's compiler probes over opkit's compiler."""

    @staticmethod
    def compile_args(march_flags=True):
        """Return the flags probes add (none: opkit chooses its modules' flags itself)."""
        return []

    @classmethod
    def try_compile_tmp(cls, src_code, tmp_prefix="", flags=(), try_run=False, output=False, comp_args=True):
        """Compile (and with `try_run`, run) a test program; return Theano's tuple or bool (see try_flags)."""
        command = _compiler_command()
        if command is None:
            return _probe_result(False, False, None, "no C++ compiler", try_run, output)
        with tempfile.TemporaryDirectory(prefix=f"opkit-probe-{tmp_prefix}") as work:
            source, program = os.path.join(work, "probe.c"), os.path.join(work, "probe")
            with open(source, "w", encoding="utf-8") as handle:
                handle.write(src_code.decode() if isinstance(src_code, bytes) else src_code)
            args = cls.compile_args() if comp_args else []
            status, out = run_tool([*command, *args, source, "-o", program, *flags], PROBE_TIMEOUT)
            run_ok = False
            if status == 0 and try_run:
                run_status, out = run_tool([program], PROBE_TIMEOUT)
                run_ok = run_status == 0
        return _probe_result(status == 0, run_ok, out, "", try_run, output)

    @classmethod
    def try_flags(cls, flag_list, preambule="", body="", try_run=False, output=False, comp_args=True):
        """Return whether a program with `preambule` and `body` in main() compiles with `flag_list`.

        As in Theano: a bool; ``(compiled, ran)`` with `try_run`; the output and error text appended
        with `output`.
        """
        code = f"\n{preambule}\nint main(int argc, char** argv)\n{{\n{body}\nreturn 0;\n}}\n"
        return cls.try_compile_tmp(code, "try_flags_", flag_list, try_run, output, comp_args)


def _probe_result(compiled, ran, out, err, try_run, output):
    if not try_run:
        return (compiled, out, err) if output else compiled
    return (compiled, ran, out, err) if output else (compiled, ran)


__all__ = ["GCC_compiler", "default_blas_ldflags", "gcc_version"]
