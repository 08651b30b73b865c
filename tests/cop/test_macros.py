"""Tests for the `#section` macros: each builder alone, the per-tag table, and wrapping."""

import re
import shutil
import subprocess
import sysconfig
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from opkit.cop.source.macros import (
    apply_specific,
    context_macro,
    defined_macros,
    dtype_info,
    dtype_macros,
    fail_macro,
    io_name_macros,
    macro_family,
    params_macro,
    section_macros,
    wrap_section,
)
from opkit.cop.source.sections import TAGS, Section, parse_file

DATA = Path(__file__).parents[1] / "data" / "sections"
FAIL_CODE = "{\n    __failure = 3;\n    goto __label_3;\n}"
ALL_ARGS = dict(name="node_7", input_dtypes=["float64", None], output_dtypes=["int16"],
                input_names=["V1", "V3"], output_names=["V5"], fail=FAIL_CODE,
                params="params_7", context="ctx_7")
COMPILE_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                  "uint64", "float16", "float32", "float64", "complex64", "complex128"]


def defined_names(define: str, undef: str) -> tuple[Counter, Counter]:
    """Return the macro names defined and undefined, with multiplicity."""
    defined = Counter(re.findall(r"^#define (\w+)", define, re.M))
    undefined = Counter(re.findall(r"^#undef (\w+)$", undef, re.M))
    return defined, undefined


def test_apply_specific():
    assert apply_specific("node_3f2") == (
        "#define APPLY_SPECIFIC(str) str##_node_3f2\n", "#undef APPLY_SPECIFIC\n")
    with pytest.raises(ValueError, match="letters, digits and underscores"):
        apply_specific("node-1")


@pytest.mark.parametrize("dtype, expected", [
    ("float64", ("npy_float64", "NPY_FLOAT64", 8)),
    ("float32", ("npy_float32", "NPY_FLOAT32", 4)),
    ("float16", ("npy_float16", "NPY_FLOAT16", 2)),
    ("int16", ("npy_int16", "NPY_INT16", 2)),
    ("uint8", ("npy_uint8", "NPY_UINT8", 1)),
    ("complex128", ("npy_complex128", "NPY_COMPLEX128", 16)),
    ("bool", ("npy_bool", "NPY_BOOL", 1)),
    (np.dtype("int64"), ("npy_int64", "NPY_INT64", 8)),
])
def test_dtype_info(dtype, expected):
    assert dtype_info(dtype) == expected


@pytest.mark.parametrize("dtype", ["float8", "int128", "object", "float", "complex32", ""])
def test_dtype_info_rejects_unknown_dtypes(dtype):
    with pytest.raises(ValueError, match="unsupported dtype"):
        dtype_info(dtype)


def test_dtype_macros_skip_variables_without_dtype():
    define, undef = dtype_macros(["float64", None, "bool"], ["int16"])
    assert define == (
        "#define DTYPE_INPUT_0 npy_float64\n#define TYPENUM_INPUT_0 NPY_FLOAT64\n"
        "#define ITEMSIZE_INPUT_0 8\n"
        "#define DTYPE_INPUT_2 npy_bool\n#define TYPENUM_INPUT_2 NPY_BOOL\n"
        "#define ITEMSIZE_INPUT_2 1\n"
        "#define DTYPE_OUTPUT_0 npy_int16\n#define TYPENUM_OUTPUT_0 NPY_INT16\n"
        "#define ITEMSIZE_OUTPUT_0 2\n")
    assert undef.splitlines()[0] == "#undef ITEMSIZE_OUTPUT_0"
    defined, undefined = defined_names(define, undef)
    assert defined == undefined and len(defined) == 9


def test_io_name_macros():
    assert io_name_macros(["V1", "V3"], ["V5"]) == (
        "#define INPUT_0 V1\n#define INPUT_1 V3\n#define OUTPUT_0 V5\n",
        "#undef OUTPUT_0\n#undef INPUT_1\n#undef INPUT_0\n")


def test_fail_macro_is_one_braced_statement():
    assert fail_macro("goto fail;") == ("#define FAIL { goto fail; }\n", "#undef FAIL\n")


def test_fail_macro_continues_multi_line_code():
    define, undef = fail_macro(FAIL_CODE)
    assert define == ("#define FAIL { { \\\n    __failure = 3; \\\n    goto __label_3; \\\n"
                      "} }\n")
    assert all(line.endswith(" \\") for line in define.splitlines()[:-1])
    assert undef == "#undef FAIL\n"
    with pytest.raises(ValueError, match="empty"):
        fail_macro("  \n")


def test_params_and_context_macros():
    assert params_macro("p") == ("#define PARAMS p\n", "#undef PARAMS\n")
    assert context_macro("c") == ("#define CONTEXT c\n", "#undef CONTEXT\n")


