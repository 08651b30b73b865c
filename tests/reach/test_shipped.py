"""Shipped modules: the example's wheel carries its compiled modules to a machine without a compiler."""

import importlib.util
import json
import os
import sys
import shutil
import textwrap
import zipfile

import pytest

from conftest import ROOT, PluginVenv
from helpers.caches import seeded

# The target machine: no C++ compiler on PATH, config.cxx naming one that is not there.
NO_COMPILER = {"OPKIT_FLAGS": "cxx=/nonexistent/bin/c++"}

RUN_BOTH_DTYPES = textwrap.dedent("""
    import numpy as np
    import opkit
    import opkit.tensor as ot
    from opkit.cop.store.cache import module_events
    op = opkit.ops.vector_times_vector
    for dtype in ("float64", "float32"):
        a, b = np.arange(5, dtype=dtype), np.linspace(0, 1, 5, dtype=dtype)
        result = op.compute(a, b)
        assert result.dtype == dtype and (result == a * b).all(), (dtype, result)
    x, y = ot.fvector("x"), ot.fvector("y")
    f = opkit.function([x, y], op(x, y))
    assert (f(np.ones(3, "float32"), np.full(3, 2, "float32")) == 2).all()
    print(sorted(dict(module_events).items()))
""")

INT16 = textwrap.dedent("""
    import numpy as np
    import opkit
    try:
        opkit.ops.vector_times_vector.compute(np.arange(3, dtype="int16"), np.arange(3, dtype="int16"))
    except opkit.MissingModuleError as exc:  # a CompileError too
        print(type(exc).__name__, exc.signature, sep="\\n")
        print(exc)
""")


class Builder(PluginVenv):
    """The developer's machine: this interpreter, with the example's source tree importable and registered (a
    hand-written dist-info naming its entry point on PYTHONPATH, as tests/helpers/shipped.py's make_package has it)
    rather than pip-installed into a venv of its own: `opkit build` finds the op the same way, by its entry point."""

    def __init__(self, env):
        self.python, self.env = sys.executable, env

    def run(self, *args, env=None, **kwargs):
        return super().run(*args, env={**self.env, **(env or {})}, **kwargs)


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """Build the example's wheel with float64 and float32 modules; install it into a fresh venv.

    Returns (builder, target venv, wheel path, the target's environment).
    """
    base = tmp_path_factory.mktemp("shipped")
    source = shutil.copytree(ROOT / "examples" / "vector_times_vector", base / "src",
                             ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info", "_opkit_modules"))
    info = base / "registered" / "vector_times_vector-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vector-times-vector\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[opkit]\nvector_times_vector = vector_times_vector.plugin\n")
    builder = Builder({"PYTHONPATH": os.pathsep.join([str(source), str(info.parent), str(ROOT)])})
    package = source / "vector_times_vector"
    build = ("from opkit.cli import main\n"
             "import vector_times_vector\n"
             f"assert vector_times_vector.__file__ == {str(package / '__init__.py')!r}, vector_times_vector.__file__\n"
             "for d in ('float64', 'float32'):\n"
             "    assert main(['build', 'vector_times_vector', '--dtypes', f'{d},{d}',\n"
             f"                 '--into', {str(package)!r}]) == 0")
    builder.run("-c", build, cwd=base)
    Builder({}).run("-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--disable-pip-version-check",
                    "-w", str(base / "dist"), str(source), cwd=base)  # the source tree's own pyproject.toml
    [wheel] = (base / "dist").glob("vector_times_vector-*.whl")
    target = PluginVenv.create(base / "target")
    target.pip_install(wheel)
    no_compiler_bin = base / "bin-without-compiler"
    no_compiler_bin.mkdir()
    env = {**NO_COMPILER, "PATH": f"{target.root / 'bin'}{os.pathsep}{no_compiler_bin}",
           "OPKIT_COMPILEDIR": str(base / "target-cache")}
    return builder, target, wheel, env


def test_the_wheel_carries_the_modules(shipped):
    _, _, wheel, _ = shipped
    with zipfile.ZipFile(wheel) as archive:
        metas = [json.loads(archive.read(name)) for name in archive.namelist()
                 if name.startswith("vector_times_vector/_opkit_modules/") and name.endswith("/meta.json")]
        names = archive.namelist()
    assert sorted(m["dtypes"] for m in metas) == [["float32", "float32"], ["float64", "float64"]]
    for meta in metas:
        assert f"vector_times_vector/_opkit_modules/{meta['key']}/{meta['so_name']}" in names
        assert meta["op"] == "vector_times_vector" and meta["op_class"] == "vector_times_vector.op.VectorTimesVector"
        assert {"python_abi", "numpy_c_api", "cpu"} <= set(meta)


