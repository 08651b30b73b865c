"""Build C++ source into a CPython extension module: the build side, which a process that loads cached modules
never imports (opkit.cop.compile opens it on a cache miss).

The compile and link commands are opkit's own: the compiler from
opkit.cop.toolchain.compiler, the shared-library flags Python was built with (sysconfig's
LDCXXSHARED / LDSHARED), opkit's flags and each node's. Nothing here imports
setuptools or relies on its private compiler classes (setuptools._distutils),
whose behaviour changes from release to release; sysconfig is the standard
library's public description of how this Python builds extensions.
"""

from __future__ import annotations

import functools
import os
import pathlib
import re
import sys
import sysconfig

from opkit.config import config
from opkit.cop.toolchain.compiler import Compiler, extension_suffix, find_compiler, python_include_dirs, run_tool
from opkit.cop.toolchain import host
from opkit.cop.toolchain.depends import dependency_args, record
from opkit.cop.toolchain.flags import (BASE_COMPILE_ARGS, LINK_TOO, build_flags, debug_flags,  # noqa: F401 (their old home)
                                   modules_use_openmp, sanitize_flags)
from opkit.cop.toolchain.pch import pch_args, pch_removed
from opkit.cop.compiledir import layout
from opkit.cop.compiledir.private_fs import write_private
from opkit.cop.source.lint import misspelt_macro_hints
from opkit.errors import CompileError

MAX_ERRORS = 5
# Patterns of compiler output, read only when a build fails: compiled then (re's cache), not at import,
# which every fresh process pays on its way to a cached module.
_MISSING_LIBRARY = r"cannot find -l(\S+?)(?::|\s|$)"
_MISSING_HEADER = r"fatal error: ([^\s:]+): No such file or directory"

_DIAGNOSTIC = r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?:\d+:)?\s*(?:fatal )?error\b.*$"
_LINK_ERROR = r"^.*(?:\berror\b|undefined reference|ld returned).*$"


class _CommandFailed(Exception):
    """A compiler or linker command exited with an error, or could not be run."""

    def __init__(self, command, returncode, output, timed_out=None):
        super().__init__(returncode)
        self.command, self.returncode, self.output = command, returncode, output
        self.timed_out = timed_out  # the limit it ran past (seconds), or None


@functools.lru_cache(maxsize=None)
def shared_link_flags() -> tuple[str, ...]:
    """Return the flags that link an extension module, from how this Python was built.

    The link command's own program name is dropped (opkit's compiler links), and
    so are its debug and optimisation flags; `-shared` (or macOS' `-bundle`) is
    always there.
    """
    import shlex

    link_shared = sysconfig.get_config_var("LDCXXSHARED") or sysconfig.get_config_var("LDSHARED") or ""
    words = shlex.split(link_shared)
    start = next((i for i, word in enumerate(words) if word.startswith("-")), len(words))
    flags = [w for w in words[start:] if not w.startswith(("-g", "-O"))]
    if not any(flag in ("-shared", "-bundle", "-dynamiclib") for flag in flags):
        flags.insert(0, "-bundle" if sys.platform == "darwin" else "-shared")
    if sys.platform == "darwin" and "-bundle" in flags and "dynamic_lookup" not in " ".join(flags):
        flags += ["-undefined", "dynamic_lookup"]
    return tuple(flags)


def build_extension(source: str, module_name: str, work_dir, *, include_dirs=(), library_dirs=(),
                    libraries=(), extra_compile_args=(), extra_link_args=(),
                    compiler: Compiler | None = None) -> pathlib.Path:
    """Compile `source` as C++ into `<work_dir>/<module_name><EXT_SUFFIX>` and return its path."""
    obj = compile_object(source, module_name, work_dir, include_dirs=include_dirs,
                         extra_compile_args=extra_compile_args, compiler=compiler)
    try:
        return link_extension([obj], module_name, work_dir, library_dirs=library_dirs, libraries=libraries,
                              extra_link_args=[*extra_link_args, *[a for a in extra_compile_args if a in LINK_TOO]],
                              compiler=compiler)
    finally:
        try:
            os.unlink(obj)
        except FileNotFoundError:
            pass


