"""The cache in hostile environments: any umask, read-only, damaged entries, leftovers, 20,000 entries.

Tests run as root here, and root ignores permission bits. The checking parts run
in a child process without CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and CAP_FOWNER
(dropped from its bounding set before exec), so the kernel enforces every mode
bit on it as on any user; each such child first proves that it cannot write a
read-only file. (Switching the child to `nobody` is not possible here: the
interpreter lives under /root, mode 0700.) As another user the child simply runs.
"""

import hashlib
import json
import os
import pathlib
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import time

import pytest

from opkit.config import config
from opkit.cop.store import cache as cache_module
from opkit.cop.compiledir import layout as cache_layout
from opkit.cop.store import upkeep as cache_upkeep
from opkit.cop.toolchain.extension import build_extension
from opkit.cop.toolchain.identity import cache_key
from opkit.cop.store.cache import CacheWarning, ModuleCache, module_name_for
from opkit.cop.compiledir.private_fs import CacheNotWritableError
from helpers.caches import copy_of, seeded
from helpers.child import GRAPH_CHILD, run_child

TESTS = pathlib.Path(__file__).resolve().parents[1]
# A child that gets tiny modules from a ModuleCache: argv = root, then key:offset pairs.
TINY_CHILD = textwrap.dedent(f"""
    import json, sys, warnings
    sys.path.insert(0, {str(TESTS)!r})
    from conftest import make_tiny_source
    from opkit.cop.toolchain.extension import build_extension
    from opkit.cop.store.cache import ModuleCache, module_name_for
    root, wanted = sys.argv[1], [item.split(":") for item in sys.argv[2:]]
    builds, values = [], []
    def getter(key, offset):
        name = module_name_for(key)
        def build(tmp_dir):
            builds.append(key)
            return build_extension(make_tiny_source(name, int(offset)), name, tmp_dir)
        return lambda cache: cache.get_or_build(key, build, module_name=name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for key, offset in wanted:
            get = getter(key, offset)
            shared = ModuleCache(root)
            # twice from one cache object, once from another (as after compiledir changes back)
            values += [get(shared).add(1, 1), get(shared).add(1, 1), get(ModuleCache(root)).add(1, 1)]
    print(json.dumps({{"values": values, "builds": builds,
                      "warnings": [f"{{w.category.__name__}}: {{w.message}}" for w in caught]}}))
""")

def _key(label):
    return cache_key("cache-env", label, str(os.getpid()), str(time.time_ns()))


@pytest.fixture(scope="module")
def plain_cache(tmp_path_factory):
    """A seeded cache in which a child built GRAPH_CHILD's "(x + 3) * x": the tests that start from a cache holding a
    module each change a copy of it (helpers.caches.copy_of)."""
    root = tmp_path_factory.mktemp("cache-env-plain") / "cache"
    env = {"OPKIT_COMPILEDIR": seeded(root)}
    assert run_child(GRAPH_CHILD, "plain", "(x + 3) * x", env=env)["results"] == [[0, 4, 10, 18]]
    return root


def _modes(root):
    """Return {relative path: mode} of everything under root, root included."""
    found = {".": stat.S_IMODE(os.lstat(root).st_mode)}
    for directory, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(directory, name)
            found[os.path.relpath(path, root)] = stat.S_IMODE(os.lstat(path).st_mode)
    return found


def _snapshot(root):
    return {path: (mode, os.lstat(os.path.join(root, path)).st_mtime_ns) for path, mode in _modes(root).items()}


def _unstamped(snapshot):
    """The snapshot but the last_used stamps' times (their owner may touch them even when read-only)."""
    return {path: mode if path.endswith("/last_used") else (mode, mtime) for path, (mode, mtime) in snapshot.items()}


def _chmod_tree(root, remove):
    for directory, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(directory, name)
            os.chmod(path, stat.S_IMODE(os.lstat(path).st_mode) & ~remove)
    os.chmod(root, stat.S_IMODE(os.lstat(root).st_mode) & ~remove)


