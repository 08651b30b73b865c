"""A compiler that never returns (a #include of a FIFO, a hung compiler) is stopped after config.compile_timeout.

The error names the command; the compiler and everything it started are gone afterwards, and the
key's lock is free again.
"""

import os
import time

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit import Apply, Op
from opkit.errors import CompileError


class IncludesHeader(Op):
    """x + 1, compiled with `#include "<header>"` from `directory` (a FIFO in these tests)."""

    __props__ = ("directory", "header")

    def __init__(self, directory, header):
        self.directory, self.header = str(directory), header

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def c_header_dirs(self, **kwargs):
        return [self.directory]

    def c_headers(self, **kwargs):
        return [f'"{self.header}"']

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (z,) = inputs, outputs
        return f"""
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_FromAny((PyObject*){x}, NULL, 0, 0, NPY_ARRAY_ENSURECOPY, NULL);
        if (!{z}) {sub['fail']}
        """

    def c_code_cache_version(self):
        return (1,)


def compile_with_fifo_header(directory):
    x = ot.dvector("x")
    return opkit.function([x], IncludesHeader(directory, "stuck.h")(x), mode="FAST_COMPILE")


def live_processes_naming(text) -> list[int]:
    """Return the pids of running processes whose command line contains `text` (zombies do not count)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmdline and not gone(int(entry)):
                found.append(int(entry))
    return found


def gone(pid) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")  # killed, not yet reaped by init
    except FileNotFoundError:
        return True


def eventually(check, seconds=10.0):
    """Return True as soon as `check()` does (the kernel reaps killed processes asynchronously)."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_fifo_include_times_out_with_the_command_named_and_the_compiler_stopped(tmp_path, monkeypatch):
    monkeypatch.setenv("OPKIT_NO_PCH", "1")
    headers = tmp_path / "headers"
    headers.mkdir()
    fifo = headers / "stuck.h"
    os.mkfifo(fifo)
    with opkit.config.change_flags(compiledir=str(tmp_path / "cache"), compile_timeout=3):
        with pytest.raises(CompileError) as excinfo:
            compile_with_fifo_header(headers)  # the identity step (headers of the key) does not open the FIFO
        lines = str(excinfo.value).splitlines()
        command = excinfo.value.command
        assert lines[0].startswith("compiling the C++ module 'opkit_")
        assert lines[0].endswith("' timed out: the compiler was stopped after 3 s (config.compile_timeout)")
        assert lines[1] == f"command: {' '.join(command)}"
        assert "-c" in command and f"-I{headers}" in command
        assert lines[2] == "a compiler waits for ever on a #include of a FIFO or a device, or when it hangs"
        assert lines[3] == ("fix: include only regular files; if the module is just slow to build, raise the limit: "
                            "OPKIT_FLAGS=compile_timeout=SECONDS (or opkit.config.compile_timeout = ...)")
        assert lines[4].startswith("full source kept at ")
        assert excinfo.value.returncode is None
        # cc1plus, blocked opening the FIFO (named by its -I), was killed with the driver.
        assert eventually(lambda: live_processes_naming(str(headers)) == [])
        # The key's lock was released: a second try meets the same timeout, not a lock wait.
        with opkit.config.change_flags(compile_lock_timeout=0.5, compile_timeout=1):
            with pytest.raises(CompileError) as again:
                compile_with_fifo_header(headers)
        assert "timed out: the compiler was stopped after 1 s" in str(again.value)


HUNG_CHILD = """
import sys
import numpy as np
import opkit, opkit.tensor as ot
from opkit.errors import CompileError
x = ot.lvector("x")
try:
    opkit.function([x], x * 11 + 5, mode="FAST_COMPILE")
except CompileError as exc:
    print(exc)
else:
    sys.exit("no CompileError")
"""


def test_a_hung_compiler_and_what_it_started_are_stopped(tmp_path):
    """A real compiler wrapper: compile commands start a child and hang; everything else is g++.

    In a fresh process, so that no module this session already loaded serves the graph.
    """
    import subprocess
    import sys

    pids = tmp_path / "pids"
    wrapper = tmp_path / "hanging-g++"
    wrapper.write_text('#!/bin/sh\nfor a in "$@"; do\n  if [ "$a" = -c ]; then\n'
                       f'    sleep 1000 & echo $! >> {pids}\n    echo $$ >> {pids}\n    exec sleep 1000\n'
                       '  fi\ndone\nexec g++ "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, "OPKIT_NO_PCH": "1", "OPKIT_COMPILEDIR": str(tmp_path / "cache"),
           "OPKIT_FLAGS": f"cxx={wrapper},compile_timeout=2"}
    run = subprocess.run([sys.executable, "-c", HUNG_CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].endswith("' timed out: the compiler was stopped after 2 s (config.compile_timeout)")
    assert lines[1].startswith(f"command: {wrapper} ")
    child, driver = pids.read_text().split()
    assert eventually(lambda: gone(int(child)) and gone(int(driver)))
    x = ot.lvector("x")
    with opkit.config.change_flags(compiledir=str(tmp_path / "cache")):
        f = opkit.function([x], x * 11 + 5, mode="FAST_COMPILE")  # the same key, with a working compiler
        assert f(np.arange(3)).tolist() == [5, 16, 27]


def test_compile_timeout_is_a_flag_with_a_generous_default():
    from opkit.config import Config

    assert Config(environ={}).compile_timeout == 600.0
    assert Config(environ={"OPKIT_FLAGS": "compile_timeout=1800"}).compile_timeout == 1800.0
