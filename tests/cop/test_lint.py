"""Tests for `opkit check`'s section lint: every problem kind, with its line."""

import os
import textwrap
from pathlib import Path

import pytest

from opkit.cop.source.lint import Diagnostic, check_file, check_files

DATA = Path(__file__).parents[1] / "data" / "sections"


def lint_text(tmp_path: Path, text: str) -> list[tuple[int, str, str]]:
    """Lint dedented C text and return (line, severity, message) triples."""
    path = tmp_path / "op.c"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return [(d.line, d.severity, d.message) for d in check_file(path)]


def test_clean_tutorial_file_has_no_diagnostics():
    assert check_files([DATA / "vectorTimesVector.c"]) == []


def test_every_problem_kind_is_reported_with_its_line():
    path = DATA / "lint_problems.c"
    found = [(d.line, d.severity, d.message.split("; ")[0]) for d in check_files([path])]
    assert found == [
        (2, "error", "code before the first '#section' line: 'int stray_global = 0;'"),
        (4, "error", "unknown section tag 'suport_code'"),
        (9, "error", "APPLY_SPECIFIC is not defined in '#section support_code'"),
        (9, "error", "DTYPE_INPUT_0 is not defined in '#section support_code'"),
        (14, "error", "FAIL is not defined in '#section support_code_apply'"),
        (15, "error", "INPUT_0 is not defined in '#section support_code_apply'"),
        (20, "error", "'return' in a code section skips the generated cleanup"),
        (23, "error", "'#section' without a tag"),
        (24, "warning", "'#section code_cleanup' is empty"),
    ]
    diagnostics = check_file(path)
    assert all(d.path == str(path.absolute()) for d in diagnostics)
    assert "did you mean 'support_code'?" in diagnostics[1].message
    assert "defined only in init_code_struct, code, code_cleanup" in diagnostics[4].message


def test_file_without_sections(tmp_path):
    assert lint_text(tmp_path, "int x;\n") == [
        (1, "error", "no '#section <tag>' line in the file; start the C code with one, "
                     "e.g. '#section support_code'")]


def test_unreadable_file_is_a_diagnostic(tmp_path):
    (diagnostic,) = check_files([tmp_path / "missing.c"])
    assert diagnostic.line is None and diagnostic.severity == "error"
    assert str(diagnostic).startswith(f"{tmp_path / 'missing.c'}: error: cannot read")


def test_comments_strings_and_preprocessor_tests_are_not_uses(tmp_path):
    assert lint_text(tmp_path, """
        #section support_code
        // FAIL, APPLY_SPECIFIC(x) and INPUT_0 in comments
        /* return DTYPE_OUTPUT_0;
           PARAMS */
        const char* s = "FAIL INPUT_0 'x'";
        char c = 'F';
        #ifdef APPLY_SPECIFIC
        #endif
        #if defined(PARAMS) || defined CONTEXT
        #endif
        #section code
        // return is fine in a comment
        const char* msg = "return";
        int my_return = 0;
    """) == []


def test_user_defined_macros_are_not_flagged(tmp_path):
    assert lint_text(tmp_path, """
        #section support_code
        #define FAIL return -1
        int f(int x) { if (x) FAIL; return 0; }
    """) == []


@pytest.mark.parametrize("tag, name, ok", [
    ("support_code", "TYPENUM_OUTPUT_1", False),
    ("init_code", "PARAMS", False),
    ("support_code_apply", "PARAMS", True),
    ("support_code_struct", "OUTPUT_0", False),
    ("init_code_struct", "FAIL", True),
    ("init_code_struct", "INPUT_0", False),
    ("code_cleanup", "OUTPUT_0", True),
    ("cleanup_code_struct", "FAIL", False),
    ("code_cleanup", "return", True),
])
def test_macros_per_tag(tmp_path, tag, name, ok):
    found = lint_text(tmp_path, f"#section {tag}\n\nx = {name};\n")
    assert found == ([] if ok else [(3, "error", found[0][2])])
    if not ok:
        assert found[0][2].startswith(f"{name} is not defined in '#section {tag}'")


def test_each_name_reported_once_per_line(tmp_path):
    found = lint_text(tmp_path, "#section code\nreturn a ? 1 : ({ return 2; });\nreturn;\n")
    assert [line for line, _, _ in found] == [2, 3]


def test_diagnostic_str():
    diagnostic = Diagnostic("/a/op.c", 3, "warning", "something")
    assert str(diagnostic) == "/a/op.c:3: warning: something"


def test_check_files_keeps_file_order(tmp_path):
    good = DATA / "vectorTimesVector.c"
    bad = tmp_path / "bad.c"
    bad.write_text("#section code\nreturn 1;\n")
    other = tmp_path / "other.c"
    other.write_text("#section cod\n")
    found = check_files([other, good, bad])
    assert [(os.path.basename(d.path), d.line) for d in found] == [("other.c", 1), ("bad.c", 2)]