def test_without_a_compiler_the_op_runs_from_its_shipped_modules(shipped, tmp_path):
    _, target, _, env = shipped
    assert shutil.which("c++", path=env["PATH"]) is None and shutil.which("g++", path=env["PATH"]) is None
    out = target.run("-c", RUN_BOTH_DTYPES, cwd=tmp_path, env=env).stdout
    assert out.strip() == "[('shipped', 2)]"  # both dtypes from the wheel; nothing built, nothing from a cache


def test_with_a_compiler_too_shipped_modules_come_before_the_cache_and_the_compiler(shipped, tmp_path):
    _, target, _, env = shipped
    with_compiler = {"OPKIT_COMPILEDIR": seeded(tmp_path / "cache")}
    out = target.run("-c", RUN_BOTH_DTYPES, cwd=tmp_path, env=with_compiler).stdout
    assert out.strip() == "[('built', 1), ('shipped', 2)]"  # built: opkit's call path (FunctionBase) only


def test_a_signature_without_a_shipped_module_is_a_clear_error(shipped, tmp_path):
    _, target, _, env = shipped
    out = target.run("-c", INT16, cwd=tmp_path, env=env).stdout
    kind, signature, *message = out.splitlines()
    assert kind == "MissingModuleError"
    assert signature == "TensorType(int16, vector), TensorType(int16, vector)"
    text = "\n".join(message)
    assert text.startswith("no compiled module for VectorTimesVector(x0, x1) with inputs (TensorType(int16, vector),"
                           " TensorType(int16, vector)), and no C++ compiler to build one")
    assert "/nonexistent/bin/c++" in text
    assert ("installed packages ship VectorTimesVector for: (TensorType(float32, vector), TensorType(float32, "
            "vector)); (TensorType(float64, vector), TensorType(float64, vector))") in text
    assert ("fix: on a machine with a C++ compiler, run `opkit build vector_times_vector --dtypes int16,int16 --into "
            "<the source directory of the package vector_times_vector>` and reinstall that package") in text
    assert "python_fallback" not in text  # the op has no perform(): only a module can run it


GRAPH = textwrap.dedent("""
    import warnings
    import numpy as np
    import opkit, opkit.tensor as ot
    x, y = ot.dvector("x"), ot.dvector("y")
    vtv = opkit.ops.vector_times_vector
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            f = opkit.function([x, y], vtv(vtv(x, y), y) + x)
        print(f(np.full(3, 2.0), np.full(3, 3.0)).tolist(), [str(w.message) for w in caught])
    except opkit.MissingModuleError as exc:
        print(str(exc).splitlines()[0])
""")


def test_a_graph_runs_node_by_node_and_perform_only_where_python_fallback_allows(shipped, tmp_path):
    _, target, _, env = shipped
    strict = target.run("-c", GRAPH, cwd=tmp_path, env=env).stdout.strip()
    assert strict == ("no compiled module for add(VectorTimesVector.out, x) with inputs (TensorType(float64, vector), "
                      "TensorType(float64, vector)), and no C++ compiler to build one")
    fallback = {**env, "OPKIT_FLAGS": env["OPKIT_FLAGS"] + ",python_fallback=true"}
    values, warned = target.run("-c", GRAPH, cwd=tmp_path, env=fallback).stdout.strip().split("] ", 1)
    assert values == "[20.0, 20.0, 20.0"  # (2 * 3) * 3 + 2: two shipped modules, then add's perform
    assert "no C++ compiler and no shipped module for add(" in warned and "VectorTimesVector(" not in warned


def test_doctor_lists_the_ops_that_run_without_a_compiler(shipped, tmp_path):
    _, target, _, env = shipped
    result = target.run("-m", "opkit.cli", "doctor", cwd=tmp_path, env=env, check=False)
    assert ("ok    runs without a compiler  vector_times_vector: (TensorType(float32, vector), TensorType(float32, "
            "vector)); (TensorType(float64, vector), TensorType(float64, vector))") in result.stdout
    assert result.returncode == 1  # the missing compiler is still a problem doctor reports


