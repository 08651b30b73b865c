"""Op packages pip-installed into a real venv: discovery, `opkit list`, broken, duplicate and disabled plugins."""

import json
import textwrap

import pytest

from conftest import ROOT, installed_opkit_distribution
from helpers.caches import seeded

USE_THE_INSTALLED_OP = textwrap.dedent("""
    import sys
    import numpy as np
    import opkit
    import opkit.tensor as ot

    assert not [m for m in sys.modules if m.startswith(("vector_times_vector", "opkit_t", "opkit.plugins"))]
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], opkit.ops.vector_times_vector(x, y))
    print(f(np.arange(4.0), np.full(4, 0.5)).tolist())
    print(type(opkit.ops.vector_times_vector).__module__)
""")


def python_code(venv, code, cwd, **env):
    """Run `code` in the venv from `cwd`; return the CompletedProcess."""
    return venv.run("-W", "always", "-c", code, cwd=cwd, env=env)


# The registered op's compute in the same process (tests/reach/test_eager.py's test of an installed package, here so
# that it needs no venv of its own): the first call computes, the second is served from memory (no module event).
COMPUTE_THE_INSTALLED_OP = textwrap.dedent("""
    from opkit.cop.store.cache import module_events
    a, b = np.arange(5.0), np.full(5, 0.5)
    op = opkit.ops.vector_times_vector
    assert (op.compute(a, b) == a * b).all()
    events = dict(module_events)
    assert (op.compute(b, a) == b * a).all()
    print(dict(module_events) == events)
""")


def test_an_installed_op_is_found_and_runs_from_any_directory_in_a_function_and_computes(plugin_venv, tmp_path):
    result = python_code(plugin_venv, USE_THE_INSTALLED_OP + COMPUTE_THE_INSTALLED_OP, tmp_path)
    assert result.stdout.splitlines() == ["[0.0, 0.5, 1.0, 1.5]", "vector_times_vector.op", "True"]


def test_import_opkit_imports_no_plugin(plugin_venv, tmp_path):
    code = ("import sys, opkit\n"
            "print(sorted(m for m in sys.modules if m.startswith(('vector_times_vector', 'opkit_t', 'pluggy', "
            "'opkit.plugins', 'opkit.cli'))))")
    assert python_code(plugin_venv, code, tmp_path).stdout.strip() == "[]"


def test_opkit_list_json(plugin_venv, tmp_path):
    data = json.loads(plugin_venv.run("-m", "opkit.cli", "list", "--json", cwd=tmp_path).stdout)
    ops = {(row["distribution"], row["name"]): row for row in data["ops"]}
    vtv = ops["vector-times-vector", "vector_times_vector"]
    assert (vtv["version"], vtv["plugin"], vtv["op_class"]) == ("0.1.0", "vector_times_vector",
                                                                "vector_times_vector.op.VectorTimesVector")
    [c_file] = vtv["c_files"]
    assert c_file.endswith("site-packages/vector_times_vector/vectorTimesVector.c")  # shipped as package data
    tutorial = {name for dist, name in ops if dist == "opkit-tutorial-ops"}
    assert tutorial >= {"vector_times_scalar", "double_op", "double_add", "double_sub", "double_mul", "double_div"}
    assert ops["opkit-test-dupe-a", "duplicated"]["conflict"] and ops["opkit-test-dupe-b", "duplicated"]["conflict"]
    assert not ops[installed_opkit_distribution(), "add"]["conflict"]
    plugins = {row["distribution"]: row for row in data["plugins"]}
    assert plugins["opkit-test-broken"]["status"] == "broken"
    error = plugins["opkit-test-broken"]["error"]
    assert error.startswith("ImportError: opkit_test_broken needs libfrobnicate, which is not installed (raised at ")
    assert error.endswith("/site-packages/opkit_test_broken/plugin.py:3)")
    assert {"double"} <= {row["name"] for row in data["types"] if row["distribution"] == "opkit-tutorial-ops"}


def test_opkit_list_shows_broken_plugins_and_conflicts(plugin_venv, tmp_path):
    out = plugin_venv.run("-m", "opkit.cli", "list", cwd=tmp_path).stdout
    assert "Broken plugins:\n  broken (opkit-test-broken 0.3): ImportError: opkit_test_broken needs" in out
    assert "opkit-test-dupe-a:duplicated (conflict)" in out


def test_a_broken_plugin_warns_while_the_others_load(plugin_venv, tmp_path):
    result = python_code(plugin_venv, "import opkit\nprint(sorted(opkit.ops))", tmp_path)
    assert "vector_times_vector" in result.stdout and "double_op" in result.stdout
    assert ("PluginLoadWarning: opkit plugin 'broken' from distribution opkit-test-broken 0.3 failed to load "
            "and was skipped:\nImportError: opkit_test_broken needs libfrobnicate") in result.stderr


