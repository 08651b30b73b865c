"""A new user's first hour (issue 39), typed as they type it, in a real venv made by the README's Quickstart.

The clone sits in a folder named `opkit`, as `git clone .../opkit` makes it. Its first Quickstart line runs as
written (venv, `pip install -e . -e examples/vector_times_vector`, `opkit demo`); then, with that venv active:
`import opkit` from the clone's parent, `opkit new` and the steps it prints, a misspelt macro, a bad section
tag, and the CLI around them. One venv per test module (xdist may make one per worker); every step is a shell
command line. Packages come from pip's configured index, as a user's do.
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

# One worker runs them all (CI's `--dist loadgroup`), so the Quickstart's venv is made once.
pytestmark = pytest.mark.xdist_group("first_hour")
# The tests in the Quickstart's venv (fixture `user`: minutes of pip) are marked soak: .ci/run runs them (`-m soak`),
# the README's test command does not. A test that needs no venv stays in the default run.

README = (ROOT / "README.md").read_text(encoding="utf-8")
# What a clone holds that the Quickstart installs (the rest of the clone plays no part in it).
CLONE_PARTS = ("pyproject.toml", "README.md", "LICENSE", "opkit", "examples/vector_times_vector")


def quickstart_lines() -> list[str]:
    start = README.index("\n## Quickstart\n")
    return re.search(r"```sh\n(.*?)```", README[start:], re.S).group(1).splitlines()


def _copy_clone(clone):
    """Copy the files git tracks (or would: not ignored) of CLONE_PARTS, as a fresh clone has them."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                             "--", *CLONE_PARTS], capture_output=True, check=False)
    names = [n for n in os.fsdecode(listed.stdout).split("\0") if n] if listed.returncode == 0 else []
    if not names:  # not a git checkout: everything but build output
        ignore = shutil.ignore_patterns("__pycache__", "build", "*.egg-info", ".venv")
        for part in CLONE_PARTS:
            source = ROOT / part
            (shutil.copytree if source.is_dir() else shutil.copy2)(source, clone / part, **(
                {"ignore": ignore} if source.is_dir() else {}))
        return
    for name in names:
        if (ROOT / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, clone / name)


class User:
    """A shell in which the clone's `.venv` is active, as after the Quickstart."""

    def __init__(self, home, clone, env):
        self.home, self.clone, self.env = home, clone, env

    def sh(self, command, cwd=None, activate=True, env=None, check=True, timeout=900):
        line = f". {self.clone}/.venv/bin/activate && {command}" if activate else command
        result = subprocess.run(["bash", "-c", line], cwd=cwd or self.home, env={**self.env, **(env or {})},
                                capture_output=True, text=True, timeout=timeout)
        if check:
            assert result.returncode == 0, f"$ {command}\n{result.stdout}\n{result.stderr}"
        return result


@pytest.fixture(scope="module")
def user(tmp_path_factory):
    home = tmp_path_factory.mktemp("first-hour")
    clone = home / "opkit"
    clone.mkdir()
    _copy_clone(clone)
    env = {key: value for key, value in os.environ.items()
           if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "OPKIT_DISABLE_PLUGINS", "OPKIT_FLAGS",
                          "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER", "COLUMNS")}
    venv_bin = os.path.dirname(sys.executable)  # this suite's venv: not on the user's PATH
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv_bin)
    env.update(OPKIT_COMPILEDIR=str(home / "cache"), PIP_DISABLE_PIP_VERSION_CHECK="1")
    first = quickstart_lines()[0]
    you = User(home, clone, env)
    result = you.sh(first, cwd=clone, activate=False)
    assert "cache hit" in result.stdout, result.stdout
    you.quickstart = result.stdout  # what `opkit demo` printed
    return you


@pytest.fixture(scope="module")
def sqplus(user):
    """`opkit new sqplus` and the steps it prints, typed in a work folder; return (printed, outputs, folder)."""
    work = user.home / "work"
    work.mkdir()
    printed = user.sh("opkit new sqplus", cwd=work).stdout
    steps = [line.split("  # ")[0].strip() for line in printed.split("\nnext")[1].splitlines()[1:]]
    outputs = [user.sh(step, cwd=work) for step in steps]
    return printed, steps, outputs, work


