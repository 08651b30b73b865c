"""docs/porting_theano_ops.md, Part 1: a user's own Theano op package, written out and run as the page says.

Every file the page shows under `my_theano_ops/` is written from the page, and the commands of its
section 6 run in a real venv: `pip install` (with --no-deps --no-build-isolation added: the venv
shares this environment's opkit, numpy and setuptools), `opkit check`, `opkit list`, and the package's
own tests, whose gradient graph holds nodes of one op compiled with two values of one macro.
"""

import re
import shlex

import pytest
from conftest import ROOT, PluginVenv

DOC = ROOT / "docs" / "porting_theano_ops.md"
_FILE_BLOCK = re.compile(r"^`(my_theano_ops/[^`]+)`[^\n]*:\n\n```\w*\n(.*?)```", re.M | re.S)


def page_files():
    part1 = DOC.read_text().split("## Part 2")[0]
    return {path: text for path, text in _FILE_BLOCK.findall(part1)}


def page_commands():
    section = DOC.read_text().split("### 6. Install, check and test it")[1].split("## Part 2")[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [shlex.split(line) for line in block.splitlines() if line.strip()]


def test_the_page_shows_every_file_of_the_package():
    assert set(page_files()) == {
        "my_theano_ops/my_theano_ops/c_code/power.c", "my_theano_ops/my_theano_ops/include/power_of.h",
        "my_theano_ops/my_theano_ops/ops.py", "my_theano_ops/tests/test_ops.py",
        "my_theano_ops/my_theano_ops/plugin.py", "my_theano_ops/my_theano_ops/__init__.py",
        "my_theano_ops/pyproject.toml"}
    assert [c[0] for c in page_commands()] == ["pip", "opkit", "opkit", "python"]


@pytest.mark.soak  # a venv and a pip install, as the scaffold's and the example packages' own runs (soak)
def test_the_page_s_package_installs_checks_lists_and_passes_its_tests(tmp_path):
    work = tmp_path / "work"
    for path, text in page_files().items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text)
    venv = PluginVenv.create(tmp_path)
    outputs = []

    def ran(result):
        return result.stdout + result.stderr

    for command in page_commands():
        program, args = command[0], command[1:]
        if program == "pip":
            args = [args[0], "-q", "--no-deps", "--no-build-isolation", "--disable-pip-version-check", *args[1:]]
            outputs.append(ran(venv.run("-m", "pip", *args, cwd=work, timeout=900)))
        elif program == "opkit":
            outputs.append(ran(venv.run("-m", "opkit", *args, cwd=work, timeout=900)))
        else:
            assert program == "python"
            outputs.append(ran(venv.run(*args, cwd=work, timeout=900)))
    _, checked, listed, tested = outputs
    assert "1 file(s) checked: 0 error(s), 0 warning(s)" in checked
    assert "square" in listed and "cube" in listed and "my-theano-ops" in listed
    assert re.search(r"\b2 passed\b", tested), tested


@pytest.mark.parametrize("theano, opkit_line", [
    ("import theano", "import opkit.compat.theano as theano"),
    ("import theano.tensor as tt", "import opkit.compat.theano.tensor as tt"),
    ("from theano import gof", "from opkit.compat.theano import gof"),
    ("from theano.tests import unittest_tools as utt", "from opkit import testing as utt"),
])
def test_the_package_differs_from_its_theano_original_by_the_import_lines_of_the_table(theano, opkit_line):
    table = DOC.read_text().split("### 2. `gof.COp`")[0]
    assert f"| `{theano}`" in table and f"| `{opkit_line}` |" in table
    files = page_files()
    assert any(opkit_line in text.splitlines() for text in files.values())
