"""The README, followed literally: its Quickstart's shape and its "Write your own op" commands, run as written."""

import os
import re
import subprocess
import sys
from importlib.util import find_spec

import pytest

from conftest import ROOT, PluginVenv

README = (ROOT / "README.md").read_text(encoding="utf-8")


def sh_block_after(heading: str) -> list[str]:
    """Return the lines of the first ```sh block after `heading`, comments kept."""
    start = README.index(f"\n{heading}\n")
    block = re.search(r"```sh\n(.*?)```", README[start:], re.S)
    return block.group(1).splitlines()


def test_the_quickstart_is_two_commands_that_activate_the_venv_and_name_the_distribution():
    commands = sh_block_after("## Quickstart")
    assert len(commands) == 2
    assert all(". .venv/bin/activate && pip install -e " in command for command in commands)
    assert commands[0].endswith("&& opkit demo") and commands[1].endswith("&& python -m pytest -n auto")
    assert "opkit-sdk" in README and "pip install opkit-sdk" in README
    assert 'name = "opkit-sdk"' in (ROOT / "pyproject.toml").read_text()
    for package in ("examples/vector_times_vector", "plugins/opkit-tutorial-ops"):
        assert 'dependencies = ["opkit-sdk", "numpy"]' in (ROOT / package / "pyproject.toml").read_text()
    wrong = r"pip install(?: +-[-\w]+)* +['\"]?opkit(?:\[[^\]]*\])?['\"]?(?=[\s`]|$)"
    assert not re.search(wrong, README, re.M), "a pip install of the unrelated PyPI package opkit"


def _venv_with_commands(tmp_path) -> PluginVenv:
    """A venv whose bin/ has `python`, `pip` and `opkit`, as an activated venv would."""
    venv = PluginVenv.create(tmp_path)
    bin_dir = os.path.dirname(venv.python)
    for name, module in (("pip", "pip"), ("opkit", "opkit")):
        path = os.path.join(bin_dir, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(f'#!/bin/sh\nexec "{venv.python}" -m {module} "$@"\n')
        os.chmod(path, 0o755)
    return venv


def test_write_your_own_op_runs_literally(tmp_path):
    lines = sh_block_after("## Write your own op")
    commands = [(line.split("#")[0].strip(), line.partition("#")[2].strip()) for line in lines]
    assert [command for command, _ in commands] == ["opkit new scaled_ops", "pip install -e './scaled_ops[test]'",
                                                    "python -m pytest scaled_ops", "opkit list"]
    venv = _venv_with_commands(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PATH": f"{os.path.dirname(venv.python)}{os.pathsep}{os.environ['PATH']}",
           # no network and nothing from PyPI: opkit-sdk and the build tools come from this environment
           "PIP_NO_DEPS": "1", "PIP_NO_BUILD_ISOLATION": "0", "PIP_NO_INDEX": "1",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("OPKIT_DISABLE_PLUGINS", None)
    env.pop("COLUMNS", None)  # output to a pipe: whole rows (a terminal's width would cut the path from the left)
    outputs = []
    for command, _ in commands:
        result = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True,
                                timeout=600)
        assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
        outputs.append(result.stdout)
    assert "9 passed" in outputs[2] and "skipped" not in outputs[2]
    printed = [line.split("  # ")[0].strip() for line in outputs[0].split("\nnext")[1].splitlines()[1:]]
    assert printed[0] == "pip install -e './scaled_ops[test]'"  # what `opkit new` prints is what the README says
    [row] = [line.split() for line in outputs[3].splitlines() if line.startswith("scaled_ops ")]
    promised = commands[3][1].split()
    assert row[:3] == promised[:3]
    assert row[3] == str(work / "scaled_ops" / "src" / "scaled_ops" / "scaled_ops.c")
    assert row[3].endswith(promised[3].removeprefix("..."))
    # every path the README names in the scaffold exists
    for path in set(re.findall(r"`(scaled_ops/[\w/.]+)`", README)):
        assert (work / path).exists(), path


def test_the_debugprint_shown_under_looking_inside_is_what_it_prints():
    import opkit
    import opkit.tensor as ot

    start = README.index("\n## Looking inside\n")
    blocks = re.findall(r"^```(\w*)\n(.*?)^```$", README[start:], re.S | re.M)
    shown = next(body for language, body in blocks if language == "")
    x, y = ot.dvector("x"), ot.dvector("y")
    z = ((x * y + x) * 2 - y).sum()
    f = opkit.function([x, y], [z, ot.exp(x)])
    assert opkit.debugprint(f, file="str") == shown


def python_block_after(heading: str) -> str:
    """Return the first ```python block after `heading`."""
    start = README.index(heading)
    return re.search(r"```python\n(.*?)```", README[start:], re.S).group(1)


@pytest.mark.parametrize("heading, prints", [
    ("Your own ops mix with opkit's tensor ops", "[4. 5.]"),
    ("## Shared variables, updates and givens", "[ 1.  -2.   0.5]"),
    ("## Use opkit ops from PyTensor and PyMC", "[array(34.), array([18., 30.])]\n[15.  9.  3.]"),
    # the test extra has no torch or jax (CI's first venv installs them; its second Python does not)
    pytest.param("### From PyTorch", "34.0 [18.0, 30.0]\n[1.0, 4.0, 7.0]",
                 marks=pytest.mark.skipif(find_spec("torch") is None, reason="needs torch: pip install torch "
                                          "--index-url https://download.pytorch.org/whl/cpu")),
    pytest.param("### From JAX", "[3. 6.]\n[18. 36.]\n[3. 3.]\n[[0. 3.]\n [6. 9.]]",
                 marks=pytest.mark.skipif(find_spec("jax") is None, reason="needs jax: pip install jax")),
])
def test_the_python_examples_run_and_print_what_they_say(heading, prints, tmp_path):
    env = dict(os.environ, PYTENSOR_FLAGS=f"base_compiledir={tmp_path / 'pytensor'}")
    script = tmp_path / "example.py"
    script.write_text(python_block_after(heading))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == prints