@pytest.mark.soak
def test_the_clone_named_opkit_does_not_hide_the_installed_opkit_from_its_parent(user):
    """Issue 39.1: from the parent of a clone named `opkit`, `import opkit` is the editable install."""
    code = "import opkit; print(opkit.__file__); print(opkit.COp.__name__)"
    for where in (user.home, user.clone, user.home / "opkit" / "examples"):
        out = user.sh(f"python -c '{code}'", cwd=where).stdout.split()
        assert out == [str(user.clone / "opkit" / "__init__.py"), "COp"], where
    # a path entry (the clone's root), not a meta-path finder that comes after the cwd's namespace package
    pth = user.sh("python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])'").stdout.strip()
    entries = [p for p in os.listdir(pth) if p.startswith("__editable__") and "opkit_sdk" in p]
    assert [p for p in entries if p.endswith(".pth")] and not [p for p in entries if p.endswith("finder.py")]


@pytest.mark.soak
def test_the_steps_opkit_new_prints_run_as_typed(sqplus, user):
    """Issues 39.3 and 39.11: the printed steps install with the test extra, and pytest runs; no claim of a
    registration before the install."""
    printed, steps, outputs, work = sqplus
    assert "registered as" not in printed
    assert "\nnext, install the package; then the op Sqplus is opkit.ops.sqplus:\n" in printed
    assert steps == ["pip install -e './sqplus[test]'", "python -m pytest ./sqplus",
                     "opkit show sqplus --dtypes float64,float64"]
    assert "9 passed" in outputs[1].stdout and "skipped" not in outputs[1].stdout
    assert f'#line ' in outputs[2].stdout and "sqplus.c" in outputs[2].stdout
    readme = (work / "sqplus" / "README.md").read_text()
    assert "pip install -e './sqplus[test]'\npython -m pytest sqplus\n" in readme
    user.sh("python -m pytest sqplus -q -p no:cacheprovider", cwd=work)  # the scaffold README's form


@pytest.mark.soak
def test_opkit_list_shows_installed_packages_and_fits_the_terminal(sqplus, user):
    """Issue 39.6."""
    _, _, _, work = sqplus
    out = user.sh("opkit list", cwd=work, env={"COLUMNS": "90"}).stdout
    rows = out.splitlines()
    assert rows[0].split() == ["OP", "DISTRIBUTION", "VERSION", "C", "FILES"]
    assert [row.split()[0] for row in rows[1:3]] == ["sqplus", "vector_times_vector"]
    assert all(len(row) <= 90 for row in rows), out
    assert rows[1].split()[3].startswith("...") and rows[1].endswith("/src/sqplus/sqplus.c")
    assert re.search(r"^\(\d+ built-in ops of opkit-sdk not shown: `opkit list --builtins`\)$", out, re.M)
    assert not any(row.split()[:1] == ["add"] for row in rows)
    full = user.sh("opkit list --builtins", cwd=work).stdout  # a pipe: whole rows
    assert any(row.split()[:2] == ["add", "opkit-sdk"] for row in full.splitlines())
    assert str(work / "sqplus" / "src" / "sqplus" / "sqplus.c") in full
    data = json.loads(user.sh("opkit list --json", cwd=work).stdout)
    names = {row["name"]: row for row in data["ops"]}
    assert names["sqplus"]["builtin"] is False and names["add"]["builtin"] is True
    # the clone's opkit lists add's section files, the ones this checkout's Elemwise names
    from opkit.core.c_source import section_paths
    from opkit.core.tensor.elementwise.elemwise import Elemwise

    package = ROOT / "opkit"
    expected = [os.path.relpath(path, package) for path in section_paths(Elemwise)]
    listed = names["add"]["c_files"]
    assert len(listed) == len(expected) and all(path.endswith(f"/opkit/{rel}") for path, rel in zip(listed, expected))
    assert len(expected) >= 4 and data["types"] and data["plugins"]


