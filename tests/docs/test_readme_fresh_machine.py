"""Issue 45.1: the README's test command passes on a fresh machine, where the README's venv is all there is.

CI's main run is that run (.ci/run): its first venv is made as the Quickstart says, and the whole suite runs there
with no `cuda` extra and no Graphviz `dot` on PATH, so a test that needs either must skip, naming the line that
installs it; then .ci/run installs both and runs exactly those tests again, which must not skip. Running the suite
twice would not fit CI's time, and a test here that ran the README's command would run itself: these tests check
that .ci/run does this (they read it) and run its two helpers for real.
"""

import os
import re
import subprocess
import sys

import pytest
from helpers.requires import INSTALL_LINES

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
RUN = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
PATH_WITHOUT = ROOT / ".ci" / "path_without"
SKIPPED_FOR = ROOT / ".ci" / "skipped_for"


def _function(name: str) -> str:
    """Return the body of the shell function `name` in .ci/run."""
    return re.search(rf"^{name}\(\) {{.*?^}}$", RUN, re.S | re.M).group(0)


def _readme_test_command() -> tuple[str, str]:
    """Return the Quickstart's second line as (its install, its test command)."""
    start = README.index("\n## Quickstart\n")
    line = re.search(r"```sh\n(.*?)```", README[start:], re.S).group(1).splitlines()[1]
    install, _, run = line.partition(" && python -m pytest")
    return install, "python -m pytest" + run


def _pip_installs(text: str) -> list[str]:
    """Return what each `pip install` line of shell text installs (the quieting flags dropped), in order."""
    found = []
    for line in text.splitlines():
        match = re.search(r'bin/pip" install (.*?)( \|\||$)', line.split("  #")[0])
        if match:
            found.append(" ".join(a for a in match.group(1).split() if a not in ("--disable-pip-version-check", "-q")))
    return found


def test_the_first_venv_is_made_as_the_readme_says():
    install, command = _readme_test_command()
    assert install == "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]'"
    assert command == "python -m pytest -n auto"
    make_venv = _function("make_venv")
    assert '"$1" -m venv "$2"' in make_venv and 'first_python="python3"' in RUN
    installs = _pip_installs(make_venv)
    # nothing before the README's install (no pip or setuptools upgrade); then only what the README's next lines add
    assert installs[0] == "-e '.[test]'", installs
    assert installs[1:] == ["torch==2.13.0", "torch --index-url https://download.pytorch.org/whl/cpu",
                            '"jax>=0.5.0"'], installs
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in README
    assert "\npip install jax\n" in README
    code = "\n".join(line.split("#")[0] for line in make_venv.splitlines())
    assert "cuda" not in code.lower() and "nvidia" not in code


def test_the_main_run_is_the_readme_command_without_dot_and_without_the_cuda_extra():
    run_pytest = _function("run_pytest")
    assert '"$venv/bin/python" -m pytest -n auto ' in run_pytest  # the README's command, in that venv
    suite = RUN.index('run_pytest "suite ($first_python)"')
    assert RUN[RUN.rindex("\n", 0, suite):suite].strip() == 'PATH="$("$root/.ci/path_without" dot)"'
    # the cuda extra (and anything else CUDA) comes only after the README's run, which every other run follows
    assert RUN.index('make_venv "$first_python" "$venv" bridges') < suite < RUN.index('install_cuda_extra "$venv"')
    assert _pip_installs(_function("install_cuda_extra"))[0] == '"opkit-sdk[cuda]"'
    assert "pip install 'opkit-sdk[cuda]'" in README
    for later in ('run_pytest "DebugMode slice"', 'run_pytest "Python-version-sensitive tests',
                  '"$venv/bin/opkit" check'):
        assert RUN.index(later) > RUN.index('install_cuda_extra "$venv"'), later
    # then exactly the tests that skipped for an install run again, and none may skip for it again
    needed = RUN.index('run_pytest "tests that need dot or the cuda extra"')
    assert RUN.index('skipped_for" list "$readme_report"') < needed < RUN.index('skipped_for" check')
    assert '"${needed_tests[@]}"' in RUN[needed:needed + 300]
    # the apt-get install of Graphviz stays: the second run needs it, the first hides it
    assert "apt-get install -y -qq graphviz" in RUN


def test_path_without_hides_only_the_program(tmp_path):
    """.ci/path_without for real: `dot` is gone, its folder's other programs and the compiler still run."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in ("dot", "neighbour"):
        (folder / name).write_text(f"#!/bin/sh\necho {name}\n")
        (folder / name).chmod(0o755)
    # PATH's folders once each: on a merged /usr, /bin is /usr/bin, and each folder holding dot is shadowed by a link
    # per program in it (a thousand-odd, a few processes each, where Graphviz is installed)
    folders = {}
    for name in filter(None, os.environ["PATH"].split(os.pathsep)):
        folders.setdefault(os.path.realpath(name), name)
    env = dict(os.environ, PATH=os.pathsep.join([str(folder), *folders.values()]))
    shown = subprocess.run([str(PATH_WITHOUT), "dot", str(tmp_path / "shadow")], env=env, capture_output=True,
                           text=True, check=True).stdout.strip()
    assert shown.split(os.pathsep)[0] == str(tmp_path / "shadow" / "0")
    (tmp_path / "hello.c").write_text("int main(void) { return 0; }\n")
    script = ("command -v dot && exit 1; neighbour && command -v c++ >/dev/null && "
              f"c++ -x c++ {tmp_path / 'hello.c'} -o {tmp_path / 'hello'} && {tmp_path / 'hello'} && echo compiled")
    done = subprocess.run(["bash", "-c", script], env=dict(os.environ, PATH=shown), capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.split() == ["neighbour", "compiled"], done.stdout + done.stderr
    plain = dict(os.environ, PATH=shown)  # no dot on it (removing /usr/bin, where dot may be, would lose bash's tools)
    unchanged = subprocess.run([str(PATH_WITHOUT), "dot", str(tmp_path / "shadow2")], env=plain,
                               capture_output=True, text=True, check=True).stdout.strip()
    assert unchanged == plain["PATH"]


NEEDS = """
import pytest

