"""Plugin mistakes point at the plugin's own file and line.

A plugin module that raises while it is imported (or while a hook runs) is reported
with the file and line that raised, wherever the user sees it: the PluginLoadWarning of
`opkit.ops...`, the note of an unknown-name error, `opkit list` (text and JSON) and
`opkit doctor`. A function named like a hook without `@opkit.hookimpl` (which pluggy
silently ignores) gets a warning naming the function, its file and line, and saying to
add the marker.

The plugin packages are real projects written by the tests, pip-installed into a venv
built the way conftest's `plugin_venv` is (PluginVenv), and imported in-process from a
real path for the pytest.warns checks.
"""

import importlib
import json
import shutil
import sys
import textwrap
import warnings

import pytest
from conftest import FakeEntryPoint, PluginVenv

import opkit
from opkit.plugins.manager import PluginLoadWarning, UnmarkedHookWarning, load_plugins

# Each plugin module, with the line that raises marked by `# <- raises`.
RAISES_MODULES = {
    "direct": '''
        """Raises at import, as a plugin with a failed assumption does."""
        import opkit

        raise RuntimeError("opkit_test_raises.direct refuses to load")  # <- raises


        @opkit.hookimpl
        def register_ops(register):
            pass
    ''',
    "config": '''
        """Parses a bad config at import: the error is raised in json, called from here."""
        import json

        SETTINGS = json.loads("{not json")  # <- raises
    ''',
    "missing": '''
        """Needs a dependency that is not installed."""
        import opkit
        import opkit_test_no_such_dependency  # <- raises
    ''',
    "syntax": '''
        """Does not parse."""
        def register_ops(register:
            pass  # <- raises
    ''',
    "hook": '''
        """Imports fine; its hook raises."""
        import opkit


        @opkit.hookimpl
        def register_ops(register):
            raise KeyError("no op table")  # <- raises
    ''',
}

UNMARKED_MODULE = '''
    """Forgets @opkit.hookimpl on register_ops, but not on register_types."""
    import opkit
    from opkit.core.type import Type


    class Cell(Type):
        pass


    def register_ops(register):  # <- unmarked
        register(opkit.core.builtin_ops.ViewOp(), name="never_registered")


    @opkit.hookimpl
    def register_types(register):
        register(Cell, name="unmarked_cell")


    def helper(register):  # not a hook name: no warning
        pass
'''


def _line_of(source, marker):
    """Return the 1-based line of `marker` in the dedented module text (as written to disk)."""
    lines = textwrap.dedent(source).lstrip("\n").splitlines()
    return next(number for number, line in enumerate(lines, 1) if marker in line)


def _write_project(root, distribution, package, modules):
    """Write a pip-installable project whose entry points are its modules (name = module name)."""
    project = root / distribution
    (project / package).mkdir(parents=True)
    (project / package / "__init__.py").write_text("", encoding="utf-8")
    for name, source in modules.items():
        (project / package / f"{name}.py").write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    entry_points = "\n".join(f'{package}_{name} = "{package}.{name}"' for name in modules)
    (project / "pyproject.toml").write_text(textwrap.dedent(f"""
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "{distribution}"
        version = "0.7"

        [tool.setuptools]
        packages = ["{package}"]

        [project.entry-points.opkit]
    """).lstrip("\n") + entry_points + "\n", encoding="utf-8")
    return project