@pytest.mark.soak
def test_opkit_check_takes_op_names_files_and_directories(sqplus, user):
    """Issue 39.7."""
    _, _, _, work = sqplus
    for target, cwd in (("sqplus", user.home), ("sqplus vector_times_vector", user.home), ("sqplus/", work),
                        ("sqplus", work), ("sqplus/src/sqplus/sqplus.c", work), ("work/sqplus/src", user.home)):
        result = user.sh(f"opkit check --json {target}", cwd=cwd)  # from work, `sqplus` is the project folder
        assert json.loads(result.stdout)["errors"] == 0
        files = json.loads(result.stdout)["files"]
        assert files[0].endswith("src/sqplus/sqplus.c") and len(files) == len(target.split()), (target, files)
        assert os.path.isabs(files[0]) == (cwd == user.home and not target.startswith("work/")), (target, files)
    result = user.sh("opkit check sqplux", cwd=work, check=False)
    assert result.returncode == 2
    assert ("opkit check: error: 'sqplux' is neither a file, a directory nor an installed op: no installed opkit "
            "plugin registers the op 'sqplux'\ndid you mean 'sqplus'?") in result.stderr


@pytest.mark.soak
def test_opkit_show_with_a_refused_dtype_does_not_suggest_ndims(sqplus, user):
    """Issue 39.8."""
    _, _, _, work = sqplus
    result = user.sh("opkit show sqplus --dtypes float16,float64", cwd=work, check=False)
    assert result.returncode == 2
    assert ("opkit show: error: sqplus.make_node rejected inputs (TensorType(float16, vector), "
            "TensorType(float64, vector)): Sqplus's C code does not handle float16") in result.stderr.replace("\n", " ")
    assert result.stderr.rstrip().endswith("cast to float32 first")
    assert "--ndims" not in result.stderr.split("error:")[1]


@pytest.mark.soak
def test_opkit_cache_alone_is_info_and_has_a_view_per_op(sqplus, user):
    """Issue 39.9 (info and the per-op view; prune and clear are below)."""
    _, _, _, work = sqplus
    user.sh("opkit build sqplus --dtypes float64,float64", cwd=work)
    assert user.sh("opkit cache", cwd=work).stdout == user.sh("opkit cache info", cwd=work).stdout
    by_op = user.sh("opkit cache info --by-op", cwd=work).stdout
    [row] = [line for line in by_op.splitlines() if line.startswith("sqplus ")]
    assert int(row.split()[1]) >= 1 and row.endswith("/src/sqplus/sqplus.c")
    data = json.loads(user.sh("opkit cache info --by-op --json", cwd=work).stdout)
    [mine] = [row for row in data["by_op"] if row["ops"] == ["sqplus"]]
    assert mine["c_files"] == [str(work / "sqplus" / "src" / "sqplus" / "sqplus.c")] and mine["bytes"] > 0
    # issue 45.3: `opkit cache` alone is info, with info's options
    assert json.loads(user.sh("opkit cache --json", cwd=work).stdout) == \
        json.loads(user.sh("opkit cache info --json", cwd=work).stdout)
    assert json.loads(user.sh("opkit cache --by-op --json", cwd=work).stdout)["by_op"] == data["by_op"]
    assert user.sh("opkit cache --by-op", cwd=work).stdout == by_op
    refused = user.sh("opkit cache --json prune", cwd=work, check=False)
    assert refused.returncode == 2 and refused.stderr.rstrip().endswith(
        "opkit cache prune: error: --json is an option of `opkit cache` (info), not of `opkit cache prune`")


PORTED = """#section support_code_apply

static void APPLY_SPECIFIC(twice)(const DTYPE_INPUT_0* x, DTYPE_OUTPUT_0* y, npy_intp n)
{
    for (npy_intp i = 0; i < n; ++i)
        y[i] = 2 * x[i];
}

#section code

Py_XDECREF(OUTPUT_0);
OUTPUT_0 = (PyArrayObject*)PyArray_EMPTY(PyArray_NDIM(INPUT_0), PyArray_DIMS(INPUT_0), TYPENUM_OUTPUT_0, 0);
if (!OUTPUT_0) FAIL;
{
    PyArrayObject* x = (PyArrayObject*)PyArray_GETCONTIGUOUS(INPUT_0);
    if (!x) FAIL;
    APPLY_SPECIFIC(twice)((const DTYPE_INPUT_0*)PyArray_DATA(x), (DTYPE_OUTPUT_0*)PyArray_DATA(OUTPUT_0),
                          PyArray_SIZE(x));
    Py_DECREF(x);
}
"""


