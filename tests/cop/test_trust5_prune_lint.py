"""Issue 44 item 6: prune removes every leftover the cache made and nothing else; lint stays linear.

Prune: a precompiled-header build killed after it sealed the .gch's sha256 but before it renamed the .gch into
place left the seal behind (prune kept a folder holding a header and a .gch, whatever the seal said). Now a
header folder is kept only if pch would use it as it is (the header, and the .gch its seal names), else every
file of it goes; the .tmp-* files a killed writer of a sealed file leaves at the root and in host/ go once their
process is gone. Every state a kill can leave is made from a real build's files; users' files stay.

Lint: `opkit check` on hostile files (100,000 markers, one section of thousands of kernels, an identifier of
thousands of letters) did work quadratic in the input. Two counts, not clocks, say it is linear now: the Python
lines the lint runs, and the characters its string and regex operations are handed, for N and 4N units.
"""

import dataclasses
import hashlib
import os
import pathlib
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from opkit.cop.toolchain.pch import PCH_HEADER
from opkit.cop.compiledir.layout import (HOST_DIR, JINJA_PREFIX, PCH_DIGEST_FILE, PCH_DIR, PCH_FILES, PCH_GCH,
                                         PCH_HEADER_FILE, PCH_LOCK, RENDERED_DIR)
from opkit.cop.compiledir.private_fs import read_sealed, write_sealed
from opkit.cop.source import lint
from opkit.cop.store.cache import ModuleCache
from opkit.cop.store.owner import mark

# A child that builds the precompiled header and is killed (SIGKILL) the moment the .gch would be renamed
# into place: after its seal was written.
KILLED_BEFORE_GCH = textwrap.dedent("""
    import os, signal
    from opkit.cop.toolchain.compiler import find_compiler, python_include_dirs
    from opkit.cop.toolchain.extension import build_flags
    from opkit.cop.toolchain.pch import pch_args
    replace = os.replace
    def killing_replace(source, target, *args, **kwargs):
        if str(target).endswith(".gch"):
            os.kill(os.getpid(), signal.SIGKILL)
        return replace(source, target, *args, **kwargs)
    os.replace = killing_replace
    pch_args(find_compiler(), build_flags()[0], python_include_dirs())
""")
# A child killed inside write_sealed (argv[1]) the moment it would rename its temporary file into place.
KILLED_WRITER = textwrap.dedent("""
    import os, signal, sys
    from opkit.cop.compiledir.private_fs import write_sealed
    os.replace = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL)
    write_sealed(sys.argv[1], b"a kept text")
""")


def _run_killed(code, root, *args):
    env = {**os.environ, "OPKIT_COMPILEDIR": str(root)}
    env.pop("OPKIT_NO_PCH", None)
    result = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == -signal.SIGKILL, result.stderr[-2000:]


def _names(folder):
    return sorted(p.name for p in pathlib.Path(folder).iterdir())


@pytest.fixture(scope="module")
def killed_pch(tmp_path_factory):
    """A cache root with a real precompiled-header build killed after sealing; its files' bytes."""
    root = tmp_path_factory.mktemp("killed-pch") / "cache"
    _run_killed(KILLED_BEFORE_GCH, root)
    [directory] = (root / PCH_DIR).iterdir()
    [tmp_gch] = directory.glob(".tmp-*.gch")
    files = {"header": (directory / PCH_HEADER_FILE).read_bytes(), "gch": tmp_gch.read_bytes(),
             "seal": (directory / PCH_DIGEST_FILE).read_bytes()}
    return root, directory, files