def _restore_writable(root):
    os.chmod(root, 0o700)
    for directory, dirnames, filenames in os.walk(root):
        for name in dirnames:
            os.chmod(os.path.join(directory, name), 0o700)


def test_everything_opkit_creates_is_private_under_umask_000(tmp_path):
    root = tmp_path / "made" / "by" / "opkit"
    out = run_child(GRAPH_CHILD, "umask0", "(x + 3) * x", "x * 5 - 2", env={"OPKIT_COMPILEDIR": str(root)})
    assert out["results"] == [[0, 4, 10, 18], [-2, 3, 8, 13]] and out["warnings"] == []
    assert pathlib.Path(out["kept"]).read_text() == "int x = ;"  # the failed build's source is kept...
    modes = _modes(tmp_path / "made")
    assert list(tmp_path.glob("made/by/opkit/pch/*/opkit_pch.hpp.gch")), "the test needs a real PCH build"
    assert any(path.endswith(".lock") for path in modes) and any(".build-" in path for path in modes)
    wrong = {path: oct(mode) for path, mode in modes.items()
             if mode != (0o700 if os.path.isdir(tmp_path / "made" / path) else 0o600)}
    assert wrong == {}, f"not private under umask 000: {wrong}"


def test_a_read_only_cache_serves_hits_and_a_miss_is_one_clear_error(plain_cache, tmp_path):
    root = copy_of(plain_cache, tmp_path)  # "(x + 3) * x" built there
    env = {"OPKIT_COMPILEDIR": str(root)}
    _chmod_tree(root, 0o222)
    before = _snapshot(root)
    try:
        hit = run_child(GRAPH_CHILD, "plain", "(x + 3) * x", env=env, unprivileged=True)
        assert hit == {"warnings": [], "results": [[0, 4, 10, 18]]}
        assert _unstamped(_snapshot(root)) == _unstamped(before)  # nothing made, removed or changed
        missed = run_child(GRAPH_CHILD, "plain", "x * 7 + 1", "(x + 3) * x", env=env, unprivileged=True)
        error, served = missed["results"]
        assert served == [0, 4, 10, 18] and missed["warnings"] == []
        assert error.startswith(f"CacheNotWritableError: the compile cache {root} cannot be written")
        assert error.endswith(f"so the module cannot be built\nfix: `chmod -R u+rwX {root}`, or `opkit cache clear`, "
                              "or set OPKIT_COMPILEDIR to a directory you can write "
                              "(e.g. OPKIT_COMPILEDIR=/tmp/opkit-cache)")
        assert _unstamped(_snapshot(root)) == _unstamped(before)
    finally:
        _restore_writable(root)


def _mode_000(entry):
    entry.chmod(0)


def _file_instead_of_directory(entry):
    shutil.rmtree(entry)
    entry.write_text("not a directory")


def _foreign_shared_object(entry, other):
    """Put another module's .so under this entry, with a meta.json that matches its bytes."""
    meta = json.loads((entry / "meta.json").read_text())
    data = next(other.glob("*.so")).read_bytes()
    (entry / meta["so_name"]).write_bytes(data)
    meta.update(so_size=len(data), so_sha256=hashlib.sha256(data).hexdigest())
    (entry / "meta.json").write_text(json.dumps(meta))


# The tiny modules the tests below damage (a key each, its offset), built by one child in one cache (tiny_cache).
TINY_OFFSETS = {"_mode_000": 10, "_file_instead_of_directory": 10, "_foreign_shared_object": 10, "other": 20,
                "read-only-damaged": 5}