@pytest.mark.soak
def test_opkit_show_and_build_take_a_c_file(sqplus, user):
    """Issue 45.3: `opkit show FILE.c`, as `opkit check` takes files. An installed op's file is that op; a file no
    package registers yet (an op being ported) is shown and built on its own, its #line directives at the file."""
    _, _, _, work = sqplus
    by_name = user.sh("opkit show sqplus --dtypes float64,float64", cwd=work).stdout
    assert user.sh("opkit show sqplus/src/sqplus/sqplus.c --dtypes float64,float64", cwd=work).stdout == by_name
    port = work / "port"
    port.mkdir()
    (port / "twice.c").write_text(PORTED)
    shown = user.sh("opkit show port/twice.c --dtypes float32 --ndims 2", cwd=work).stdout
    assert f'#line 10 "{port / "twice.c"}"' in shown and "APPLY_SPECIFIC(twice)" in shown
    built = user.sh("opkit build port/twice.c --dtypes float32 --ndims 2", cwd=work).stdout
    assert built.startswith("built port/twice.c (TensorType(float32, matrix)) in "), built
    assert user.sh("opkit build port/twice.c --dtypes float32 --ndims 2", cwd=work).stdout.startswith(
        "port/twice.c (TensorType(float32, matrix)) was already built: nothing to do")
    (port / "bad.c").write_text(PORTED.replace("#section code", "#section cdoe"))
    bad = user.sh("opkit show port/bad.c --dtypes float32", cwd=work, check=False)
    assert bad.returncode == 1 and bad.stderr.startswith(
        f"opkit: error: {port / 'bad.c'}:9: unknown section tag 'cdoe'; did you mean 'code'?")


@pytest.mark.parametrize("argv, message", [
    (["show", "nowhere/twice.c", "--dtypes", "float64"],
     "nowhere/twice.c: no such file (OP is an installed op's name, or a #section C file)"),
    (["show", "{dir}/helper.c", "--dtypes", "float64"],
     "{dir}/helper.c has no '#section code': its op calls a function of the file (COp(files, func_name)), which "
     "only the op's class names; install its package and name the op"),
    (["build", "{dir}/twice.c", "--dtypes", "float64", "--into", "{dir}"],
     "--into ships the module of an installed op, and no installed op uses {dir}/twice.c: install its package, "
     "then name the op"),
])
def test_a_c_file_that_cannot_be_shown_says_why(tmp_path, capsys, argv, message):
    from opkit.cli import main

    (tmp_path / "twice.c").write_text(PORTED)
    (tmp_path / "helper.c").write_text("#section support_code\nstatic int helper(void) { return 1; }\n")
    argv = [part.format(dir=tmp_path) for part in argv]
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2 and err.rstrip().endswith(message.format(dir=tmp_path)), err


def test_a_c_file_alone_runs_as_it_is_shown(tmp_path):
    """The op `opkit show FILE.c` shows is real: compiled and run, it gives numpy's 2 * x, its output of the inputs'
    common dtype and largest rank."""
    import numpy as np

    import opkit
    import opkit.tensor as ot
    from opkit.cli.file_op import op_for_file

    (tmp_path / "twice.c").write_text(PORTED)
    op = op_for_file(str(tmp_path / "twice.c"))
    x = ot.tensor("float32", shape=(None, None))
    f = opkit.function([x], op(x))
    value = np.arange(12, dtype="float32").reshape(3, 4)[:, ::2]  # strided: the C makes it contiguous
    result = f(value)
    assert result.dtype == np.float32 and result.shape == (3, 2)
    np.testing.assert_array_equal(result, 2 * value)
    y = ot.tensor("int8", shape=(None,))
    assert op.make_node(x, y).outputs[0].type == ot.tensor("float32", shape=(None, None)).type