@pytest.fixture(scope="module")
def error_venv(tmp_path_factory):
    """A venv (made like conftest's plugin_venv) with the two faulty plugin packages pip-installed."""
    base = tmp_path_factory.mktemp("plugin-errors-venv")
    venv = PluginVenv.create(base)
    venv.pip_install(_write_project(base / "src", "opkit-test-raises", "opkit_test_raises", RAISES_MODULES),
                     _write_project(base / "src", "opkit-test-unmarked", "opkit_test_unmarked",
                                    {"plugin": UNMARKED_MODULE}))
    venv.site = venv.run("-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    yield venv
    shutil.rmtree(base, ignore_errors=True)


def _expected_locations(site):
    return {name: f"{site}/opkit_test_raises/{name}.py:{_line_of(source, '# <- raises')}"
            for name, source in RAISES_MODULES.items()}


def test_opkit_list_json_gives_the_file_and_line_that_raised(error_venv, tmp_path):
    data = json.loads(error_venv.run("-m", "opkit.cli", "list", "--json", cwd=tmp_path).stdout)
    plugins = {row["name"]: row for row in data["plugins"] if row["distribution"] == "opkit-test-raises"}
    where = _expected_locations(error_venv.site)
    assert {name: row["status"] for name, row in plugins.items()} == {
        f"opkit_test_raises_{name}": "broken" for name in RAISES_MODULES}
    errors = {name.removeprefix("opkit_test_raises_"): row["error"] for name, row in plugins.items()}
    assert errors["direct"] == ("RuntimeError: opkit_test_raises.direct refuses to load "
                                f"(raised at {where['direct']})")
    # raised inside json, called from the plugin's line: both are shown
    assert errors["config"].startswith("JSONDecodeError: Expecting property name enclosed in double quotes")
    assert errors["config"].endswith(f", called from {where['config']})")
    assert "/json/" in errors["config"].split("(raised at ")[1]
    assert errors["missing"] == ("ModuleNotFoundError: No module named 'opkit_test_no_such_dependency' "
                                 f"(raised at {where['missing']})")
    assert errors["syntax"].startswith("SyntaxError: ")
    assert errors["syntax"].endswith(f"(raised at {error_venv.site}/opkit_test_raises/syntax.py:"
                                     f"{_line_of(RAISES_MODULES['syntax'], 'def register_ops')})")
    assert errors["hook"] == f"KeyError: 'no op table' (raised at {where['hook']})"


def test_opkit_list_and_doctor_show_the_location(error_venv, tmp_path):
    out = error_venv.run("-m", "opkit.cli", "list", cwd=tmp_path).stdout
    where = _expected_locations(error_venv.site)
    assert (f"  opkit_test_raises_direct (opkit-test-raises 0.7): RuntimeError: opkit_test_raises.direct refuses "
            f"to load (raised at {where['direct']})") in out
    doctor = error_venv.run("-m", "opkit.cli", "doctor", cwd=tmp_path, check=False)
    assert f"(raised at {where['missing']})" in doctor.stdout + doctor.stderr


def test_using_opkit_ops_warns_with_the_location(error_venv, tmp_path):
    code = textwrap.dedent("""
        import opkit
        try:
            opkit.ops.something_the_broken_plugins_may_provide
        except AttributeError as exc:
            print(exc)
    """)
    result = error_venv.run("-W", "always", "-c", code, cwd=tmp_path)
    where = _expected_locations(error_venv.site)
    assert ("PluginLoadWarning: opkit plugin 'opkit_test_raises_direct' from distribution opkit-test-raises 0.7 "
            "failed to load and was skipped:\nRuntimeError: opkit_test_raises.direct refuses to load "
            f"(raised at {where['direct']})") in result.stderr
    assert f"KeyError: 'no op table' (raised at {where['hook']})" in result.stderr
    # the unknown-name error notes the broken plugins, with where they broke
    assert f"is broken (RuntimeError: opkit_test_raises.direct refuses to load (raised at {where['direct']}))" \
        in result.stdout


def test_a_hook_without_hookimpl_warns_naming_function_file_and_line(error_venv, tmp_path):
    code = ("import opkit\nfrom opkit.plugins.registry import types\n"
            "print('unmarked_cell' in types, 'never_registered' in opkit.ops)")
    result = error_venv.run("-W", "always", "-c", code, cwd=tmp_path)
    assert result.stdout.split() == ["True", "False"]
    where = f"{error_venv.site}/opkit_test_unmarked/plugin.py:{_line_of(UNMARKED_MODULE, '# <- unmarked')}"
    assert (f"{where}: opkit plugin 'opkit_test_unmarked_plugin' from distribution opkit-test-unmarked 0.7 defines "
            "register_ops() without the @opkit.hookimpl marker, so opkit never calls it") in result.stderr
    assert "UnmarkedHookWarning" in result.stderr
    assert "add @opkit.hookimpl on the line above `def register_ops`" in result.stderr
    assert "helper" not in result.stderr and "register_types()" not in result.stderr
    # `opkit list` shows it too (it hides only the load warnings it reports itself)
    listed = error_venv.run("-m", "opkit.cli", "list", cwd=tmp_path)
    assert f"{where}: opkit plugin 'opkit_test_unmarked_plugin'" in listed.stderr


# -- in-process: the same modules imported from a real path, through the manager ---------------------

@pytest.fixture
def modules_on_path(tmp_path, monkeypatch):
    """Write modules into a package on sys.path; return (package name, its directory)."""
    package = tmp_path / "opkit_errors_inproc"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    for name, source in {**RAISES_MODULES, "unmarked": UNMARKED_MODULE}.items():
        (package / f"{name}.py").write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "opkit_errors_inproc", package
    for name in [m for m in sys.modules if m.startswith("opkit_errors_inproc")]:
        del sys.modules[name]


class ImportingEntryPoint(FakeEntryPoint):
    """An entry point whose load() really imports its module."""

    def __init__(self, name, module, dist):
        super().__init__(name, None, dist)
        self.value = module

    def load(self):
        return importlib.import_module(self.value)


@pytest.mark.parametrize("name", ["direct", "config", "missing", "hook"])
def test_the_warning_names_the_plugins_file_and_line(installed, modules_on_path, name):  # noqa: F811
    package, directory = modules_on_path
    installed(ImportingEntryPoint("bad", f"{package}.{name}", "bad-dist"))
    with pytest.warns(PluginLoadWarning) as caught:
        list(opkit.ops)
    [record] = load_plugins().broken
    where = f"{directory}/{name}.py:{_line_of(RAISES_MODULES[name], '# <- raises')}"
    assert record.location.endswith(where)
    assert record.error.endswith(f"{where})")
    assert f"{where})\n" in str(caught[0].message)
    assert caught[0].filename == __file__  # the warning points at the user's line, not at opkit


def test_hookimpl_warning_in_process(installed, modules_on_path):  # noqa: F811
    package, directory = modules_on_path
    installed(ImportingEntryPoint("unmarked", f"{package}.unmarked", "unmarked-dist"))
    with pytest.warns(UnmarkedHookWarning) as caught:
        assert "never_registered" not in opkit.ops
    [warning] = caught
    text = str(warning.message)
    assert text.startswith(f"{directory}/unmarked.py:{_line_of(UNMARKED_MODULE, '# <- unmarked')}: ")
    assert "register_ops()" in text and "@opkit.hookimpl" in text
    assert warning.filename == __file__
    [record] = load_plugins().plugins
    assert record.status == "loaded" and record.warnings == [text]
    assert "unmarked_cell" in opkit.plugins.registry.types


def test_marked_plugins_and_opkits_own_plugin_do_not_warn(installed, modules_on_path):  # noqa: F811
    from opkit.plugins import manager

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        installed(FakeEntryPoint("opkit", importlib.import_module("opkit.plugins.builtin"), "opkit-sdk"))
        assert "add" in opkit.ops
    assert manager.load_plugins().plugins[0].warnings == []