@pytest.fixture(scope="module")
def tiny_cache(tmp_path_factory):
    """(root, {name: key}): a cache in which one child built a tiny module for each of TINY_OFFSETS; each test
    damages its own entry in a copy of it (helpers.caches.copy_of)."""
    root = tmp_path_factory.mktemp("cache-env-tiny") / "cache"
    keys = {name: _key(name) for name in TINY_OFFSETS}
    built = run_child(TINY_CHILD, root, *(f"{keys[name]}:{offset}" for name, offset in TINY_OFFSETS.items()))
    assert built["values"] == [2 + offset for offset in TINY_OFFSETS.values() for _ in range(3)]
    return root, keys


@pytest.mark.parametrize("damage", [_mode_000, _file_instead_of_directory, _foreign_shared_object])
def test_an_unusable_entry_is_rebuilt_with_one_warning(tiny_cache, tmp_path, damage):
    built, keys = tiny_cache
    root, key, other = copy_of(built, tmp_path), keys[damage.__name__], keys["other"]  # built there, at offsets 10, 20
    entry = root / key[:2] / key
    if damage is _foreign_shared_object:
        damage(entry, root / other[:2] / other)
    else:
        damage(entry)
    out = run_child(TINY_CHILD, root, f"{key}:10", unprivileged=True)
    assert out["values"] == [12, 12, 12] and out["builds"] == [key]
    [warning] = out["warnings"]
    assert warning.startswith(f"CacheWarning: the compiled module {entry} cannot be used")
    assert "rebuilding" in warning
    # The rebuilt entry serves the next process, with no warning and no build.
    assert run_child(TINY_CHILD, root, f"{key}:10", unprivileged=True) == {"values": [12] * 3, "builds": [],
                                                                            "warnings": []}
    assert stat.S_IMODE(entry.stat().st_mode) == 0o700
    assert not list(root.glob(".trash-*"))


def test_an_unusable_entry_in_a_read_only_cache_is_bypassed_with_one_warning(tiny_cache, tmp_path):
    built, keys = tiny_cache
    root, key = copy_of(built, tmp_path), keys["read-only-damaged"]  # built there, at offset 5
    entry = root / key[:2] / key
    entry.chmod(0)
    _chmod_tree(root, 0o222)
    try:
        out = run_child(TINY_CHILD, root, f"{key}:5", unprivileged=True)
        assert out["values"] == [7, 7, 7] and out["builds"] == [key]
        [warning] = out["warnings"]
        assert f"the compiled module {entry} cannot be used" in warning and "cannot be written" in warning
        assert "for this process only" in warning
    finally:
        _restore_writable(root)


def test_a_killed_precompiled_header_build_leaves_nothing_prune_cannot_remove(tmp_path):
    root = tmp_path / "cache"
    code = textwrap.dedent("""
        from opkit.cop.toolchain.extension import build_flags
        from opkit.cop.toolchain.compiler import find_compiler, python_include_dirs
        from opkit.cop.toolchain.pch import pch_args
        pch_args(find_compiler(), build_flags()[0], python_include_dirs())
    """)
    env = {**os.environ, "OPKIT_COMPILEDIR": str(root)}
    env.pop("OPKIT_NO_PCH", None)
    child = subprocess.Popen([sys.executable, "-c", code], env=env)
    try:
        deadline = time.monotonic() + 60
        while not list(root.glob("pch/*/.tmp-*.gch")):
            assert child.poll() is None and time.monotonic() < deadline, "the PCH build never started"
            time.sleep(0.005)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    [directory] = root.glob("pch/*")
    assert not (directory / "opkit_pch.hpp.gch").exists()
    ModuleCache(root).upkeep.prune()
    assert not (root / "pch").exists() or list((root / "pch").iterdir()) == []


def _every_byte(root):
    """Every byte under root but opkit's mark on it (CACHEDIR.TAG, which info does not count)."""
    return sum(os.lstat(os.path.join(d, name)).st_size for d, _, names in os.walk(root) for name in names
               if os.path.join(d, name) != os.path.join(root, "CACHEDIR.TAG"))