GRAPHVIZ = "needs Graphviz's dot, which is not on PATH: apt-get install graphviz"
CUDA = "needs NVRTC, which is not installed: pip install 'opkit-sdk[cuda]'"


@pytest.mark.skipif(True, reason=GRAPHVIZ)
@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_picture(fmt):
    pass


class TestKernels:
    def test_compiles(self):
        pytest.skip(CUDA)


@pytest.mark.skipif(True, reason="CuPy finds no CUDA device")
def test_on_the_gpu():
    pass


def test_runs():
    pass
"""


def _pytest(tmp_path, *args):
    # pytest's own plugins only: the installed ones that import numpy (opkit's, Hypothesis's) add nothing to the
    # report of NEEDS' tests, and about half a CPU-second to each of the three runs
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-p", "no:randomly", "-p", "no:opkit", "-p", "no:hypothesispytest", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)


def test_skipped_for_lists_the_tests_that_skip_for_an_install_and_checks_that_none_do(tmp_path):
    """.ci/skipped_for for real, on a run's junit report: the node ids it lists select those tests, and `check`
    refuses a run where they skip again."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_needs.py").write_text(NEEDS)
    report = tmp_path / "report.xml"
    assert _pytest(tmp_path, f"--junitxml={report}", "tests").returncode == 0
    listed = subprocess.run([sys.executable, str(SKIPPED_FOR), "list", str(report)], cwd=tmp_path,
                            capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    ids = listed.stdout.splitlines()
    assert ids == ["tests/test_needs.py::test_picture[svg]", "tests/test_needs.py::test_picture[png]",
                   "tests/test_needs.py::TestKernels::test_compiles"]
    again = _pytest(tmp_path, "--co", *ids)
    assert again.returncode == 0 and "3 tests collected" in again.stdout, again.stdout
    checked = subprocess.run([sys.executable, str(SKIPPED_FOR), "check", str(report)], cwd=tmp_path,
                             capture_output=True, text=True)
    assert checked.returncode == 1
    assert "skipped_for: tests/test_needs.py::TestKernels::test_compiles still skipped: needs NVRTC" in checked.stderr
    (tmp_path / "tests" / "test_needs.py").write_text("def test_runs():\n    pass\n")
    assert _pytest(tmp_path, f"--junitxml={report}", "tests").returncode == 0
    none = subprocess.run([sys.executable, str(SKIPPED_FOR), "list", str(report)], cwd=tmp_path,
                          capture_output=True, text=True)
    assert none.returncode == 1 and "skipped no test naming apt-get install graphviz or opkit-sdk[cuda]" in none.stderr
    assert "or nvidia-cuda-nvrtc" in none.stderr  # NVRTC 13, which .ci/run installs beside the extra


def test_every_install_line_a_skip_names_is_one_ci_installs():
    """helpers.requires' install lines are what .ci/skipped_for looks for, and every skip in the suite whose reason
    speaks of NVRTC, CuPy being installed or Graphviz names one (a skip that does not is never run again in CI).
    Reasons written as plain strings are read here; an f-string's is checked by CI itself (skipped_for check)."""
    lines = re.search(r"INSTALL_LINES = \((.*?)\)", SKIPPED_FOR.read_text()).group(1)
    ci_lines = re.findall(r'"([^"]+)"', lines)
    assert all(any(ci in line for ci in ci_lines) for line in INSTALL_LINES)
    speaks = re.compile(r"NVRTC|CuPy.*not installed|Graphviz|\bdot\b")
    offenders = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if "ported" in path.parts:
            continue
        for reason in re.findall(r'(?:reason=|pytest\.skip\()\s*("[^"\n]*"|\'[^\'\n]*\')', path.read_text()):
            if speaks.search(reason) and not any(ci in reason for ci in ci_lines) and "installed here" not in reason:
                offenders.append(f"{path.relative_to(ROOT)}: {reason}")
    assert not offenders, offenders


@pytest.mark.parametrize("program", ["dot"])
def test_the_readme_says_what_skips_without_it(program):
    """A reader learns from the README that the suite skips, naming them, the tests that need what it lacks."""
    text = " ".join(README[README.index("The test extra holds"):].split())
    assert "so the tests that need them skip, each saying what is missing and how to install it" in text
    assert f"the few that need Graphviz's `{program}` program" in text
