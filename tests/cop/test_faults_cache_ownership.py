"""The cache never deletes a user's file (issue 22: 1, 2, 17, 18, 19).

Every test runs the real `opkit` CLI and real compiles in child processes over a
cache under tmp_path; nothing of the file system is mocked.
"""

import os
import pathlib
import shutil
import stat
import subprocess
import sys
import textwrap

import pytest

BUILD = textwrap.dedent("""
    import sys
    import numpy as np
    import opkit, opkit.tensor as ot
    x = ot.dvector("x")
    f = opkit.function([x], x * float(sys.argv[1]) + 1)
    print(f(np.arange(3.0)).tolist())
""")


def run_python(code, *args, cache, env=None, check=True):
    environ = {**os.environ, "OPKIT_COMPILEDIR": str(cache)}
    environ.pop("OPKIT_FLAGS", None)
    environ.update(env or {})
    result = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=environ, capture_output=True,
                            text=True, timeout=300)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def opkit_cli(*args, cache):
    environ = {**os.environ, "OPKIT_COMPILEDIR": str(cache)}
    environ.pop("OPKIT_FLAGS", None)
    return subprocess.run([sys.executable, "-m", "opkit.cli", *args], env=environ, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def built_cache(tmp_path_factory):
    """A cache opkit made, with one function's modules (copied by each test that changes it)."""
    cache = tmp_path_factory.mktemp("built") / "cache"
    assert run_python(BUILD, 2, cache=cache).stdout.strip() == "[1.0, 3.0, 5.0]"
    return cache


def _copy(built_cache, tmp_path):
    return shutil.copytree(built_cache, tmp_path / "cache", symlinks=True)


def _user_files(root):
    """Files a user keeps in a folder that happens to be (or hold) the compiledir; returns them with contents."""
    files = {"notes.txt": "mine", "db/data.csv": "1,2", "pch/mine.txt": "keep", "index/README": "keep",
             "ab/report.pdf": "keep", ".build-thesis/chapter1.tex": "keep", "size-total-backup": "1"}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return files


def _intact(root, files):
    return all((root / name).read_text() == text for name, text in files.items())


@pytest.mark.parametrize("action", ["clear", "prune"])
def test_a_folder_of_user_files_is_refused_and_nothing_is_removed(tmp_path, action):
    root = tmp_path / "home"
    root.mkdir()
    files = _user_files(root)
    result = opkit_cli("cache", action, cache=root)
    assert result.returncode == 1 and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"opkit: error: {root} is not an opkit cache (it has no CACHEDIR.TAG of opkit's and "
                           "holds .build-thesis, ab/report.pdf, db/data.csv and 2 more, which opkit did not make): "
                           "nothing was removed; point OPKIT_COMPILEDIR at a directory of its own")
    assert _intact(root, files) and not (root / "CACHEDIR.TAG").exists()


def test_opkit_marks_the_cache_it_makes(built_cache):
    text = (built_cache / "CACHEDIR.TAG").read_text()
    assert text.startswith("Signature: 8a477f597d28d172789f06886806bc55\n") and "opkit compile cache" in text
    assert stat.S_IMODE(os.stat(built_cache / "CACHEDIR.TAG").st_mode) == 0o600


@pytest.mark.parametrize("action", ["clear", "prune"])
def test_in_opkit_s_cache_only_what_opkit_made_is_removed(built_cache, tmp_path, action):
    root = _copy(built_cache, tmp_path)
    files = _user_files(root)
    shard = next(p for p in root.iterdir() if len(p.name) == 2 and p.name != "ab" and p.name != "db")
    (shard / "mine.txt").write_text("keep")
    files[f"{shard.name}/mine.txt"] = "keep"
    (root / "pch" / ("c" * 24)).mkdir()  # a folder with pch's digest name: only opkit's names in it go
    (root / "pch" / ("c" * 24) / "thesis.tex").write_text("keep")
    files[f"pch/{'c' * 24}/thesis.tex"] = "keep"
    entries = len([p for p in root.glob("??/" + "?" * 64) if p.is_dir()])
    result = opkit_cli("cache", action, "--max-bytes", "0", cache=root) if action == "prune" \
        else opkit_cli("cache", action, cache=root)
    assert result.returncode == 0, result.stderr
    verb = "removed" if action == "clear" else "evicted"
    assert result.stdout.startswith(f"{verb} {entries} module(s)")
    assert f"item(s) opkit did not make in {root}: " in result.stdout
    assert _intact(root, files)
    assert not [p for p in root.glob("??/" + "?" * 64)]  # every module went
    assert (root / "CACHEDIR.TAG").exists()