def test_info_counts_every_byte_prune_removes_leftovers_and_clear_empties(tmp_path, tiny_source):
    root, key = tmp_path / "cache", _key("leftovers")
    name = module_name_for(key)
    cache = ModuleCache(root)
    cache.get_or_build(key, lambda d: build_extension(tiny_source(name), name, d), module_name=name)
    # A complete PCH (its header, and a .gch its seal names) with a stray temporary file, and an interrupted one.
    from opkit.cop.toolchain.pch import PCH_HEADER
    from opkit.cop.compiledir.private_fs import write_sealed

    complete, broken = root / "pch" / ("a" * 24), root / "pch" / ("b" * 24)
    for directory in (complete, broken):
        directory.mkdir(parents=True)
        (directory / "opkit_pch.hpp").write_text(PCH_HEADER)
        (directory / ".tmp-1-00.gch").write_bytes(b"x" * 1000)
    (complete / "opkit_pch.hpp.gch").write_bytes(b"g" * 5000)
    write_sealed(complete / "opkit_pch.hpp.gch.sha256", hashlib.sha256(b"g" * 5000).hexdigest().encode())
    seal_bytes = (complete / "opkit_pch.hpp.gch.sha256").stat().st_size
    (root / "pch" / "not-a-digest").write_text("?")
    # An index from an older opkit: one good file, and names or contents that are not keys.
    index = root / "index"
    index.mkdir()
    good, dangling, garbage = "1" * 64, "2" * 64, "3" * 64
    (index / good).write_text(key)
    (index / dangling).write_text("f" * 64)
    (index / garbage).write_text("../../etc/passwd")
    (index / "ZZ-not-hex").write_text(key)
    os.utime(index / "ZZ-not-hex", (time.time() - 3600, time.time() - 3600))
    # Trash with a mode-000 directory inside, and a failed build.
    trash = root / ".trash-0123"
    (trash / "locked").mkdir(parents=True)
    (trash / "locked" / "f").write_bytes(b"t" * 300)
    (trash / "locked").chmod(0)
    failed = root / f".build-{_key('failed')}-xyz"
    failed.mkdir()
    (failed / "module.cpp").write_text("int x = ;")
    try:
        info = cache.upkeep.info()
        assert info["entries"] == 1
        assert info["total_bytes"] == _every_byte(root)
        kinds = info["bytes_by_kind"]
        assert kinds["precompiled headers"] == 5000 + 2 * 1000 + 2 * len(PCH_HEADER) + seal_bytes + 1
        assert kinds["trash"] == 300 and kinds["builds and failed builds"] == len("int x = ;")
        assert kinds["index"] == 3 * 64 + len("../../etc/passwd") and kinds["modules"] > 0

        assert cache.upkeep.prune() == []
        # Names opkit's layout does not explain are not opkit's to remove (issue 22.2).
        assert sorted(p.name for p in index.iterdir()) == [good, "ZZ-not-hex"]
        assert sorted(p.name for p in (root / "pch").iterdir()) == [complete.name, "not-a-digest"]
        assert sorted(p.name for p in complete.iterdir()) == ["lock", "opkit_pch.hpp", "opkit_pch.hpp.gch",
                                                             "opkit_pch.hpp.gch.sha256"]
        assert not trash.exists() and not failed.exists()
        assert cache.upkeep.info()["entries"] == 1 and cache.upkeep.info()["total_bytes"] == _every_byte(root)

        assert [entry.key for entry in cache.upkeep.clear()] == [key]
        # Everything opkit made is gone; its mark stays, and so does what it did not make.
        assert sorted(str(p.relative_to(root)) for p in root.rglob("*")) == [
            "CACHEDIR.TAG", "index", "index/ZZ-not-hex", "pch", "pch/not-a-digest"]
        assert cache.upkeep.info()["entries"] == 0
        assert cache.upkeep.info()["total_bytes"] == _every_byte(root)
    finally:
        if (trash / "locked").exists():
            (trash / "locked").chmod(0o700)