def compile_object(source: str, name: str, work_dir, *, include_dirs=(), extra_compile_args=(),
                   compiler: Compiler | None = None, syntax_only: bool = False) -> pathlib.Path:
    """Compile `source` as C++ into `<work_dir>/<name>.o` (kept beside `<name>.cpp`); return its path.

    With `syntax_only`, only check it (g++ -fsyntax-only): no object is written.
    """
    work_dir = pathlib.Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    source_path = work_dir / f"{name}.cpp"
    write_private(source_path, source.encode("utf-8"), sync=False)  # a failure names the file and what to do
    obj = work_dir / f"{name}.o"
    compile_args, _ = build_flags()
    compiler = compiler or find_compiler()
    headers = [*include_dirs, *python_include_dirs()]
    with_pch = pch_args(compiler, compile_args, python_include_dirs())

    def compile_command(pch):
        output = ["-fsyntax-only"] if syntax_only else ["-c", str(source_path), "-o", str(obj),
                                                        *dependency_args(obj)]
        return [*compiler.command, *[f"-I{d}" for d in headers], *output, *([str(source_path)] if syntax_only else []),
                *compile_args, *pch, *extra_compile_args]

    try:
        try:
            _run(compile_command(with_pch))
        except _CommandFailed:
            if not pch_removed(with_pch):
                raise
            # `opkit cache clear` (another process) took the precompiled header away during this compile:
            # the module does not need it, so it is compiled once more without it.
            _run(compile_command([]))
    except _CommandFailed as failed:
        raise _compile_error(failed, name, source_path) from None
    if not syntax_only:
        record(obj, source_path, left_out=[*python_include_dirs(), layout.root()])
    return obj


def link_extension(objects, module_name: str, work_dir, *, library_dirs=(), libraries=(), extra_link_args=(),
                   compiler: Compiler | None = None) -> pathlib.Path:
    """Link object files into `<work_dir>/<module_name><EXT_SUFFIX>` and return its path.

    The error of a failed link names `<work_dir>/<module_name>.cpp` (the module's
    own source, when there is one) as where to look.
    """
    work_dir = pathlib.Path(work_dir)
    target = work_dir / f"{module_name}{extension_suffix()}"
    _, link_args = build_flags()
    compiler = compiler or find_compiler()
    # An rpath for every library directory: a library found there at link time is found at load time too.
    link_command = [*compiler.command, *shared_link_flags(), *[str(o) for o in objects],
                    *[f"-L{d}" for d in library_dirs], *[f"-Wl,-rpath,{d}" for d in library_dirs],
                    *[f"-l{name}" for name in libraries], "-o", str(target), *link_args, *extra_link_args]
    fast = host.fast_linker_args(compiler)
    try:
        try:
            _run([*link_command, *fast])
        except _CommandFailed:
            if not fast:
                raise
            _run(link_command)  # what gold refuses (a flag of the op's it lacks), the compiler's own linker may take
    except _CommandFailed as failed:
        raise _compile_error(failed, module_name, work_dir / f"{module_name}.cpp") from None
    return target


def _run(command):
    """Run one compiler command with its output captured (nothing reaches stdout); raise _CommandFailed."""
    import subprocess

    timeout = config.compile_timeout
    try:
        returncode, output = run_tool(command, timeout)
    except subprocess.TimeoutExpired:
        raise _CommandFailed(command, None, f"stopped after {timeout:g} s (config.compile_timeout)",
                             timed_out=timeout) from None
    except OSError as exc:
        raise _CommandFailed(command, None, f"cannot run {command[0]}: {exc}") from exc
    if returncode != 0:
        raise _CommandFailed(command, returncode, output)


def first_errors(output: str, source_path, limit: int = MAX_ERRORS) -> list[str]:
    """Return the first error lines of compiler output, those in user files before the generated one."""
    generated = os.path.realpath(source_path)
    found = list(re.finditer(_DIAGNOSTIC, output, re.M))
    if not found:
        lines = [m.group(0).strip() for m in re.finditer(_LINK_ERROR, output, re.M | re.I)]
        return (lines or [line for line in output.splitlines() if line.strip()])[:limit]
    user = [m.group(0) for m in found if os.path.realpath(m.group("file")) != generated]
    own = [m.group(0) for m in found if os.path.realpath(m.group("file")) == generated]
    return (user + own)[:limit]