@pytest.mark.soak
def test_opkit_demo_says_what_the_timing_showed(user):
    """Issue 45.3: the demo's ratios say what happened here (faster, slower or level), in line with the times it
    printed, never "not expected to win" after a win."""
    out = user.quickstart
    assert "not expected to win" not in out
    ours = float(re.search(r"^opkit \(C\): +([\d.]+) ms per call", out, re.M).group(1))
    theirs = float(re.search(r"^numpy: +([\d.]+) ms per call", out, re.M).group(1))
    fused = re.search(r"one C loop: +([\d.]+) ms; numpy: +([\d.]+) ms; ratio: ", out)
    ratios = re.findall(r"ratio: +([\d.]+)x numpy's time: (faster than numpy here|slower than numpy here|"
                        r"the same time as numpy here \(within 5%\))$", out, re.M)
    assert len(ratios) == 2, out
    for (ratio, verdict), (mine, numpy) in zip(ratios, [(ours, theirs), tuple(map(float, fused.groups()))]):
        ratio = float(ratio)
        assert abs(ratio - mine / numpy) <= 0.05 * ratio + 0.01, (ratio, mine, numpy)
        expected = "faster" if ratio < 0.95 else "slower" if ratio > 1.05 else "the same"
        assert verdict.startswith(expected), (ratio, verdict)


def _edited(path, old, new):
    text = path.read_text()
    assert text.count(old) == 1
    path.write_text(text.replace(old, new))
    return text, text[:text.index(old)].count("\n") + 1


@pytest.mark.soak
def test_a_misspelt_macro_and_a_bad_tag_are_reported_where_they_are(sqplus, user, tmp_path):
    """Issues 39.4, 39.5 and 39.9 (prune and clear count what went): the package is installed editable, so an
    edit to its .c file reaches every command at once."""
    _, _, _, work = sqplus
    source = work / "sqplus" / "src" / "sqplus" / "sqplus.c"
    env = {"OPKIT_COMPILEDIR": str(tmp_path / "cache")}  # this test's own cache: its prune and clear
    original, line = _edited(source, "(const DTYPE_INPUT_0*)PyArray_DATA", "(const DTYPE_INPTU_0*)PyArray_DATA")
    try:
        hint = (f"{source}:{line}: error: DTYPE_INPTU_0 is not an opkit macro (nor #defined in this file); "
                f"did you mean DTYPE_INPUT_0?")
        checked = user.sh("opkit check sqplus", cwd=user.home, check=False)  # the op's name
        assert checked.returncode == 1 and checked.stdout.splitlines() == [hint]
        built = user.sh("opkit build sqplus --dtypes float64,float64", cwd=work, env=env, check=False)
        assert built.returncode == 1 and f"\nhint: {hint.replace(': error: ', ': ', 1)}\n" in built.stderr
        # the compiler's own words ("expected ')' before 'const'") are about the line, not the name
        assert f"{source}:{line}:" in built.stderr.split("\nhint: ")[0]
        _prune_and_clear_count_what_went(user, work, env)
        source.write_text(original)
        _, line = _edited(source, "#section code\n", "#section cdoe\n")
        used = user.sh("python -c 'import opkit; opkit.ops.sqplus'", cwd=work, check=False)
        assert used.returncode == 1 and "no installed opkit plugin registers" not in used.stderr
        failure = used.stderr[used.stderr.index("opkit.plugins.registry.BrokenPluginError: "):].strip().splitlines()
        assert failure[0] == ("opkit.plugins.registry.BrokenPluginError: the op 'sqplus' is not available: plugin "
                              "'sqplus' (distribution sqplus 0.1.0), which provides it, failed to load:")
        assert failure[1].startswith(f"SectionError: {source}:{line}: unknown section tag 'cdoe'; did you mean 'code'?")
        [fix] = [row for row in failure if row.startswith("fix: ")]
        # issue 45.3: the fix is at the user's file and line, not at opkit's own sections.py
        assert fix.startswith(f"fix: correct the error at {source}:{line}; ") and fix.endswith(
            f"sqplus is installed editable from {work / 'sqplus'}, so the fix takes effect without reinstalling "
            "(or skip it: OPKIT_DISABLE_PLUGINS=sqplus)")
        doctor = user.sh("opkit doctor", cwd=work, check=False)
        [row] = [r for r in doctor.stdout.splitlines() if r.startswith("FAIL  plugin sqplus")]
        assert f"{source}:{line}: unknown section tag 'cdoe'" in row and "installed editable from" in row
        assert f"fix: correct the error at {source}:{line}; " in row and "opkit/cop/" not in row
        assert "reinstall " not in row and "pip uninstall" not in row
        shown = user.sh("opkit show sqplus --dtypes float64,float64", cwd=work, check=False)
        assert shown.returncode == 1 and shown.stderr.startswith("opkit: error: the op 'sqplus' is not available")
        assert user.sh("opkit check sqplus/", cwd=work, check=False).stdout.startswith(
            f"sqplus/src/sqplus/sqplus.c:{line}: error: unknown section tag 'cdoe'")
    finally:
        source.write_text(original)
    assert user.sh("opkit check sqplus", cwd=user.home).returncode == 0