def _fake_entries(root, count):
    """Make `count` entries cheaply: a directory with a small meta.json, an .so and a stamp each."""
    for i in range(count):
        key = hashlib.sha256(f"fake {i}".encode()).hexdigest()
        entry = root / key[:2] / key
        entry.mkdir(parents=True)
        (entry / "meta.json").write_text('{"key": "%s"}' % key)
        (entry / "opkit_fake.so").write_bytes(b"\0" * 64)


def _count_miss_work(monkeypatch, cache, tiny_source):
    """Build one new key in `cache`; return (directories listed, meta.json files read)."""
    listed, metas = [], []
    real_scandir, real_listdir, real_read_meta = os.scandir, os.listdir, cache_layout.read_meta

    def scandir(path="."):
        listed.append(os.fspath(path))
        return real_scandir(path)

    def listdir(path="."):
        listed.append(os.fspath(path))
        return real_listdir(path)

    def read_meta(entry):
        metas.append(entry)
        return real_read_meta(entry)

    key = _key("miss")
    name = module_name_for(key)
    with monkeypatch.context() as patch:
        patch.setattr(os, "scandir", scandir)
        patch.setattr(os, "listdir", listdir)
        for module in (cache_module, cache_upkeep):  # every module that reads a meta.json
            patch.setattr(module, "read_meta", read_meta)
        module = cache.get_or_build(key, lambda d: build_extension(tiny_source(name), name, d), module_name=name)
    assert module.add(1, 2) == 3
    root = str(cache.root)
    shard_listings = [path for path in listed
                      if os.path.dirname(path.rstrip("/")) == root and len(os.path.basename(path)) == 2]
    return len(listed), shard_listings, metas


def test_a_miss_costs_the_same_with_2000_entries_as_with_3(tmp_path, tiny_source, monkeypatch):
    # 2000 entries fill every one of the 256 shards: a miss that listed them, or read a meta.json, would show it
    # in the counts (20000 took a minute of file creation and taught nothing more).
    small, big = ModuleCache(tmp_path / "small"), ModuleCache(tmp_path / "big")
    _fake_entries(small.root, 3)
    _fake_entries(big.root, 2_000)
    with config.change_flags(cache_max_bytes=10 * 1024**3):
        # The first build into a cache made without a running total counts it, once.
        for cache in (small, big):
            _count_miss_work(monkeypatch, cache, tiny_source)
        small_work, big_work = (_count_miss_work(monkeypatch, cache, tiny_source) for cache in (small, big))
    assert big_work[1] == [] and big_work[2] == [], "a miss listed shards or read meta.json files"
    assert small_work[0] == big_work[0], (small_work, big_work)
    assert big.upkeep.info()["entries"] == 2_002
    # The running total matches what a full scan counts.
    total = int((big.root / "size-total").read_text())
    assert total == sum(found.size for found in big.upkeep.scan())


def test_a_build_over_the_cap_evicts_below_it_with_one_scan(tmp_path, tiny_source):
    cache = ModuleCache(tmp_path / "cache")
    keys = [_key(f"cap{i}") for i in range(3)]

    def get(key):
        name = module_name_for(key)
        return cache.get_or_build(key, lambda d: build_extension(tiny_source(name), name, d), module_name=name)
    get(keys[0])
    one = int((cache.root / "size-total").read_text())
    with config.change_flags(cache_max_bytes=int(one * 2.5)):
        get(keys[1])
        assert len(cache.upkeep.entries()) == 2
        get(keys[2])  # 3 entries > 2.5: evict down to 90% of the cap, i.e. two entries
    assert sorted(entry.key for entry in cache.upkeep.entries()) == sorted(keys[1:])
    assert int((cache.root / "size-total").read_text()) == sum(found.size for found in cache.upkeep.scan())