def test_a_build_killed_after_sealing_leaves_nothing_prune_keeps(killed_pch):
    """The reported case, from a real kill: the seal of a .gch never renamed into place is pruned with the rest."""
    root, directory, files = killed_pch
    assert sorted(_names(directory)) == sorted([PCH_LOCK, PCH_HEADER_FILE, PCH_DIGEST_FILE,
                                                next(directory.glob(".tmp-*.gch")).name])
    assert read_sealed(directory / PCH_DIGEST_FILE) == hashlib.sha256(files["gch"]).hexdigest().encode()
    mark(root)  # the root is opkit's (as one opkit made); then a user's files beside and inside its folders
    users = [root / "notes.txt", root / PCH_DIR / "README", directory / "mine.txt", root / HOST_DIR / "mine.txt"]
    for path in users:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("the user's")
    ModuleCache(root).upkeep.prune()
    assert _names(directory) == ["mine.txt"]  # every file opkit made there is gone, the user's file stays
    assert all(path.read_text() == "the user's" for path in users)
    (directory / "mine.txt").unlink()
    ModuleCache(root).upkeep.prune()
    assert not directory.exists() and _names(root / PCH_DIR) == ["README"]


# Each state a kill (or an older opkit) can leave in pch/<digest>/, as what is there: name -> which bytes.
TMP = ".tmp-12345-0a1b2c3d"
STATES = {
    "killed before the header was renamed": {PCH_LOCK: b"", f"{TMP}.hpp": "header"},
    "killed while compiling": {PCH_LOCK: b"", PCH_HEADER_FILE: "header", f"{TMP}.gch": b"partial"},
    "killed while sealing": {PCH_LOCK: b"", PCH_HEADER_FILE: "header", f"{TMP}.gch": "gch", ".tmp-12345-99": b"op"},
    "killed after sealing": {PCH_LOCK: b"", PCH_HEADER_FILE: "header", f"{TMP}.gch": "gch", PCH_DIGEST_FILE: "seal"},
    "a damaged .gch rebuilt, killed after sealing": {
        PCH_LOCK: b"", PCH_HEADER_FILE: "header", PCH_GCH: b"damaged", PCH_DIGEST_FILE: "seal", f"{TMP}.gch": "gch"},
    "a .gch without its seal": {PCH_LOCK: b"", PCH_HEADER_FILE: "header", PCH_GCH: "gch"},
    "a seal of other bytes": {PCH_HEADER_FILE: "header", PCH_GCH: "gch", PCH_DIGEST_FILE: "other seal"},
    "a header of another text": {PCH_HEADER_FILE: b"// not opkit's header", PCH_GCH: "gch", PCH_DIGEST_FILE: "seal"},
    "only a seal": {PCH_DIGEST_FILE: "seal"},
}


def test_every_state_a_kill_leaves_is_pruned_whole_and_a_usable_header_is_kept(killed_pch, tmp_path):
    _, _, files = killed_pch
    root = tmp_path / "cache"
    root.mkdir()
    mark(root)
    other_seal = tmp_path / "seal"
    write_sealed(other_seal, hashlib.sha256(b"other bytes").hexdigest().encode())
    files = {**files, "other seal": other_seal.read_bytes()}
    folders = {}
    for k, (state, content) in enumerate([*STATES.items(), ("usable", {
            PCH_LOCK: b"", PCH_HEADER_FILE: "header", PCH_GCH: "gch", PCH_DIGEST_FILE: "seal", f"{TMP}.gch": b"x"})]):
        folder = root / PCH_DIR / f"{k:024x}"
        folder.mkdir(parents=True)
        for name, data in content.items():
            (folder / name).write_bytes(files[data] if isinstance(data, str) else data)
        folders[state] = folder
    assert files["header"] == PCH_HEADER.encode()
    ModuleCache(root).upkeep.prune()
    for state in STATES:
        assert not folders[state].exists(), f"{state}: {_names(folders[state])} left"
    # A header pch would use stays, all four of its files; only the stray temporary file goes.
    assert _names(folders["usable"]) == sorted(PCH_FILES)
    ModuleCache(root).upkeep.clear()
    assert not (root / PCH_DIR).exists()