def _prune_and_clear_count_what_went(user, work, env):
    """After the failed build above: prune removes it and says so; clear says what it removed, in all."""
    def info():
        return json.loads(user.sh("opkit cache info --json", cwd=work, env=env).stdout)

    before = info()
    failed = before["bytes_by_kind"]["builds and failed builds"]
    assert failed > 0
    pruned = user.sh("opkit cache prune", cwd=work, env=env).stdout
    after = info()
    assert after["bytes_by_kind"]["builds and failed builds"] == 0
    size = _size(before["total_bytes"] - after["total_bytes"])
    assert pruned.startswith(f"evicted 0 module(s), 0 B; removed builds and failed builds {_size(failed)}")
    assert pruned.splitlines()[0].endswith(f": {size} in all") or pruned.splitlines()[0].endswith(
        f"builds and failed builds {size}")
    user.sh("opkit build vector_times_vector --dtypes float64,float64", cwd=work, env=env)
    before = info()
    assert before["bytes_by_kind"]["precompiled headers"] > 0 and before["entries"] >= 1
    cleared = user.sh("opkit cache clear", cwd=work, env=env).stdout.splitlines()[0]
    assert info()["total_bytes"] == 0
    assert cleared.startswith(f"removed {before['entries']} module(s), {_size(before['bytes_by_kind']['modules'])}; "
                              f"removed ")
    assert f"precompiled headers {_size(before['bytes_by_kind']['precompiled headers'])}" in cleared
    assert cleared.endswith(f": {_size(before['total_bytes'])} in all")


def _size(n):
    from opkit.cli.cache_ops import human_size as size

    return size(n)


