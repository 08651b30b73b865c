"""The test session's compile cache (tests/conftest.py, private_compiledir): a temporary directory, or the one
OPKIT_TEST_COMPILEDIR names (.ci/run's later runs share the suite's); never the user's OPKIT_COMPILEDIR."""

import os
import pathlib
import subprocess
import sys

TESTS = pathlib.Path(__file__).resolve().parents[1]
PROBE = "import os\n\ndef test_where():\n    print('CACHE=' + os.environ['OPKIT_COMPILEDIR'])\n"


def _session_cache(tmp_path, **variables):
    """The OPKIT_COMPILEDIR a test of a pytest session under tests/conftest.py sees, with `variables` set."""
    (tmp_path / "test_probe.py").write_text(PROBE)
    env = {**os.environ, "PYTHONPATH": str(TESTS), **variables}
    env.pop("PYTEST_XDIST_WORKER", None)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "conftest", "-p", "no:cacheprovider",
                             "-p", "no:xdist", "-m", "not soak", "test_probe.py"],
                            capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    [line] = [line for line in result.stdout.splitlines() if "CACHE=" in line]
    return line.split("CACHE=", 1)[1]


def test_the_named_directory_is_the_sessions_cache_and_the_users_is_never_used(tmp_path):
    users = str(tmp_path / "the-users-cache")
    shared = tmp_path / "ci-cache" / "first"
    assert _session_cache(tmp_path, OPKIT_COMPILEDIR=users, OPKIT_TEST_COMPILEDIR=str(shared)) == str(shared)
    assert shared.is_dir()
    alone = _session_cache(tmp_path, OPKIT_COMPILEDIR=users, OPKIT_TEST_COMPILEDIR="")
    assert alone != users and "opkit-compiledir" in alone