def test_a_duplicate_name_raises_plugin_error_and_dist_name_picks_one(plugin_venv, tmp_path):
    code = textwrap.dedent("""
        import opkit
        try:
            opkit.ops.duplicated
        except opkit.PluginError as exc:
            print(exc.name, exc.distributions)
            print(exc)
        print(type(opkit.ops["opkit-test-dupe-a:duplicated"]).__name__)
        print(type(opkit.ops["opkit_test_dupe_b:duplicated"]).__name__)
    """)
    out = python_code(plugin_venv, code, tmp_path).stdout.splitlines()
    assert out[0] == "duplicated ('opkit-test-dupe-a', 'opkit-test-dupe-b')"
    assert out[1] == "the op 'duplicated' is registered by 2 plugins:"
    assert 'use opkit.ops["opkit-test-dupe-a:duplicated"] or opkit.ops["opkit-test-dupe-b:duplicated"]' in out[4]
    assert out[-2:] == ["DuplicatedA", "ViewOp"]


def test_opkit_disable_plugins(plugin_venv, tmp_path):
    code = "import opkit\nprint(type(opkit.ops.duplicated).__name__, 'vector_times_vector' in opkit.ops)"
    result = python_code(plugin_venv, code, tmp_path, OPKIT_DISABLE_PLUGINS="opkit-test-broken,dupe_b")
    assert result.stdout.strip() == "DuplicatedA True"
    assert "Warning" not in result.stderr
    result = python_code(plugin_venv, "import opkit\nprint(sorted({opkit.ops.info(n)['distribution'] "
                                      "for n in opkit.ops}))", tmp_path, OPKIT_DISABLE_PLUGINS="all")
    assert result.stdout.strip() == str([installed_opkit_distribution()]) and "Warning" not in result.stderr


def test_show_and_build_an_installed_cop_then_a_function_hits_the_cache(plugin_venv, tmp_path):
    env = {"OPKIT_COMPILEDIR": seeded(tmp_path / "cache")}
    show = plugin_venv.run("-m", "opkit.cli", "show", "vector_times_vector", "--dtypes", "float64,float32",
                           cwd=tmp_path, env=env).stdout
    assert "/site-packages/vector_times_vector/vectorTimesVector.c\"" in show  # #line directives
    assert "APPLY_SPECIFIC(vector_times_vector)(V0, V1, &V2)" in show
    build = plugin_venv.run("-m", "opkit.cli", "build", "vector_times_vector", "--dtypes", "float64,float64",
                            cwd=tmp_path, env=env).stdout
    assert "cache entry: " in build
    # The function finds the module `opkit build` made: still one graph module in the cache.
    count = ("from opkit.cop.store.cache import default_cache\n"
             "print(sum((e.path / 'module.cpp').read_text().startswith('// Generated by opkit: graph')"
             " for e in default_cache().upkeep.entries()))")
    code = f"{USE_THE_INSTALLED_OP}\n{count}"
    assert python_code(plugin_venv, code, tmp_path, **env).stdout.splitlines()[-1] == "1"


def test_show_explains_an_op_without_c_code(plugin_venv, tmp_path):
    result = plugin_venv.run("-m", "opkit.cli", "show", "double_op", "--dtypes", "float64", cwd=tmp_path,
                             check=False)
    assert result.returncode == 1 and result.stdout == ""
    assert "double_op has no C code for DoubleOp(x0)" in result.stderr and "Python (perform) only" in result.stderr


def test_demo_uses_the_installed_example(plugin_venv, tmp_path):
    out = plugin_venv.run("-m", "opkit.cli", "demo", "--size", "10000", "--repeat", "3", cwd=tmp_path,
                          env={"OPKIT_COMPILEDIR": seeded(tmp_path / "cache")}).stdout
    assert "VectorTimesVector: installed package vector-times-vector 0.1.0" in out
    assert "(compiled)" in out and "cache hit; the whole process took" in out


@pytest.mark.soak  # both packages' own suites in a subprocess; the tests above run their ops from the install
def test_the_example_and_first_party_packages_pass_their_own_tests(plugin_venv, tmp_path):
    result = plugin_venv.run("-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore::UserWarning",
                             str(ROOT / "examples" / "vector_times_vector"), str(ROOT / "plugins" / "opkit-tutorial-ops"),
                             cwd=tmp_path, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout and "failed" not in result.stdout
