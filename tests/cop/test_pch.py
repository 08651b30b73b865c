"""The precompiled header: built once per toolchain and flags, used by g++, optional."""

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import numpy as np, opkit, opkit.tensor as ot
    x = ot.lvector("x")
    f = opkit.function([x], (x + 3) * x)
    assert (f(np.arange(4)) == (np.arange(4) + 3) * np.arange(4)).all()
""")


def _run(env):
    return subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)


def test_precompiled_header_is_built_once_and_reused(tmp_path):
    env = dict(os.environ, OPKIT_COMPILEDIR=str(tmp_path))
    env.pop("OPKIT_NO_PCH", None)
    assert _run(env).returncode == 0
    gch = list(tmp_path.glob("pch/*/opkit_pch.hpp.gch"))
    assert len(gch) == 1
    stamp = gch[0].stat().st_mtime_ns
    env["OPKIT_COMPILEDIR"] = str(tmp_path)
    (tmp_path / "other").mkdir()
    result = _run(dict(env, OPKIT_FLAGS="cflags=-DOPKIT_TEST_FLAG=1"))
    assert result.returncode == 0, result.stderr
    assert len(list(tmp_path.glob("pch/*/opkit_pch.hpp.gch"))) == 2   # other flags, another header
    assert gch[0].stat().st_mtime_ns == stamp


# Soak (`-m soak`): the default run builds modules under OPKIT_NO_PCH=1 in an empty cache elsewhere and checks both
# halves of this: tests/cop/test_cold_path.py::test_the_compiler_is_probed_once_per_process (three modules built,
# their numbers checked) and tests/cop/test_cache_env.py::test_a_read_only_cache_without_a_precompiled_header_fails_
# a_miss_without_warnings (a module built, and no pch folder at all).
@pytest.mark.soak
def test_modules_build_without_the_precompiled_header(tmp_path):
    env = dict(os.environ, OPKIT_COMPILEDIR=str(tmp_path), OPKIT_NO_PCH="1")
    result = _run(env)
    assert result.returncode == 0, result.stderr
    assert not list(tmp_path.glob("pch/*/*.gch"))


def test_a_removed_precompiled_header_is_rebuilt_in_process(tmp_path):
    import shutil

    import numpy as np

    import opkit
    import opkit.tensor as ot
    from helpers.caches import seeded

    x = ot.lvector("x")
    # A copy of the session's header, checked (key, sha256, private folder) as one built here; the rebuild is this
    # process's own. test_precompiled_header_is_built_once_and_reused builds one in an empty cache.
    with opkit.config.change_flags(compiledir=seeded(tmp_path)):
        opkit.function([x], x * 7 + 1)
        shutil.rmtree(tmp_path / "pch")
        f = opkit.function([x], x * 7 - 1)   # another module: needs the header again
        np.testing.assert_array_equal(f(np.arange(3)), np.arange(3) * 7 - 1)
        assert list(tmp_path.glob("pch/*/opkit_pch.hpp.gch"))