def test_a_killed_writers_tmp_files_go_and_nothing_else(tmp_path):
    """write_sealed killed before its rename leaves .tmp-<pid>-<hex>: at the root, in host/, host/rendered/ and
    host/jinja-*/ prune removes it once its process is gone; a live writer's, the kept texts and a user's
    look-alike stay."""
    root = tmp_path / "cache"
    folders = [root, root / HOST_DIR, root / HOST_DIR / RENDERED_DIR, root / HOST_DIR / f"{JINJA_PREFIX}0123abcd"]
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    mark(root)
    for folder in folders:
        _run_killed(KILLED_WRITER, root, folder / "kept-text")
    dead = [path for folder in folders for path in folder.glob(".tmp-*")]
    assert len(dead) == len(folders) and not any((folder / "kept-text").exists() for folder in folders)
    host = root / HOST_DIR
    write_sealed(host / "question-0123", b"an answer")  # a kept text
    live = host / f".tmp-{os.getpid()}-0a0b0c0d"  # being written by a live process (this one)
    live.write_bytes(b"in progress")
    stale = host / f".tmp-{os.getpid()}-0e0f0a0b"  # a live pid, but untouched for two hours: reused, or another host's
    stale.write_bytes(b"stale")
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    users = [host / ".tmp-notes", host / "mine.txt", host / RENDERED_DIR / "mine.txt"]
    for path in users:
        path.write_text("the user's")
        os.utime(path, (time.time() - 7200, time.time() - 7200))
    ModuleCache(root).upkeep.prune()
    assert not any(path.exists() for path in dead) and not stale.exists()
    assert live.read_bytes() == b"in progress" and read_sealed(host / "question-0123") == b"an answer"
    assert all(path.read_text() == "the user's" for path in users)


# ---- lint: linear in the file -----------------------------------------------------------------------------

def hostile(n, first):
    """A C file of n units of what made the lint slow, with names not seen before (from `first` on)."""
    units = [f"#section support_code\nint DTYPE_INPTU_{k} = 0; /* {{ */\n#section\n#section bogus_{k % 7}\n"
             f"#section code\n" for k in range(first, first + n)]
    kernels = "#section kernels\n" + "__global__ __launch_bounds__(\n" * n + 'extern "C" {\n' * n
    return "".join(units) + kernels + f"#section support_code\nint DTYPE_INPTU_{'9' * (2 * n)}{first} = 0;\n"