def test_a_module_built_with_other_flags_is_never_loaded(shipped, tmp_path):
    _, target, _, env = shipped
    code = ("import numpy as np, opkit\n"
            "try:\n"
            "    opkit.ops.vector_times_vector.compute(np.ones(2), np.ones(2))\n"
            "except opkit.CompileError as exc:\n"
            "    print(type(exc).__name__)\n")
    other_flags = {**env, "OPKIT_FLAGS": env["OPKIT_FLAGS"] + ",cflags=-O3"}  # another build: another key
    assert target.run("-c", code, cwd=tmp_path, env=other_flags).stdout.strip() == "MissingModuleError"


def test_the_shipped_key_keeps_the_machine_and_leaves_out_paths_and_the_compiler(monkeypatch, tmp_path):
    import opkit.tensor as ot
    from opkit.cop.store import shipped
    from opkit.cop.generate.codegen import collect_module
    from opkit.cop.generate.region import Region

    def key_of(directory):
        """The key of the example op's node, its package imported from `directory`."""
        copy = shutil.copytree(ROOT / "examples" / "vector_times_vector" / "vector_times_vector",
                               directory / "vector_times_vector", ignore=shutil.ignore_patterns("__pycache__"))
        name = f"vtv_{directory.name}"
        spec = importlib.util.spec_from_file_location(name, copy / "op.py")
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, name, module)
        spec.loader.exec_module(module)
        node = module.VectorTimesVector().make_node(ot.dvector("x"), ot.dvector("y"))
        return shipped.shipped_key(collect_module(Region.from_nodes([node], lambda variable: True)))

    key = key_of(tmp_path / "one")
    assert key_of(tmp_path / "two") == key  # the #line paths of another install place do not count
    with opkit_config(cxx="/nonexistent/c++"):
        assert key_of(tmp_path / "three") == key  # nor the compiler (here: none at all)
    for name, value in (("python_abi", lambda: "cpython-399"), ("numpy_c_api_version", lambda: "0x1"),
                        ("cpu_baseline", lambda: "riscv64 march=rv64gc")):
        with monkeypatch.context() as patch:
            patch.setattr(shipped, name, value)
            assert key_of(tmp_path / name) != key, name


def opkit_config(**flags):
    from opkit.config import config

    return config.change_flags(**flags)


def test_build_into_checks_the_package_directory(shipped, tmp_path):
    builder, _, _, _ = shipped
    result = builder.run("-m", "opkit.cli", "build", "vector_times_vector", "--dtypes", "float64,float64",
                         "--into", str(tmp_path), cwd=tmp_path, check=False)
    assert result.returncode == 2  # a usage error, as argparse's own (tests/cli/test_trust3_cli.py)
    assert (f"opkit build: error: --into {tmp_path}: not the source directory of the package 'vector_times_vector' that "
            "defines vector_times_vector") in result.stderr


def test_shipped_modules_are_built_and_found_for_a_named_baseline_not_this_hosts_cpu():
    import platform

    from opkit.cop.store import shipped

    if platform.machine() not in shipped.DEFAULT_SHIP_MARCH:
        pytest.fail(f"no default shipping baseline for {platform.machine()}: add one to DEFAULT_SHIP_MARCH")
    default = shipped.DEFAULT_SHIP_MARCH[platform.machine()]
    with opkit_config(march="native"):
        assert shipped.ship_march() == default  # -march=native would not run on an older target
        native_flags = shipped.shipping_flags()
    with opkit_config(march=default):
        assert shipped.shipping_flags() == native_flags  # so both settings find the same shipped modules
    with opkit_config(march="x86-64-v3"):
        assert shipped.ship_march() == "x86-64-v3" and "-march=x86-64-v3" in shipped.shipping_flags()[0]
    with opkit_config(march="native", cxx="/nonexistent/c++"):
        assert shipped.shipping_flags() == native_flags  # computed without a compiler


def test_a_cpu_below_the_shipped_baseline_never_loads_it():
    from opkit.cop.store.shipped import cpu_runs

    old = "flags\t\t: fpu sse sse2 cx16 lahf_lm popcnt sse4_1 sse4_2 ssse3\n"
    assert cpu_runs("x86-64-v2", old)
    assert not cpu_runs("x86-64-v3", old)  # no avx2: a v3 module would die of an illegal instruction
    assert not cpu_runs("x86-64-v4", old)
    assert cpu_runs("x86-64", old) and cpu_runs("armv8-a", old)

