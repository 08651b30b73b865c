"""The builder, loader and compiler finder, with real compiles."""

import os
import subprocess
import sys
import sysconfig

import pytest

from opkit.config import config
from opkit.cop.toolchain.extension import MAX_ERRORS, build_extension, build_flags
from opkit.cop.toolchain.compiler import Compiler, describe_toolchain, find_compiler, python_include_dirs
from opkit.cop.load.loader import load_module
from opkit.errors import CompileError


def test_build_and_load_a_tiny_module(tmp_path, tiny_source, capfd):
    path = build_extension(tiny_source("tiny_a"), "tiny_a", tmp_path)
    assert path == tmp_path / f"tiny_a{sysconfig.get_config_var('EXT_SUFFIX')}"
    module = load_module(path, "tiny_a")
    assert module.add(2, 3) == 5
    assert (tmp_path / "tiny_a.cpp").read_text() == tiny_source("tiny_a")
    assert not list(tmp_path.glob("*.o"))
    assert capfd.readouterr() == ("", "")


def test_two_versions_live_in_one_process(tmp_path, tiny_source):
    one = load_module(build_extension(tiny_source("tiny_v1"), "tiny_v1", tmp_path), "tiny_v1")
    two = load_module(build_extension(tiny_source("tiny_v2", offset=100), "tiny_v2", tmp_path), "tiny_v2")
    assert (one.add(1, 1), two.add(1, 1)) == (2, 102)


def test_syntax_error_names_the_user_file_first(tmp_path, tiny_source, capfd):
    user_errors = "".join(f"int oops{i}() {{ return {i} }}\n" for i in range(10))
    broken = "int generated_bad = ;\n" + f'#line 41 "my_op.c"\n{user_errors}' + tiny_source("broken")
    with pytest.raises(CompileError) as info:
        build_extension(broken, "broken", tmp_path)
    error, cpp = info.value, tmp_path / "broken.cpp"
    assert error.errors[0].startswith("my_op.c:41:")
    assert len(error.errors) == MAX_ERRORS
    assert error.returncode not in (0, None)
    assert error.command[0] == find_compiler().command[0] and "-c" in error.command
    assert error.source_path == str(cpp) and cpp.read_text() == broken
    lines = str(error).splitlines()
    assert "'broken'" in lines[0]
    assert lines[1].startswith("my_op.c:41:")
    assert f"full source kept at {cpp}" in lines
    assert len(lines) == MAX_ERRORS + 3
    assert "In function" in error.output and "In function" not in str(error)
    assert (tmp_path / "broken.log").read_text().endswith(error.output)
    assert capfd.readouterr() == ("", "")


def test_cflags_reach_the_compiler(tmp_path, tiny_source):
    with config.change_flags(cflags="-DTINY_OFFSET=7 -Wno-unused"):
        path = build_extension(tiny_source("tiny_flags"), "tiny_flags", tmp_path)
    assert load_module(path, "tiny_flags").add(1, 1) == 9


def test_build_flags():
    compile_args, link_args = build_flags()
    assert {"-O2", "-std=c++17", "-fPIC", "-DNPY_NO_DEPRECATED_API=NPY_1_7_API_VERSION"} <= set(compile_args)
    assert "-g" not in compile_args
    with config.change_flags(sanitize="address", cflags="-DX=1"):
        compile_args, link_args = build_flags()
    assert {"-fsanitize=address", "-fno-omit-frame-pointer", "-DX=1"} <= set(compile_args)
    assert "-fsanitize=address" in link_args


def test_find_compiler_is_memoised_and_identified():
    compiler = find_compiler()
    assert isinstance(compiler, Compiler) and find_compiler() is compiler
    assert compiler.identity.startswith(os.path.realpath(compiler.command[0]))
    with pytest.raises(AttributeError):
        compiler.command = ("cc",)


def test_config_cxx_is_honoured():
    with config.change_flags(cxx="c++ -w"):
        compiler = find_compiler()
    assert compiler.command[0].endswith("c++") and compiler.command[1:] == ("-w",)


def test_missing_compiler_says_how_to_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(CompileError) as info:
        find_compiler()
    message = str(info.value)
    for needed in ("g++", "apt-get install g++", "OPKIT_FLAGS=cxx=", "opkit doctor",
                   "OPKIT_FLAGS=python_fallback=true"):
        assert needed in message
    with config.change_flags(cxx="no-such-c++"), pytest.raises(CompileError, match="'no-such-c\\+\\+'"):
        find_compiler()


def test_describe_toolchain_for_doctor():
    checks = describe_toolchain()
    assert [name for name, _, _ in checks] == ["C++ compiler", "Python headers", "numpy headers"]
    assert all(ok for _, ok, _ in checks), checks
    assert any(path.endswith("include") for path in python_include_dirs())


def test_importing_the_pipeline_imports_neither_setuptools_nor_numpy():
    code = ("import sys, opkit.cop.toolchain.extension, opkit.cop.store.cache, opkit.cop.load.loader, opkit.cop.toolchain.compiler;"
            "print(sorted(m for m in ('setuptools', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