def test_nothing_is_removed_through_a_symbolic_link(built_cache, tmp_path):
    root = _copy(built_cache, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    key_named = {"1" * 64: "f" * 64, "2" * 64: "not a key", "notes": "keep"}
    for folder in ("index_target", "shard_target", "pch_target/" + "d" * 24, "trash_target"):
        (elsewhere / folder).mkdir(parents=True)
        for name, text in key_named.items():
            (elsewhere / folder / name).write_text(text)
    (elsewhere / "shard_target" / ("ef" + "0" * 62 + ".lock")).write_text("")
    (elsewhere / "shard_target" / ("ef" + "1" * 62)).mkdir()
    shutil.rmtree(root / "index", ignore_errors=True)
    shutil.rmtree(root / "pch", ignore_errors=True)
    (root / "index").symlink_to(elsewhere / "index_target")
    (root / "pch").symlink_to(elsewhere / "pch_target")
    (root / "ef").symlink_to(elsewhere / "shard_target")
    (root / ".trash-link").symlink_to(elsewhere / "trash_target")
    (root / ".build-link").symlink_to(elsewhere / "trash_target")
    before = sorted(str(p.relative_to(elsewhere)) for p in elsewhere.rglob("*"))
    for action in (("prune", "--max-bytes", "0"), ("clear",)):
        result = opkit_cli("cache", *action, cache=root)
        assert result.returncode == 0, result.stderr
        assert sorted(str(p.relative_to(elsewhere)) for p in elsewhere.rglob("*")) == before
    assert "index" in result.stdout and ".trash-link" in result.stdout  # listed as not opkit's


def test_a_shard_others_can_write_is_refused_on_a_hit(built_cache, tmp_path):
    root = _copy(built_cache, tmp_path)
    shards = sorted({p.parent for p in root.glob("??/" + "?" * 64) if p.is_dir()})
    for shard in shards:
        shard.chmod(0o777)
    result = run_python(BUILD, 2, cache=root, check=False)
    assert result.returncode == 1
    [line] = [line for line in result.stderr.splitlines() if line.startswith("opkit.cop.compiledir.private_fs.Unsafe")
              or line.startswith("UnsafeCacheDirError")]
    shard = pathlib.Path(line.split(" from ", 1)[1].split(":", 1)[0])
    assert shard in shards
    assert line.endswith(f"refusing to load compiled modules from {shard}: it is writable by other users (mode 777)")
    assert f"fix: chmod 700 {shard}, or choose another compiledir" in result.stderr
    for shard in shards:
        shard.chmod(0o700)
    assert run_python(BUILD, 2, cache=root).stdout.strip() == "[1.0, 3.0, 5.0]"  # private shards serve again
    # A shard that is a symbolic link (to a directory others could change) is refused too.
    for shard in shards:
        shard.symlink_to(shutil.move(shard, tmp_path / f"moved-{shard.name}"))
    result = run_python(BUILD, 2, cache=root, check=False)
    assert result.returncode == 1 and ": it is a symbolic link\nfix: remove it" in result.stderr


WRAPPER = """#!/bin/sh
# A real g++, with `opkit cache clear` run from another process just as a module's compile starts.
case " $* " in
  *" -include "*) "{python}" -m opkit.cli cache clear >> "{log}" 2>&1 ;;
esac
exec g++ "$@"
"""


def test_a_clear_during_a_compile_does_not_break_it(tmp_path):
    root, log = tmp_path / "cache", tmp_path / "clear.log"
    wrapper = tmp_path / "g++-with-clear"
    wrapper.write_text(WRAPPER.format(python=sys.executable, log=log))
    wrapper.chmod(0o755)
    result = run_python(BUILD, 3, cache=root, env={"OPKIT_FLAGS": f"cxx={wrapper}"}, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[1.0, 4.0, 7.0]"
    assert "removed 0 module(s)" in log.read_text()  # the clear ran while the build held its key
    assert not list(root.glob("pch/*/opkit_pch.hpp"))  # and it did take the precompiled header away
