"""Type hints: opkit ships py.typed, and mypy sees the public API's real types in a user's file."""

import os
import subprocess
import sys

from conftest import ROOT

DATA = ROOT / "tests" / "data" / "typing"


def mypy(tmp_path, *files):
    """Run mypy on `files` as a user would, with this opkit importable; return (exit status, output lines)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache"),
                             "--no-error-summary", "--hide-error-context", *map(str, files)],
                            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    return result.returncode, [line.replace(str(DATA) + os.sep, "") for line in result.stdout.splitlines()]


def test_opkit_is_a_typed_package():
    assert (ROOT / "opkit" / "py.typed").is_file()
    assert '"py.typed"' in (ROOT / "pyproject.toml").read_text()


def test_mypy_accepts_a_user_file_and_finds_the_errors_in_another(tmp_path):
    status, lines = mypy(tmp_path, DATA / "user_ok.py", DATA / "user_wrong.py")
    assert status == 1
    errors = [line.split(": error: ")[0] + ": " + line.split(": error: ")[1] for line in lines if ": error: " in line]
    assert not [line for line in errors if line.startswith("user_ok.py")], lines
    assert errors == [
        'user_wrong.py:7: Argument "mode" to "function" has incompatible type "int"; expected "str | Mode | None"'
        '  [arg-type]',
        'user_wrong.py:8: Incompatible types in assignment (expression has type "str", variable has type "int")'
        '  [assignment]',
        'user_wrong.py:9: No overload variant of "grad" matches argument type "Any"  [call-overload]',
        'user_wrong.py:10: Missing positional argument "func_files" in call to "COp"  [call-arg]',
        'user_wrong.py:11: Incompatible types in assignment (expression has type "ProfileStats | None", '
        'variable has type "str")  [assignment]',
    ], lines