def _lines_run(path):
    """Run the lint on `path`; return how many Python lines it ran (a count, whatever the machine's load)."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        count += event == "line"
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        diagnostics = lint.check_file(path)
    finally:
        sys.settrace(previous)
    assert diagnostics
    return count


def test_the_lines_the_lint_runs_grow_linearly(tmp_path):
    path = tmp_path / "hostile.c"
    counts = []
    for n, first in ((100, 10_000), (400, 20_000)):
        path.write_text(hostile(n, first))
        counts.append(_lines_run(path))
    assert counts[1] <= 4.6 * counts[0], counts


class Counted(str):
    """A str that adds to `scanned` the characters each operation on it is handed (a slice, a range searched)."""

    scanned = 0

    def __getitem__(self, key):
        result = str.__getitem__(self, key)
        Counted.scanned += len(result) if isinstance(key, slice) else 1
        return result

    def _ranged(name):
        def method(self, sub, start=None, end=None):
            begin, stop, _ = slice(start, end).indices(len(self))
            Counted.scanned += max(0, stop - begin)
            return getattr(str, name)(self, sub, start, end)
        return method

    find, rfind, count, index, rindex, startswith, endswith = map(
        _ranged, ("find", "rfind", "count", "index", "rindex", "startswith", "endswith"))

    def _whole(name):
        def method(self, *args, **kwargs):
            Counted.scanned += len(self)
            return getattr(str, name)(self, *args, **kwargs)
        return method

    strip, lstrip, rstrip, split, splitlines, replace, lower, upper, __iter__, __contains__ = map(
        _whole, ("strip", "lstrip", "rstrip", "split", "splitlines", "replace", "lower", "upper", "__iter__",
                 "__contains__"))


class CountedPattern:
    """A compiled regex that adds to Counted.scanned the characters each call may search."""

    def __init__(self, pattern):
        self.pattern = pattern

    @staticmethod
    def _count(string, pos=0, endpos=None):
        Counted.scanned += max(0, min(len(string), len(string) if endpos is None else endpos) - pos)

    def _scan(name):
        def method(self, string, pos=0, endpos=sys.maxsize):
            CountedPattern._count(string, pos, endpos)
            return getattr(self.pattern, name)(string, pos, endpos)
        return method

    search, match, fullmatch, finditer, findall = map(_scan, ("search", "match", "fullmatch", "finditer", "findall"))

    def sub(self, repl, string, count=0):
        CountedPattern._count(string)
        return self.pattern.sub(repl, string, count)

    def __getattr__(self, name):
        return getattr(self.pattern, name)


def test_the_characters_the_lint_scans_grow_linearly(tmp_path, monkeypatch):
    """Every text the lint reads is a Counted, every regex of it a CountedPattern: looking back over a section
    once per kernel (or searching its start again) would count the square of its length."""
    for name, value in list(vars(lint).items()):
        if isinstance(value, re.Pattern):
            monkeypatch.setattr(lint, name, CountedPattern(value))
    scan, mask, read = lint.scan_text, lint.mask_comments_and_literals, lint.read_section_file
    monkeypatch.setattr(lint, "read_section_file", lambda path: Counted(read(path)))
    monkeypatch.setattr(lint, "mask_comments_and_literals", lambda text: Counted(mask(text)))
    monkeypatch.setattr(lint, "scan_text", lambda text, path: (
        [dataclasses.replace(s, text=Counted(s.text)) for s in scan(text, path)[0]], scan(text, path)[1]))
    path = tmp_path / "hostile.c"
    scanned = []
    for n, first in ((200, 30_000), (800, 40_000)):
        path.write_text(hostile(n, first))
        Counted.scanned = 0
        assert lint.check_file(path)
        scanned.append(Counted.scanned)
    assert scanned[1] <= 4.6 * scanned[0], scanned
    assert scanned[1] <= 20 * len(hostile(800, 40_000)), scanned


def test_the_kernel_checks_read_in_one_pass_say_what_they_said(tmp_path):
    """The neighbours of the one-pass kernel check: an extern "C" block (a brace in a comment does not close it,
    a struct's braces do), extern "C" on its own line, __launch_bounds__, a name past a never-closed paren."""
    source = textwrap.dedent('''\
        #section kernels
        extern "C" {
        /* } */ __global__ void APPLY_SPECIFIC(a)(float *x) { }
        }
        extern "C" { struct S { int v; }; __global__ void b(float *x) { } }
        extern
          "C"
        __global__ __launch_bounds__(256, 2) void c(float *x) { }
        __global__ void d(float *x);
        __global__ __launch_bounds__(
        ''')
    path = tmp_path / "kernels.c"
    path.write_text(source)
    found = [(d.line, d.severity, d.message.split(":")[0]) for d in lint.check_file(path)]
    assert found == [
        (5, "error", 'b is __global__ without extern "C"'),
        (8, "warning", "kernel 'c' is not named through APPLY_SPECIFIC"),
        (9, "error", 'd is __global__ without extern "C"'),
        (10, "error", 'this kernel is __global__ without extern "C"'),
    ], found


def test_a_misspelt_macro_is_still_found_and_a_long_name_costs_its_length(tmp_path):
    digits = "7" * 20_000
    path = tmp_path / "misspelt.c"
    path.write_text(f"#section support_code_apply\nint x = DTYPE_INPTU_0 + OUTPTU_1 + APLY_SPECIFIC;\n"
                    f"int y = DTYPE_INPTU_{digits} + {'q' * 50_000};\n")
    messages = [(d.line, d.message) for d in lint.check_file(path)]
    assert [line for line, _ in messages] == [2, 2, 2, 3]
    assert "did you mean DTYPE_INPUT_0?" in messages[0][1] and "did you mean OUTPUT_1?" in messages[1][1]
    assert "did you mean APPLY_SPECIFIC?" in messages[2][1]
    assert messages[3][1].endswith(f"did you mean DTYPE_INPUT_{digits}?")
