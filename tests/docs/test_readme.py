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


# A venv, a pip install and the package's own pytest run (soak: `-m soak`); tests/cli/test_scaffold.py installs and
# tests the same scaffold in the default run, and test_the_readmes_... below check the block's text.
@pytest.mark.soak
def test_write_your_own_op_runs_literally(tmp_path):
    """Issue 45.3: the four lines run as written, and the last three are what `opkit new` prints, one text."""
    lines = sh_block_after("## Write your own op")
    commands = [(line.split("#")[0].strip(), line.partition("#")[2].strip()) for line in lines]
    assert [command for command, _ in commands] == ["opkit new scaled_ops", "pip install -e './scaled_ops[test]'",
                                                    "python -m pytest ./scaled_ops",
                                                    "opkit show scaled_ops --dtypes float64,float64"]
    commands.append(("opkit list", ""))  # the op's row, as the text after the block gives it
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
    assert "9 passed" in outputs[2] and "skipped" not in outputs[2] and "The package has 9 tests" in README
    printed = outputs[0].split("\nnext")[1].splitlines()[1:]
    assert [line.removeprefix("  ") for line in printed] == lines[1:]  # what `opkit new` prints, as the README has it
    assert f'"{work / "scaled_ops" / "src" / "scaled_ops" / "scaled_ops.c"}"' in outputs[3]  # #line to the .c file
    [row] = [line.split() for line in outputs[4].splitlines() if line.startswith("scaled_ops ")]
    promised = re.search(r"`opkit list` then shows the op and its C file:\n`(scaled_ops [^`]+)`", README).group(1)
    promised = promised.split()
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
    # issue 45.3: no warning caused by the example's own op (PyTensor's "runs Scale in object mode ... no infer_shape")
    assert "object mode" not in done.stderr and "infer_shape" not in done.stderr, done.stderr
    if not heading.startswith("### From"):  # torch and JAX may speak of their own platform on stderr
        assert done.stderr == "", done.stderr


def test_the_usage_block_runs_as_pasted(tmp_path):
    """Issue 45.3: pasted whole, the Usage block runs to its end; the wrong call is caught and its error printed."""
    block = python_block_after("\n## Usage\n")
    assert "    f(np.ones(3), [1.0])" in block and "except TypeError as exc:" in block
    script = tmp_path / "usage.py"
    script.write_text(block)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    printed = done.stdout.splitlines()
    assert printed[0] == "[ 14.7781122   40.17107385 109.19630007]"
    promised = re.search(r"print\(exc\) +# (.*) \.\.\.$", block, re.M).group(1)
    assert printed[1].startswith(promised) and "(wrong number of dimensions)" in printed[1]
    assert printed[2] == "[array([5.43656366, 5.43656366, 5.43656366]), array([2, 3])]"
    assert printed[3].startswith("[FusedSum{mul,add,exp; axis=(0,), keepdims=False}(x, y, 1.0)]")


def _installed_size(distribution: str, extras=()) -> tuple[int, set]:
    """Return the bytes of the files of `distribution[extras]` and of everything it requires here, and their names."""
    import importlib.metadata as metadata

    from packaging.requirements import Requirement

    seen, size, todo = set(), 0, [(distribution, tuple(extras))]
    while todo:
        name, wanted = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        if key not in seen:
            seen.add(key)
            size += sum(os.path.getsize(f.locate()) for f in dist.files or () if os.path.isfile(f.locate()))
        elif not wanted:
            continue
        for text in dist.requires or ():
            requirement = Requirement(text)
            if requirement.marker is None or any(requirement.marker.evaluate({"extra": extra})
                                                 for extra in wanted or ("",)):
                todo.append((requirement.name, tuple(requirement.extras)))
    return size, seen


def test_the_readme_says_what_the_test_extra_holds_and_how_big_it_is():
    """Issue 45.3: the README does not call the test extra light; it names what the extra holds, and its size is
    what `pip install -e '.[test]'` puts in a venv (the extra's requirements and theirs, measured here)."""
    import tomllib

    text = README[README.index("The test extra holds"):]
    text = " ".join(text[:text.index("\n\n")].split())
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    for requirement in extra:
        name = re.match(r"[A-Za-z0-9_.-]+", requirement).group(0)
        assert name.lower() in text.lower(), f"the README does not say the test extra holds {name}"
    assert "light" not in text and "no PyTorch, JAX or CUDA" in text
    said = int(re.search(r"about (\d+) MB in the venv", text).group(1))
    size, names = _installed_size("opkit-sdk", ("test",))
    if not {"pytensor", "scipy", "mypy"} <= names:
        pytest.skip("the test extra is not installed whole here (PyTensor needs Python >= 3.11)")
    assert {"numba", "llvmlite"} <= names and "numba and llvmlite" in text
    assert abs(size / 2**20 - said) <= 0.2 * said, f"the test extra's closure is {size / 2**20:.0f} MiB here"
