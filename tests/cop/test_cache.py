"""The module cache, with real compiles and real processes."""

import contextlib
import json
import multiprocessing
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from opkit.config import config
from opkit.cop.store import lock as lock_module
from opkit.cop.toolchain.extension import build_extension
from opkit.cop.toolchain.identity import cache_key
from opkit.cop.store.cache import (CACHE_FORMAT, CacheWarning, CompileLockTimeout, ModuleCache, UnsafeCacheDirError,
                                   default_cache, module_name_for)
from opkit.errors import CompileError


def _key(label):
    return cache_key("test", label, str(os.getpid()), str(time.time_ns()))


def _counting_build(source, name, marker):
    """Return a build function that appends this process's pid to `marker`, then compiles."""
    def build(tmp_dir):
        with open(marker, "a") as file:
            file.write(f"{os.getpid()}\n")
        return build_extension(source, name, tmp_dir)
    return build


def _race(root, key, source, marker, barrier):
    """Child process: meet the others at the barrier, then get_or_build one key."""
    name = module_name_for(key)
    barrier.wait(timeout=120)
    module = ModuleCache(root).get_or_build(key, _counting_build(source, name, marker),
                                            module_name=name)
    sys.exit(0 if module.add(2, 3) == 5 else 3)


def _hang_in_build(root, key, started):
    """Child process: start building `key`, say so, and never finish."""
    def build(tmp_dir):
        (tmp_dir / f"{module_name_for(key)}.cpp").write_text("// half written")
        pathlib.Path(started).touch()
        time.sleep(300)
    ModuleCache(root).get_or_build(key, build, module_name=module_name_for(key))


@contextlib.contextmanager
def _hanging_builder(root, key, tmp_path):
    """Run a forked process that holds `key`'s lock in a build; SIGKILL it on exit."""
    started = tmp_path / f"started-{key[:8]}"
    process = multiprocessing.get_context("fork").Process(target=_hang_in_build, args=(root, key, started))
    process.start()
    try:
        deadline = time.monotonic() + 60
        while not started.exists():
            assert process.is_alive() and time.monotonic() < deadline
            time.sleep(0.01)
        yield process
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.join()


def _get_tiny(root, key, make_source, builds=None):
    """Get the tiny module for `key` from the cache at `root`, recording builds in `builds`."""
    name = module_name_for(key)

    def build(tmp_dir):
        if builds is not None:
            builds.append(tmp_dir)
        return build_extension(make_source(name), name, tmp_dir)
    return ModuleCache(root).get_or_build(key, build, module_name=name)


def test_key_is_stable_and_unambiguous():
    assert cache_key("ab", "c") == cache_key("ab", b"c") != cache_key("a", "bc")
    assert re.fullmatch("[0-9a-f]{64}", cache_key())
    with pytest.raises(TypeError, match="int"):
        cache_key("x", 1)


def test_key_is_the_same_under_any_hash_seed():
    expected = cache_key("source", b"\x00header", "g++ 12", "-O2")
    code = "from opkit.cop.toolchain.identity import cache_key; print(cache_key('source', b'\\x00header', 'g++ 12', '-O2'))"
    for seed in ("0", "1", "4242"):
        run = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": seed},
                             capture_output=True, text=True, check=True)
        assert run.stdout.strip() == expected


def test_miss_builds_and_publishes_then_a_hit_only_loads(tmp_path, tiny_source):
    root, key, builds = tmp_path / "cache", _key("hit"), []
    assert _get_tiny(root, key, tiny_source, builds).add(1, 2) == 3
    entry = root / key[:2] / key
    meta = json.loads((entry / "meta.json").read_text())
    assert (meta["key"], meta["format"], meta["module_name"]) == (key, CACHE_FORMAT, module_name_for(key))
    assert meta["so_size"] == (entry / meta["so_name"]).stat().st_size
    assert (entry / "module.cpp").read_text() == tiny_source(module_name_for(key))
    assert sorted(p.name for p in entry.iterdir()) == sorted(["last_used", "meta.json", "module.cpp", meta["so_name"]])
    assert root.stat().st_mode & 0o777 == 0o700
    assert not list(root.glob(".build-*"))
    assert _get_tiny(root, key, tiny_source, builds).add(1, 2) == 3
    assert len(builds) == 1


