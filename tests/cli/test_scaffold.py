"""`opkit new NAME`: the scaffold, and `opkit new NAME && pip install ./NAME && pytest NAME` for real."""

import pytest

from opkit.cli import CommandFailed, main
from opkit.cli.new import TEMPLATES, scaffold_names


def test_names_follow_from_the_project_name():
    assert scaffold_names("my-ops") == {"directory": "my-ops", "dist": "my-ops", "package": "my_ops", "class_name": "MyOps",
                                        "op_name": "my_ops"}
    assert scaffold_names("Scale.Add2")["class_name"] == "ScaleAdd2"
    assert scaffold_names("scaled_ops")["dist"] == "scaled-ops"
    for name in ("my_fancy_ops", "my-fancy-ops"):
        assert scaffold_names(name)["class_name"] == "MyFancyOps"
        assert scaffold_names(name)["package"] == "my_fancy_ops"


@pytest.mark.parametrize("name, message", [
    ("2fast", "cannot name an op package"),
    ("class", "cannot name an op package"),
    ("my ops", "cannot name an op package"),
    ("json", "would shadow the module 'json'"),
    ("opkit", "would shadow the module 'opkit'"),
    ("tests", "would shadow the module 'tests'"),
    ("add", "would shadow the built-in op opkit.ops.add"),
    ("Sum", "would shadow the built-in op opkit.ops.sum"),
    ("my$ops", "cannot name an op package: it must make a Python identifier"),
])
def test_bad_names_are_refused_with_a_reason(name, message):
    with pytest.raises(CommandFailed, match=message):
        scaffold_names(name)


def test_new_writes_every_file_and_refuses_to_overwrite(tmp_path, capsys):
    assert main(["new", "my_ops", "--directory", str(tmp_path)]) == 0
    project = tmp_path / "my_ops"
    files = sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_file())
    assert files == sorted(path.format(package="my_ops") for path in TEMPLATES.values())
    pyproject = (project / "pyproject.toml").read_text()
    assert '[project.entry-points.opkit]\nmy_ops = "my_ops.plugin"' in pyproject
    assert "class MyOps(opkit.COp):" in (project / "src" / "my_ops" / "op.py").read_text()
    assert 'dependencies = ["opkit-sdk>=' in pyproject and 'package-dir = {"" = "src"}' in pyproject
    assert "from opkit.testing import" in (project / "tests" / "test_my_ops.py").read_text()
    capsys.readouterr()
    assert main(["check", str(project / "src" / "my_ops" / "my_ops.c")]) == 0
    assert main(["new", "my_ops", "--directory", str(tmp_path)]) == 1
    assert "already exists" in capsys.readouterr().err


# A pip install and the package's own pytest in a subprocess: soak (`-m soak`), with the README's and the first hour's
# runs of the same scaffold (tests/docs/test_readme.py, tests/cli/test_first_hour.py); in the default run the
# --params scaffold below passes its own tests, and test_new_writes_every_file_... checks every file written.
@pytest.mark.soak
def test_a_new_package_installs_and_passes_its_own_tests(plugin_venv, tmp_path):
    plugin_venv.run("-m", "opkit.cli", "new", "scaled_ops", cwd=tmp_path)
    plugin_venv.pip_install(tmp_path / "scaled_ops")
    result = plugin_venv.run("-m", "pytest", "-q", "-p", "no:cacheprovider", "scaled_ops", cwd=tmp_path,
                             env={"OPKIT_DISABLE_PLUGINS": "opkit-test-broken"}, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "9 passed" in result.stdout and "skipped" not in result.stdout
    listed = plugin_venv.run("-m", "opkit.cli", "list", cwd=tmp_path).stdout
    assert any(line.split()[:3] == ["scaled_ops", "scaled-ops", "0.1.0"] for line in listed.splitlines())


def test_new_with_params_scaffolds_an_op_whose_c_reads_params(tmp_path, capsys):
    """`opkit new NAME --params`: the op's C reads PARAMS->scale; its own tests pass (registration aside:
    that needs the pip install the test above does)."""
    import os
    import subprocess
    import sys

    assert main(["new", "par_ops", "--params", "--directory", str(tmp_path)]) == 0
    project = tmp_path / "par_ops"
    assert "PARAMS->scale" in (project / "src" / "par_ops" / "par_ops.c").read_text()
    assert "params_type = opkit.ParamsType(scale=opkit.scalar.float64)" in (project / "src" / "par_ops" / "op.py").read_text()
    capsys.readouterr()
    assert main(["check", str(project / "src" / "par_ops" / "par_ops.c")]) == 0
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(project / "src"), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "not registered",
                             str(project / "tests")], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "10 passed" in result.stdout and "skipped" not in result.stdout
