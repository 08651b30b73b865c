"""`opkit build --into` publishes a shipped module atomically: concurrent runs, and a kill, leave a usable module.

The op package is the example's source, made importable with a hand-written
dist-info (its entry point) on PYTHONPATH: real `opkit build` processes, no venv.
"""

import fcntl
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from helpers.shipped import BUILD, OPKIT, build, make_package

RUN = textwrap.dedent("""
    import numpy as np, opkit
    from opkit.cop.store.cache import module_events
    a = np.arange(4.0)
    assert (opkit.ops.vector_times_vector.compute(a, a) == a * a).all()
    print(dict(module_events))
""")


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """Return (the package's source directory, the environment that sees it), with one module shipped."""
    return make_package(tmp_path_factory.mktemp("publish"))


def the_entry(into):
    [entry] = [e for e in (into / "_opkit_modules").iterdir() if not e.name.startswith(".")]
    return entry


def runs_without_a_compiler(env, cwd):
    result = subprocess.run([sys.executable, "-c", RUN], env=dict(env, OPKIT_FLAGS="cxx=/nonexistent/bin/c++"),
                            cwd=cwd, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_two_concurrent_builds_into_one_package_both_succeed_and_leave_one_module(package, tmp_path):
    into, env = package
    runs = [subprocess.Popen([*OPKIT, *BUILD, "--into", str(into)], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outcomes = [(run.wait(timeout=300), run.stderr.read()) for run in runs]
    for run in runs:
        run.stdout.close(), run.stderr.close()
    assert outcomes == [(0, "")] * 3
    entry = the_entry(into)
    meta = json.loads((entry / "meta.json").read_text())
    assert sorted(p.name for p in entry.iterdir()) == sorted(["meta.json", meta["so_name"]])
    assert [p.name for p in (into / "_opkit_modules").iterdir()] == [entry.name]  # no staging folder left
    assert runs_without_a_compiler(env, tmp_path) == "{'shipped': 1}"


def test_a_build_killed_at_the_publish_point_leaves_the_old_module_usable(package, tmp_path):
    into, env = package
    entry = the_entry(into)
    before = {p.name: p.read_bytes() for p in entry.iterdir()}
    fd = os.open(entry, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another publisher of this key holds it: the build waits at the publish point
    try:
        process = subprocess.Popen([*OPKIT, *BUILD, "--into", str(into)], env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True)
        lines = []
        while not lines or not lines[-1].startswith("cache entry: "):
            lines.append(process.stdout.readline())
            assert lines[-1], lines
        deadline = time.monotonic() + 60
        while "lock" not in open(f"/proc/{process.pid}/wchan").read():  # blocked in flock()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=60) == -signal.SIGKILL
        process.stdout.close()
    finally:
        os.close(fd)
    assert {p.name: p.read_bytes() for p in entry.iterdir()} == before
    assert runs_without_a_compiler(env, tmp_path) == "{'shipped': 1}"


def test_what_a_killed_publisher_left_is_ignored_then_cleaned(package, tmp_path):
    into, env = package
    entry = the_entry(into)
    meta = json.loads((entry / "meta.json").read_text())
    half = entry / f".{meta['so_name']}.99999999.tmp"
    half.write_bytes(b"\x7fELF half")
    staging = into / "_opkit_modules" / f".{entry.name}.99999999"  # what an older opkit left when killed
    staging.mkdir()
    (staging / "meta.json").write_text(json.dumps({**meta, "signature": "a staging folder"}))
    doctor = subprocess.run([*OPKIT, "doctor"], env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert "a staging folder" not in doctor.stdout + doctor.stderr
    assert runs_without_a_compiler(env, tmp_path) == "{'shipped': 1}"
    build(into, env)
    assert not half.exists() and not staging.exists()
    assert sorted(p.name for p in entry.iterdir()) == sorted(["meta.json", meta["so_name"]])


def test_build_into_refuses_to_ship_a_sanitized_module(package):
    into, env = package
    entry = the_entry(into)
    before = {p.name: p.read_bytes() for p in entry.iterdir()}
    result = subprocess.run([*OPKIT, *BUILD, "--into", str(into)], env=dict(env, OPKIT_FLAGS="sanitize=address"),
                            capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (f"opkit: error: --into {into}: modules built with sanitize=address cannot be shipped: "
                             "they abort any process that does not preload the sanitizer runtime\n"
                             "fix: run `opkit build ... --into` without sanitize=address (unset it in OPKIT_FLAGS)\n")
    assert [e.name for e in (into / "_opkit_modules").iterdir()] == [entry.name]
    assert {p.name: p.read_bytes() for p in entry.iterdir()} == before


def test_a_sanitized_process_is_never_served_a_shipped_module(package, tmp_path):
    from opkit.cop.toolchain.sanitize import asan_runtime

    into, env = package
    sanitized = dict(env, OPKIT_FLAGS="sanitize=address", LD_PRELOAD=asan_runtime(),
                     ASAN_OPTIONS="detect_leaks=0", OPKIT_COMPILEDIR=str(tmp_path / "cache"))
    result = subprocess.run([sys.executable, "-c", RUN], env=sanitized, cwd=tmp_path, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "'shipped'" not in result.stdout and "'built'" in result.stdout  # its own, sanitized, builds
    keys = subprocess.run([sys.executable, "-c", "from opkit.cop.store.shipped import shipping_flags; "
                           "print(shipping_flags())"], env=sanitized, capture_output=True, text=True, timeout=60)
    assert "-fsanitize=address" in keys.stdout  # part of the shipped key too


@pytest.mark.parametrize("flags", ["", ",openmp=false"])  # what one core chooses by default, and said outright
def test_a_one_core_machine_without_a_compiler_runs_a_module_shipped_by_a_two_core_build(package, tmp_path, flags):
    into, env = package
    assert len(os.sched_getaffinity(0)) >= 2  # the fixture's build ran with OpenMP on by default
    one_core = dict(env, OMP_NUM_THREADS="1", OPKIT_FLAGS="cxx=/nonexistent/bin/c++" + flags)
    code = RUN + "print(opkit.config.openmp, opkit.config.threads)\n"
    result = subprocess.run(["taskset", "-c", "0", sys.executable, "-c", code], env=one_core, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["{'shipped': 1}", "False 1"]  # one core: OpenMP off by default


def test_a_one_core_build_ships_the_module_a_two_core_build_does(package):
    into, env = package
    entries = sorted(e.name for e in (into / "_opkit_modules").iterdir())
    result = subprocess.run(["taskset", "-c", "0", *OPKIT, *BUILD, "--into", str(into)], env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "was already built: nothing to do" in result.stdout  # the same module, from the cache
    assert sorted(e.name for e in (into / "_opkit_modules").iterdir()) == entries


def test_build_into_refuses_a_compiler_without_openmp(package, tmp_path):
    into, env = package
    entries = sorted(e.name for e in (into / "_opkit_modules").iterdir())
    wrapper = tmp_path / "g++-without-openmp"
    wrapper.write_text('#!/bin/sh\nfor a in "$@"; do [ "$a" = -fopenmp ] && exit 1; done\nexec g++ "$@"\n')
    wrapper.chmod(0o755)
    result = subprocess.run([*OPKIT, *BUILD, "--into", str(into)], capture_output=True, text=True, timeout=300,
                            env=dict(env, OPKIT_FLAGS=f"cxx={wrapper}", OPKIT_COMPILEDIR=str(tmp_path / "cache")))
    assert (result.returncode, result.stderr) == (1, (
        "opkit: error: modules meant to ship are built with OpenMP (-fopenmp), so that they run on any machine "
        "whatever its cores, and this compiler cannot link -fopenmp\n"
        "fix: install the compiler's OpenMP runtime (libgomp, libomp), or choose a compiler that has one: "
        "OPKIT_FLAGS=cxx=...\n"))
    assert sorted(e.name for e in (into / "_opkit_modules").iterdir()) == entries
