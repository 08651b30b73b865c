"""The `opkit` logger: one INFO line per compile over a second, one per wait on another process's lock."""

import logging
import os
import subprocess
import sys
import time

import pytest

from opkit.cop.store.lock import KeyLock
from helpers.caches import seeded

COMPILE = ("import numpy as np, opkit, opkit.tensor as ot, opkit.cop.compile as c\n"
           "c.COMPILE_LOG_AFTER = float(__import__('sys').argv[1])\n"
           "x = ot.dvector('x')\nf = opkit.function([x], ot.exp(x) * {k} + 1)\nprint(f(np.zeros(2)).tolist())\n")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One seeded cache for this file's compiles (each of another graph): the call-path module every process
    loads (opkit.link.fastcall) is compiled there once, not once per test."""
    return seeded(tmp_path_factory.mktemp("logging") / "cache")


def _compile(cache, threshold, flags, k=3.0):
    env = {**os.environ, "OPKIT_COMPILEDIR": str(cache), "OPKIT_FLAGS": flags}
    return subprocess.run([sys.executable, "-c", COMPILE.format(k=k), str(threshold)], capture_output=True,
                          text=True, env=env, timeout=300)


def test_verbose_shows_one_line_per_slow_compile_on_stderr(cache):
    result = _compile(cache, 0.0, "verbose=true")  # every compile counts as slow here
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[4.0, 4.0]"
    lines = result.stderr.splitlines()
    [line] = [line for line in lines if "graph of" in line]
    assert line.startswith("opkit: compiled graph of 1 node(s) (module opkit_") and line.endswith(" s")
    again = _compile(cache, 0.0, "verbose=true")  # a cache hit compiles nothing: no line
    assert again.returncode == 0 and "graph of" not in again.stderr


def test_without_verbose_nothing_is_shown_and_fast_compiles_are_not_logged(cache):
    quiet = _compile(cache, 0.0, "", k=5.0)
    assert quiet.returncode == 0 and quiet.stderr == ""
    fast = _compile(cache, 3600.0, "verbose=true", k=7.0)  # under the threshold: not logged
    assert fast.returncode == 0 and fast.stderr == ""


HOLD = ("import fcntl, os, sys, time\nfd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\nos.pwrite(fd, f'{os.getpid()} testhost {time.time():.3f}\\n'.encode(), 0)\n"
        "print('locked', flush=True)\ntime.sleep(0.5)\n")


def test_waiting_for_another_process_is_one_info_line(tmp_path, caplog):
    path = tmp_path / "key.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    lock = KeyLock(path)
    with caplog.at_level(logging.INFO, logger="opkit"):
        started = time.monotonic()
        assert lock.acquire()
        waited = time.monotonic() - started
        lock.release()
        assert lock.acquire()  # nobody holds it now: no second line
        lock.release()
    holder.wait(timeout=60)
    [record] = caplog.records
    assert record.name == "opkit" and record.levelno == logging.INFO and waited > 0.2
    assert record.getMessage().startswith("waited ")
    assert f"s for another process's compile (lock {path}, held by pid {holder.pid} on testhost for " \
           in record.getMessage()


def test_a_bad_verbose_flag_is_refused():
    from opkit.config import config

    with pytest.raises(ValueError, match="opkit flag verbose='loud' must be true or false"):
        config.verbose = "loud"