@pytest.mark.soak
def test_the_readme_test_command_installs_no_torch_nor_jax(user):
    """Issue 39.2: the Quickstart's second line, as written up to its pytest, resolves without torch, jax or
    CUDA libraries (pip's --dry-run report: nothing is installed)."""
    second = quickstart_lines()[1]
    install, _, run = second.partition(" && python -m pytest")
    assert run == " -n auto" and "pip install -e '.[test]'" in install
    report = user.home / "report.json"
    user.sh(f"{install} --dry-run --ignore-installed --quiet --report {report}", cwd=user.clone, activate=False)
    names = {item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"]}
    assert {"pytest", "hypothesis", "opkit-sdk"} <= names
    assert not {name for name in names if name in ("torch", "jax", "jaxlib") or name.startswith("nvidia")}


BLOCKED = "raise ModuleNotFoundError(\"No module named '{0}'\", name='{0}')\n"


def test_the_bridge_tests_skip_without_their_framework_and_say_how_to_get_it(tmp_path):
    """Issue 39.2: without torch or jax (the light test extra), their tests skip with how to install them."""
    for name in ("torch", "jax"):
        (tmp_path / f"{name}.py").write_text(BLOCKED.format(name))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-p", "no:xdist",
                             "tests/bridge/test_bridge_torch.py", "tests/bridge/test_bridge_jax.py"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode in (0, 5), result.stdout + result.stderr  # 5: every test skipped, none collected
    assert "2 skipped" in result.stdout
    assert ("the torch bridge needs PyTorch; its CPU build (about 200 MB; PyPI's Linux wheel is a CUDA build of about "
            "3 GB): pip install torch --index-url https://download.pytorch.org/whl/cpu") in result.stdout
    assert "the JAX bridge needs JAX; its CPU build: pip install jax" in result.stdout
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in README


BRIDGE_ERRORS = """
import numpy as np
import opkit, opkit.tensor as ot


class Sqplus(opkit.Op):
    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        if x.dtype != "float64":
            raise TypeError(f"Sqplus takes float64, not {x.dtype}")
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] ** 2 + 1

    def infer_shape(self, node, shapes):
        return shapes

    def grad(self, inputs, g):
        return [2 * inputs[0] * g[0]]


if "{framework}" == "torch":
    import torch
    from opkit.bridge.torch import as_torch_op
    sqplus = as_torch_op(Sqplus())
    print(sqplus(torch.ones(2, dtype=torch.float64)).tolist())
    sqplus(torch.arange(3))
else:
    import jax
    jax.config.update("jax_enable_x64", True)
    from opkit.bridge.jax import as_jax_op
    sqplus = as_jax_op(Sqplus())
    f = lambda x: sqplus(x).sum()
    print(float(jax.grad(lambda x: f(x))(jax.numpy.ones(3))[0]))
    jax.grad(lambda y: jax.grad(f)(y).sum())(jax.numpy.ones(3))
"""


@pytest.mark.parametrize("framework, message", [
    ("torch", "TypeError: as_torch_op(Sqplus) called on (int64 of rank 1): the op's make_node refused inputs "
              "(TensorType(int64, vector)): Sqplus takes float64, not int64\n"
              "pass tensors of dtypes the op takes (convert them first, e.g. x.to(torch.float64))"),
    ("jax", "NotImplementedError: as_jax_op(Sqplus): a second derivative (jax.grad(jax.grad(f)), jax.hessian(f), "
            "jax.jacfwd(jax.grad(f)), ...) is not supported: opkit's JAX bridge differentiates an op once (jax.grad, "
            "jax.vjp, jax.jvp, jax.jacfwd, jax.jacrev, under jax.jit and jax.vmap); take higher derivatives in opkit "
            "(opkit.grad of opkit.grad, then opkit.function)"),
])
def test_bridge_errors_name_the_call_the_user_made(framework, message, tmp_path):
    """Issue 39.10: a refused dtype through torch names as_torch_op, not op.compute; a second derivative through
    JAX names the op and says what is supported, not 'The FFI call to opkit_graph_4'."""
    from importlib.util import find_spec

    if find_spec(framework) is None:
        how = ("pip install torch --index-url https://download.pytorch.org/whl/cpu" if framework == "torch"
               else "pip install jax")
        pytest.skip(f"needs {framework} (CI installs it): {how}")
    script = tmp_path / "user.py"
    script.write_text(BRIDGE_ERRORS.replace("{framework}", framework))
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert result.returncode == 1
    assert result.stdout.strip() in ("[2.0, 2.0]", "2.0")  # the supported call works
    assert f"\n{message}\n" in result.stderr, result.stderr
    assert ".compute:" not in result.stderr and "opkit_graph_" not in result.stderr


def test_the_wheel_is_built_and_checked_as_users_get_it():
    """Issue 39.12: CI runs .ci/wheel_check (build without a warning, install not editable, opkit demo, every
    built-in file); the license is an SPDX string with its file, which needs setuptools >= 77 to build."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "BSD-3-Clause" and project["project"]["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("BSD 3-Clause License")
    assert project["build-system"]["requires"] == ["setuptools>=77.0.1"]
    run = (ROOT / ".ci" / "run").read_text()
    assert '"$root/.ci/wheel_check" "$first_python"' in run
    check = (ROOT / ".ci" / "wheel_check").read_text()
    assert 'grep -Ei "warning|deprecat"' in check and 'opkit" demo' in check and "every_builtin_file.py" in check
    # the extras: the test extra is light, CI installs the frameworks itself
    extras = project["project"]["optional-dependencies"]
    assert not [r for r in extras["test"] if re.match(r"(torch|jax|opkit-sdk\[)", r)]
    assert "torch==2.13.0" in run and '"jax>=0.5.0"' in run and "-e '.[test]'" in run