EXPECTED_FAMILIES = {
    "init_code": set(),
    "support_code": set(),
    "init_code_apply": {"APPLY_SPECIFIC", "DTYPE", "PARAMS", "CONTEXT"},
    "support_code_apply": {"APPLY_SPECIFIC", "DTYPE", "PARAMS", "CONTEXT"},
    "support_code_struct": {"APPLY_SPECIFIC", "DTYPE", "PARAMS", "CONTEXT"},
    "cleanup_code_struct": {"APPLY_SPECIFIC", "DTYPE", "PARAMS", "CONTEXT"},
    "init_code_struct": {"APPLY_SPECIFIC", "DTYPE", "PARAMS", "CONTEXT", "FAIL"},
    "code": {"APPLY_SPECIFIC", "DTYPE", "PARAMS", "CONTEXT", "FAIL", "IO_NAMES"},
    "code_cleanup": {"APPLY_SPECIFIC", "DTYPE", "PARAMS", "CONTEXT", "FAIL", "IO_NAMES"},
    "kernels": {"APPLY_SPECIFIC", "DTYPE"},  # device code: no FAIL, no host variables, no PARAMS
}


@pytest.mark.parametrize("tag", TAGS)
def test_section_macros_follow_the_table_and_balance(tag):
    define, undef = section_macros(tag, **ALL_ARGS)
    defined, undefined = defined_names(define, undef)
    assert defined == undefined
    assert all(count == 1 for count in defined.values())
    assert {macro_family(name) for name in defined} == EXPECTED_FAMILIES[tag]
    assert defined_macros(tag) == EXPECTED_FAMILIES[tag]
    if EXPECTED_FAMILIES[tag]:
        assert "DTYPE_INPUT_0" in defined and "DTYPE_INPUT_1" not in defined
        assert "DTYPE_OUTPUT_0" in defined
    else:
        assert (define, undef) == ("", "")


@pytest.mark.parametrize("tag", TAGS)
def test_section_macros_without_check_input_or_optional_values(tag):
    args = dict(ALL_ARGS, check_input=False, params=None, context=None)
    define, undef = section_macros(tag, **args)
    defined, undefined = defined_names(define, undef)
    assert defined == undefined
    families = {macro_family(name) for name in defined}
    assert families == EXPECTED_FAMILIES[tag] - {"DTYPE", "PARAMS", "CONTEXT"}


@pytest.mark.parametrize("tag, missing", [
    ("code", "fail"), ("init_code_struct", "fail"), ("code_cleanup", "input_names"),
    ("code", "output_names")])
def test_section_macros_require_what_the_tag_defines(tag, missing):
    with pytest.raises(ValueError, match=f"needs {missing}="):
        section_macros(tag, **dict(ALL_ARGS, **{missing: None}))


def test_section_macros_reject_unknown_tags():
    with pytest.raises(ValueError, match="unknown section tag 'cod'"):
        section_macros("cod", **ALL_ARGS)


def test_macro_family():
    assert macro_family("ITEMSIZE_OUTPUT_12") == "DTYPE"
    assert macro_family("OUTPUT_0") == "IO_NAMES"
    assert macro_family("INPUT_X") is None
    assert macro_family("FAILURE") is None


def test_wrap_section():
    section = Section("code", "/ops/op.c", 12, "x = 1;")
    wrapped = wrap_section(section, *params_macro("p"))
    assert wrapped == '#define PARAMS p\n#line 12 "/ops/op.c"\nx = 1;\n#undef PARAMS\n'
    assert wrap_section(section, "", "") == '#line 12 "/ops/op.c"\nx = 1;\n'


def _compile_unit(dtypes: list) -> str:
    """Return a C++ unit wrapping the tutorial's sections, with checks of each dtype macro."""
    sections = parse_file(DATA / "vectorTimesVector.c")
    parts = ["#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION",
             "#include <Python.h>", "#include <numpy/arrayobject.h>"]
    for section in sections:
        parts.append(wrap_section(section, *section_macros(
            section.tag, name="node_1", input_dtypes=["float32", "float64"],
            output_dtypes=["float64"])))
    define, undef = dtype_macros(dtypes, [])
    parts.append(define)
    for i, dtype in enumerate(dtypes):
        parts.append(f"static_assert(TYPENUM_INPUT_{i} == {np.dtype(dtype).num}, \"{dtype}\");")
        parts.append(f"static_assert(sizeof(DTYPE_INPUT_{i}) == ITEMSIZE_INPUT_{i}, \"{dtype}\");")
    parts.append(undef)
    parts.append("#ifdef APPLY_SPECIFIC\n#error APPLY_SPECIFIC leaked\n#endif")
    return "\n".join(parts)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_wrapped_tutorial_and_dtype_macros_compile(tmp_path):
    source = tmp_path / "unit.cpp"
    source.write_text(_compile_unit(COMPILE_DTYPES))
    command = ["g++", "-fsyntax-only", "-I", sysconfig.get_paths()["include"],
               "-I", np.get_include(), str(source)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    broken = source.read_text().replace("x_ptr[i * x_str] *", "x_ptr[i * x_str] * undeclared *")
    source.write_text(broken)
    result = subprocess.run(command, capture_output=True, text=True)
    assert f"{DATA / 'vectorTimesVector.c'}:15:" in result.stderr