def test_a_hit_never_lists_the_cache(tmp_path, tiny_source, monkeypatch):
    root, key = tmp_path / "cache", _key("no-listing")
    child = multiprocessing.get_context("fork").Process(target=_get_tiny, args=(root, key, tiny_source))
    child.start()
    child.join()

    def refuse(*args, **kwargs):
        raise AssertionError("a cache hit listed a directory")
    for name in ("scandir", "listdir"):
        monkeypatch.setattr(os, name, refuse)
    for name in ("iterdir", "glob"):
        monkeypatch.setattr(pathlib.Path, name, refuse)
    assert _get_tiny(root, key, tiny_source, builds := []).add(1, 1) == 2 and builds == []


# A spawned process imports this file and opkit afresh (about 0.5 s of CPU each): four race as eight do (one lock,
# one build); eight spawned ones are soak (`-m soak`). Eight forked ones cost little.
@pytest.mark.parametrize("method, count", [("spawn", 4), pytest.param("spawn", 8, marks=pytest.mark.soak),
                                           ("fork", 8)])
def test_racing_processes_build_one_key_once(tmp_path, method, count, tiny_source):
    root, key, marker = tmp_path / "cache", _key(method), tmp_path / "builds"
    source = tiny_source(module_name_for(key))
    context = multiprocessing.get_context(method)
    barrier = context.Barrier(count)
    processes = [context.Process(target=_race, args=(root, key, source, marker, barrier)) for _ in range(count)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(120)
    assert [process.exitcode for process in processes] == [0] * count
    assert len(marker.read_text().splitlines()) == 1


def test_threads_build_one_key_once(tmp_path, tiny_source):
    root, key, builds = tmp_path / "cache", _key("threads"), []
    cache, barrier, results = ModuleCache(root), threading.Barrier(4), []
    name = module_name_for(key)

    def run():
        barrier.wait()
        results.append(cache.get_or_build(key, lambda d: builds.append(d) or build_extension(
            tiny_source(name), name, d), module_name=name))
    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(builds) == 1 and len(results) == 4 and len({id(m) for m in results}) == 1


def test_a_sigkilled_build_blocks_nobody(tmp_path, tiny_source):
    root, key = tmp_path / "cache", _key("killed")
    with _hanging_builder(root, key, tmp_path):
        assert list(root.glob(".build-*"))
    start = time.monotonic()
    assert _get_tiny(root, key, tiny_source).add(2, 2) == 4
    assert time.monotonic() - start < 10
    assert not list(root.glob(".build-*"))


def test_different_keys_do_not_wait_for_each_other(tmp_path, tiny_source):
    root, slow, fast = tmp_path / "cache", _key("slow"), _key("fast")
    with _hanging_builder(root, slow, tmp_path) as process:
        start = time.monotonic()
        assert _get_tiny(root, fast, tiny_source).add(1, 1) == 2
        assert time.monotonic() - start < 10 and process.is_alive()


def test_a_wait_names_the_holder_and_times_out(tmp_path, monkeypatch, tiny_source):
    root, key = tmp_path / "cache", _key("timeout")
    monkeypatch.setattr(lock_module, "LOCK_WARN_AFTER", 0.2)
    with _hanging_builder(root, key, tmp_path) as process, config.change_flags(compile_lock_timeout=1.0):
        with pytest.warns(CacheWarning, match=f"held by pid {process.pid} "):
            with pytest.raises(CompileLockTimeout, match=f"held by pid {process.pid} ") as info:
                _get_tiny(root, key, tiny_source)
    assert isinstance(info.value, CompileError) and isinstance(info.value, TimeoutError)
    assert "compile_lock_timeout" in str(info.value)


def _truncate_so(entry):
    so = next(entry.glob("*.so"))
    so.write_bytes(so.read_bytes()[:1000])


def _garble_meta(entry):
    (entry / "meta.json").write_text("{not json")


def _remove_so(entry):
    next(entry.glob("*.so")).unlink()


@pytest.mark.parametrize("damage", [_truncate_so, _garble_meta, _remove_so])
def test_a_corrupt_entry_is_reported_and_rebuilt(tmp_path, damage, tiny_source):
    root, key, builds = tmp_path / "cache", _key(damage.__name__), []
    # Build in a child: truncating a shared object this process has mapped would crash it.
    child = multiprocessing.get_context("fork").Process(target=_get_tiny, args=(root, key, tiny_source))
    child.start()
    child.join()
    entry = root / key[:2] / key
    damage(entry)
    with pytest.warns(CacheWarning, match=re.escape(str(entry))):
        assert _get_tiny(root, key, tiny_source, builds).add(3, 4) == 7
    assert len(builds) == 1
    _get_tiny(root, key, tiny_source, builds)
    assert len(builds) == 1


def test_a_failed_build_keeps_its_source_and_releases_the_lock(tmp_path, tiny_source):
    root, key = tmp_path / "cache", _key("fails")
    name = module_name_for(key)
    with pytest.raises(CompileError) as info:
        ModuleCache(root).get_or_build(key, lambda d: build_extension("int x = ;", name, d), module_name=name)
    assert pathlib.Path(info.value.source_path).read_text() == "int x = ;"
    assert f"full source kept at {info.value.source_path}" in str(info.value)
    assert _get_tiny(root, key, tiny_source).add(1, 1) == 2


def test_a_cache_writable_by_others_is_refused(tmp_path, tiny_source):
    root = tmp_path / "cache"
    root.mkdir()
    root.chmod(0o777)
    with pytest.raises(UnsafeCacheDirError, match=f"chmod 700 {re.escape(str(root))}") as info:
        _get_tiny(root, _key("unsafe"), tiny_source)
    assert isinstance(info.value, PermissionError) and info.value.path == str(root)
    assert "writable by other users" in str(info.value)
    root.chmod(0o700)
    key = _key("unsafe-entry")
    _get_tiny(root, key, tiny_source)
    # An entry others could have changed is never loaded: it is rebuilt, with one warning.
    (root / key[:2] / key).chmod(0o777)
    builds = []
    with pytest.warns(CacheWarning, match="writable by other users") as warned:
        assert _get_tiny(root, key, tiny_source, builds).add(1, 1) == 2
    assert len(builds) == 1 and len([w for w in warned if w.category is CacheWarning]) == 1
    assert (root / key[:2] / key).stat().st_mode & 0o777 == 0o700


def _set_last_used(root, key, age):
    stamp = root / key[:2] / key / "last_used"
    os.utime(stamp, (time.time() - age, time.time() - age))


def test_lru_eviction_removes_the_least_recently_used_entry(tmp_path, tiny_source):
    root, (a, b, c) = tmp_path / "cache", [_key(label) for label in "abc"]
    _get_tiny(root, a, tiny_source)
    _get_tiny(root, b, tiny_source)
    _set_last_used(root, a, 100)
    _set_last_used(root, b, 50)
    _get_tiny(root, a, tiny_source)  # a hit makes `a` the most recently used
    total = ModuleCache(root).upkeep.info()["total_bytes"]
    with config.change_flags(cache_max_bytes=int(total * 1.25)):
        _get_tiny(root, c, tiny_source)
    assert sorted(entry.key for entry in ModuleCache(root).upkeep.entries()) == sorted([a, c])


def test_info_prune_and_clear(tmp_path, tiny_source):
    root, keys = tmp_path / "cache", [_key("one"), _key("two")]
    cache = ModuleCache(root)
    assert cache.upkeep.info()["entries"] == 0 and cache.upkeep.prune() == []
    for key in keys:
        _get_tiny(root, key, tiny_source)
    info = cache.upkeep.info()
    assert (info["root"], info["entries"]) == (str(root), 2) and info["total_bytes"] > 0
    assert cache.upkeep.prune() == []
    lock = cache.key_lock(keys[0])
    assert lock.acquire(wait=False)
    try:
        assert [entry.key for entry in cache.upkeep.clear()] == [keys[1]]
    finally:
        lock.release()
    assert [entry.key for entry in cache.upkeep.clear()] == [keys[0]]
    assert cache.upkeep.info()["entries"] == 0
    assert [p.name for p in root.iterdir()] == ["CACHEDIR.TAG"]  # clear leaves only opkit's mark: no lock files, no totals


def test_default_cache_follows_config_compiledir(tmp_path):
    first = default_cache()
    assert first.root == pathlib.Path(config.compiledir) and default_cache() is first
    with config.change_flags(compiledir=str(tmp_path / "elsewhere")):
        assert default_cache().root == tmp_path / "elsewhere"
    assert default_cache().root == first.root