def test_a_cache_that_cannot_be_created_is_one_clear_error(tmp_path, tiny_source):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache's parent should be")
    cache = ModuleCache(blocker / "cache")
    key = _key("cannot-create")
    name = module_name_for(key)
    with pytest.raises(CacheNotWritableError, match=f"the compile cache {blocker / 'cache'} cannot be created") as info:
        cache.get_or_build(key, lambda d: build_extension(tiny_source(name), name, d), module_name=name)
    assert "\nfix: " in str(info.value) and "OPKIT_COMPILEDIR" in str(info.value)


def test_a_read_only_cache_without_a_precompiled_header_fails_a_miss_without_warnings(tmp_path):
    root = tmp_path / "cache"
    env = {"OPKIT_COMPILEDIR": str(root)}
    run_child(GRAPH_CHILD, "plain", "(x + 3) * x", env={**env, "OPKIT_NO_PCH": "1"})
    assert not (root / "pch").exists()
    _chmod_tree(root, 0o222)
    try:
        out = run_child(GRAPH_CHILD, "plain", "x * 7 + 1", "(x + 3) * x", env=env, unprivileged=True)
    finally:
        _restore_writable(root)
    assert out["results"][0].startswith("CacheNotWritableError: ") and out["results"][1] == [0, 4, 10, 18]
    assert out["warnings"] == []


def test_a_precompiled_header_others_could_change_is_not_used(plain_cache, tmp_path):
    # "(x + 3) * x" built there, with the session cache's precompiled headers (seeded), each in a folder of its own
    root = copy_of(plain_cache, tmp_path)
    env = {"OPKIT_COMPILEDIR": str(root)}
    directories = list(root.glob("pch/*"))
    assert directories
    for directory in directories:  # the session's cache may hold headers of other flags too: all alike
        directory.chmod(0o777)  # as an older opkit could have left it under umask 000
    out = run_child(GRAPH_CHILD, "plain", "x * 7 + 1", "x * 5 - 2", env=env)
    assert out["results"] == [[1, 8, 15, 22], [-2, 3, 8, 13]]
    [warning] = out["warnings"]
    [directory] = [d for d in directories if f" in {d}," in warning]  # the one this process's flags use
    assert warning.startswith(f"RuntimeWarning: opkit does not use the precompiled header in {directory},"
                              " which others could change")
    assert "writable by other users (mode 777)" in warning and "opkit cache clear" in warning
    assert subprocess.run([sys.executable, "-m", "opkit.cli", "cache", "clear"], env={**os.environ, **env},
                          capture_output=True, text=True).returncode == 0
    assert [p.name for p in root.iterdir()] == ["CACHEDIR.TAG"]  # opkit's mark stays


def test_cache_commands_report_every_kind_of_byte(plain_cache, tmp_path):
    root = copy_of(plain_cache, tmp_path)  # "(x + 3) * x" built there; precompiled headers and host answers
    env = {**os.environ, "OPKIT_COMPILEDIR": str(root)}
    (root / ".trash-0001").mkdir()
    (root / ".trash-0001" / "f").write_bytes(b"t" * 2048)

    def opkit_cache(*args):
        run = subprocess.run([sys.executable, "-m", "opkit.cli", "cache", *args], env=env, capture_output=True,
                             text=True)
        assert run.returncode == 0 and run.stderr == "", run.stderr
        return run.stdout
    modules = len(ModuleCache(root).upkeep.entries())
    info = opkit_cache("info")
    assert f"root:     {root}" in info and f"entries:  {modules}" in info
    assert "  modules: " in info and "  precompiled headers: " in info and "  trash: 2.0 KiB" in info
    assert opkit_cache("prune").startswith("evicted 0 module(s)")
    assert not (root / ".trash-0001").exists()
    assert opkit_cache("clear").startswith(f"removed {modules} module(s)")
    assert [p.name for p in root.iterdir()] == ["CACHEDIR.TAG"]  # opkit's mark stays
    assert "size:     0 B" in opkit_cache("info")
