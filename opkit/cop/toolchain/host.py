"""What the compiler makes of this host: the CPU features `-march=native` stands for, OpenMP, and its linker.

The first two are part of a module's identity (opkit.cop.toolchain.identity.toolchain_parts), so
they are needed before every cache lookup, even in a process that compiles nothing; the linker
is not (it does not change what a module computes). Asking the compiler costs 10-150 ms, so each
answer is kept in the cache directory (``host/<digest>``), keyed by the compiler and this CPU's
description: a machine with another CPU or another compiler asks again, and a
cache shared between machines never serves a module built for other CPU features.
An answer is kept with its sha256 (opkit.cop.compiledir.private_fs.kept_text): a damaged one is asked again.
"""

from __future__ import annotations

import functools
import os

from opkit.cop.compiledir import layout
from opkit.cop.compiledir.private_fs import kept_text
from opkit.core.digest import sha256

OPENMP_FLAG = "-fopenmp"
_OPENMP_PROBE = "#include <omp.h>\nint opkit_probe(void) { return omp_get_max_threads(); }\n"
# GNU gold links a module in about a third of the default GNU ld's time (ld.bfd spends ~0.07 s reading
# libstdc++'s symbols, which every C++ module links): asked for where the compiler can link this with it.
FAST_LINKER_FLAG = "-fuse-ld=gold"
_LINKER_PROBE = ("#include <new>\nstruct opkit_probe_t { int x; };\n"
                 "opkit_probe_t* opkit_probe(void) { return new (std::nothrow) opkit_probe_t(); }\n")
# What -march=native turns into, in the compiler's own words: g++ passes -march=<cpu>, -m<feature>
# and --param cache sizes to cc1plus; clang passes -target-cpu and -target-feature to -cc1.
_TARGET_WORDS = ("-march=", "-mtune=", "-m", "--param")
_TARGET_PAIRS = ("--param", "-target-cpu", "-target-feature", "-tune-cpu")
_answers: dict[tuple, str] = {}


@functools.lru_cache(maxsize=None)
def cpu_signature() -> str:
    """Return this CPU's description: vendor, family, model and feature flags (Linux), else the platform's."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            first = handle.read().split("\n\n")[0]
    except OSError:
        import platform

        return f"{platform.machine()} {platform.processor()}"
    wanted = ("vendor_id", "cpu family", "model", "model name", "flags", "Features", "CPU implementer",
              "CPU part", "isa")
    lines = [line for line in first.splitlines() if line.split(":")[0].strip() in wanted]
    if lines:
        return "\n".join(lines)
    import platform

    return f"{platform.machine()} {platform.processor()}"


def native_target(compiler) -> str:
    """Return the target flags `-march=native` resolves to with `compiler` on this CPU ("" if it refuses it)."""
    return _answer("march-native", compiler, lambda: _probe_native(compiler.command))


def openmp_supported(compiler) -> bool:
    """Return True if `compiler` builds and links a shared object with -fopenmp."""
    return _answer("openmp", compiler, lambda: _probe_openmp(compiler.command)) == "yes"


def fast_linker_args(compiler) -> tuple[str, ...]:
    """Return the flags that make `compiler` link a shared object with GNU gold, or () where it cannot
    (no ld.gold, another platform): then its own linker links. Not part of a module's identity."""
    return tuple(_answer("fast-linker", compiler, lambda: _probe_linker(compiler.command)).split())


def _answer(question: str, compiler, ask) -> str:
    """Return the answer to `question` about compiler and CPU: from memory, the cache directory, or `ask()`."""
    memo = (question, compiler.command, compiler.identity)
    answer = _answers.get(memo)
    if answer is None:
        answer = _answers[memo] = remembered(question, [*compiler.command, compiler.identity, cpu_signature()], ask)
    return answer


def remembered(question: str, facts, ask) -> str:
    """Return the answer to `question` about `facts` (strings): from the cache directory, or `ask()` (then kept).

    The file is named by a digest of the question and every fact, so other facts
    (another compiler, another CPU) ask again; a cache that cannot be written asks
    in every process.
    """
    digest = sha256("\0".join([question, *facts]).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return kept_text(layout.host_dir() / f"{question}-{digest}", ask)


def _probe_native(command) -> str:
    import subprocess

    try:
        run = subprocess.run([*command, "-march=native", "-E", "-v", "-x", "c++", os.devnull, "-o", os.devnull],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace",
                             timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    if run.returncode != 0:
        return ""
    for line in run.stderr.splitlines():
        if "cc1" in line or " -cc1 " in line:
            return " ".join(_target_words(line.split()))
    return ""


def _target_words(words):
    """Keep the words of a compiler's internal command line that say what CPU code is generated for."""
    kept, take_next = [], False
    for word in words:
        if take_next:
            kept.append(word)
            take_next = False
        elif word in _TARGET_PAIRS:
            kept.append(word)
            take_next = True
        elif word.startswith(_TARGET_WORDS) and not word.startswith(("-main-file", "-mrelocation", "-mframe")):
            kept.append(word)
    return kept


def _probe_openmp(command) -> str:
    return "yes" if _builds_shared(command, _OPENMP_PROBE, [OPENMP_FLAG], "opkit-openmp-") else "no"


def _probe_linker(command) -> str:
    return FAST_LINKER_FLAG if _builds_shared(command, _LINKER_PROBE, [FAST_LINKER_FLAG], "opkit-linker-") else ""


def _builds_shared(command, source_text: str, flags, prefix: str) -> bool:
    """Return True if `command` compiles and links `source_text` into a shared object with `flags`."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix=prefix) as work:
        source = os.path.join(work, "probe.cpp")
        with open(source, "w", encoding="utf-8") as handle:
            handle.write(source_text)
        try:
            run = subprocess.run([*command, *flags, "-shared", "-fPIC", source, "-o", os.path.join(work, "probe.so")],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 check=False, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            return False
    return run.returncode == 0