def _missing_hints(output: str) -> list[str]:
    """Return a hint for each library or header the compiler could not find (other than Python.h), and for PARAMS."""
    hints = []
    for name in dict.fromkeys(re.findall(_MISSING_LIBRARY, output, re.M)):
        hints.append(f"hint: library {name!r} not found (-l{name}): install it, or return the directory holding "
                     f"lib{name}.so from the op's c_lib_dirs() (opkit adds an rpath to it)")
    if re.search(r"['‘`]PARAMS(?:_TYPE)?['’] (?:was not declared|undeclared)", output):
        hints.append("hint: PARAMS and PARAMS_TYPE are defined only for an op with a params_type "
                     "(e.g. params_type = opkit.ParamsType(alpha=opkit.scalar.float64)), in its "
                     "*_struct, code and code_cleanup sections")
    if re.search(r"(?:bad value|unknown target CPU|unsupported argument).*-?march", output, re.I | re.S) \
            and config.march:
        hints.append(f"hint: this compiler does not know config.march={config.march!r}: set it to native (this "
                     "host's CPU), to a baseline it knows (e.g. x86-64-v2), or to an empty value for its default")
    if re.search(r"File size limit exceeded|No space left on device|Disk quota exceeded|File too large", output):
        hints.append("hint: the compiler could not write its output: free disk space (or raise your quota), or "
                     "raise the file-size limit (`ulimit -f unlimited`); `opkit cache clear` empties opkit's cache")
    for header in dict.fromkeys(re.findall(_MISSING_HEADER, output, re.M)):
        if header.startswith("numpy/"):
            import numpy

            hints.append(f"hint: header {header!r} is not among numpy {numpy.__version__}'s headers (numpy 2 removed "
                         "numpy/noprefix.h, old_defines.h and oldnumeric.h): include <numpy/arrayobject.h>, whose "
                         "names (npy_intp, PyArray_DATA...) it meant")
        elif header != "Python.h":
            hints.append(f"hint: header {header!r} not found: install the package that provides it, or return its "
                         "directory from the op's c_header_dirs()")
    return hints


def _misspelt_macro_hints(output: str, source_path) -> list[str]:
    """Return a hint for each misspelt opkit macro (DTYPE_INPTU_0) in the user files the errors point at."""
    generated = os.path.realpath(source_path)
    files = [m.group("file") for m in re.finditer(_DIAGNOSTIC, output, re.M) if os.path.realpath(m.group("file")) != generated]
    return misspelt_macro_hints(files)


def _compile_error(failed: _CommandFailed, module_name: str, source_path: pathlib.Path) -> CompileError:
    """Turn a failed command into a CompileError: a header, the first errors, and where to look."""
    import shlex

    log_path = source_path.with_suffix(".log")
    # A path in the command keeps its bytes, UTF-8 or not (Python holds the others as lone surrogates).
    log = f"full compiler output in {log_path}"
    try:
        write_private(log_path, f"$ {shlex.join(failed.command)}\n{failed.output}".encode("utf-8", "surrogateescape"),
                      sync=False)
    except OSError as exc:  # a full disk: the compiler's output is in the error itself
        log = f"{exc}\ncompiler output:\n{failed.output[-4000:]}"
    step = "compiling" if "-c" in failed.command else "linking"
    if failed.timed_out is not None:
        lines = [f"{step} the C++ module {module_name!r} timed out: the compiler was stopped after "
                 f"{failed.timed_out:g} s (config.compile_timeout)",
                 f"command: {shlex.join(failed.command)}",
                 "a compiler waits for ever on a #include of a FIFO or a device, or when it hangs",
                 "fix: include only regular files; if the module is just slow to build, raise the limit: "
                 "OPKIT_FLAGS=compile_timeout=SECONDS (or opkit.config.compile_timeout = ...)",
                 f"full source kept at {source_path}"]
        error = CompileError("\n".join(lines), command=failed.command, source_path=source_path)
        error.output = failed.output
        error.timed_out = failed.timed_out
        return error
    errors = first_errors(failed.output, source_path)
    status = "could not be run" if failed.returncode is None else f"exit status {failed.returncode}"
    lines = [f"{step} the C++ module {module_name!r} failed ({status})", *errors]
    if "Python.h" in failed.output and "No such file" in failed.output:
        lines.append("hint: install the Python development headers (Debian/Ubuntu: apt-get install python3-dev);"
                     " `opkit doctor` checks the toolchain")
    lines += _missing_hints(failed.output)
    lines += _misspelt_macro_hints(failed.output, source_path)
    lines += [f"full source kept at {source_path}", log]
    error = CompileError("\n".join(lines), command=failed.command, returncode=failed.returncode,
                         source_path=source_path, errors=errors)
    error.output = failed.output
    return error
