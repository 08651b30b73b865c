"""Tests for the `#section` parser, a COp's version (its files and the headers they include) and `#line`."""

import os
import shutil
import textwrap
from pathlib import Path

import pytest

import opkit
from opkit.cop.source.sections import (
    TAGS,
    Section,
    line_directive,
    parse_file,
    parse_files,
)
from opkit.errors import SectionError

DATA = Path(__file__).parents[1] / "data" / "sections"


def write(directory: Path, name: str, text: str) -> Path:
    """Write dedented C text to directory/name and return the path."""
    path = directory / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def raises_section_error(path: Path, line, *, match: str, func_name=None) -> SectionError:
    """Parse `path`, expect a SectionError at `line` matching `match`, and return it."""
    with pytest.raises(SectionError, match=match) as excinfo:
        parse_files([path], func_name=func_name)
    error = excinfo.value
    assert error.path == os.path.abspath(path)
    assert error.line == line
    where = f"{os.path.abspath(path)}:{line}: " if line else f"{os.path.abspath(path)}: "
    assert str(error).startswith(where)
    return error


def test_tags_are_the_nine_tutorial_tags_and_kernels():
    assert set(TAGS) == {
        "init_code", "init_code_apply", "init_code_struct", "support_code",
        "support_code_apply", "support_code_struct", "cleanup_code_struct", "code",
        "code_cleanup", "kernels",
    }


def test_tutorial_file_parses_into_its_two_sections():
    path = DATA / "vectorTimesVector.c"
    sections = parse_file(path)
    assert [(s.tag, s.line) for s in sections] == [("support_code", 2), ("support_code_apply", 8)]
    assert all(s.path == str(path.absolute()) for s in sections)
    lines = path.read_text().splitlines(keepends=True)
    assert sections[0].text == "".join(lines[1:6])
    assert sections[1].text == "".join(lines[7:])
    assert sections[1].text.startswith("// Apply-specific support function\n")


def test_markers_tolerate_whitespace_and_comments_before_the_first_section(tmp_path):
    path = write(tmp_path, "op.c", """
        // A license header is fine,

        /* and so is a block comment
           spanning "lines" with don't */
          #  section   init_code  \t
        int a;
        #section code // with a trailing comment
        b = 1;
    """)
    sections = parse_file(path)
    assert [(s.tag, s.line, s.text) for s in sections] == [
        ("init_code", 6, "int a;\n"), ("code", 8, "b = 1;\n")]


def test_missing_file_names_the_path_tried(tmp_path):
    error = raises_section_error(tmp_path / "nope.c", None, match="cannot read")
    assert str(tmp_path / "nope.c") in str(error)


def test_unknown_tag_names_closest_match_and_valid_tags(tmp_path):
    path = write(tmp_path, "op.c", """
        #section support_code
        int a;

        #section suport_code
        int b;
    """)
    error = raises_section_error(path, 4, match="did you mean 'support_code'")
    assert error.tag == "suport_code"
    assert "unknown section tag 'suport_code'" in str(error)
    assert "valid tags: " + ", ".join(TAGS) in str(error)


def test_unknown_tag_without_close_match_lists_valid_tags(tmp_path):
    path = write(tmp_path, "op.c", "#section banana\n")
    error = raises_section_error(path, 1, match="unknown section tag 'banana'; valid tags")
    assert "did you mean" not in str(error)


def test_stray_code_before_first_section(tmp_path):
    path = write(tmp_path, "op.c", """
        // comment

        /* block */ int stray;
        #section code
    """)
    raises_section_error(path, 3, match="code before the first '#section' line: '/.*int stray;'")


@pytest.mark.parametrize("text, line, match", [
    ('// c\n"text"\n#section code\n', 2, "code before the first '#section' line: '\"text\"'"),
    ("int a;\nint b;\n", 1, "no '#section <tag>' line"),
    ("", 1, "no '#section <tag>' line"),
    ("#section code\nx = 1;\n#section   \ny = 2;\n", 3, "'#section' without a tag"),
    ("#section code extra\n", 1, "expected one tag after '#section', got 'code extra'"),
], ids=["string-literal", "no-sections", "empty", "no-tag", "two-words"])
def test_malformed_files(tmp_path, text, line, match):
    path = tmp_path / "op.c"
    path.write_text(text)
    raises_section_error(path, line, match=match)


def test_non_utf8_file_names_the_line(tmp_path):
    path = tmp_path / "op.c"
    path.write_bytes(b"#section code\n\n\xff\n")
    raises_section_error(path, 3, match="not UTF-8")


def test_code_section_with_func_name_names_the_code_section(tmp_path):
    first = write(tmp_path, "a.c", "#section support_code\nint a;\n")
    second = write(tmp_path, "b.c", "#section support_code_apply\nint b;\n\n#section code\nx;\n")
    with pytest.raises(SectionError, match="cannot be combined with func_name") as excinfo:
        parse_files([first, second], func_name="APPLY_SPECIFIC(f)")
    assert (excinfo.value.path, excinfo.value.line) == (str(second), 4)
    assert excinfo.value.tag == "code"
    assert parse_files([first, second])["code"][0].line == 5


def test_repeated_tags_merge_in_order_across_files(tmp_path):
    first = write(tmp_path, "a.c", """
        #section support_code
        int a1;
        #section code
        c1;
        #section support_code
        int a2;
    """)
    second = write(tmp_path, "b.c", "#section support_code\nint b1;\n")
    merged = parse_files([first, second])
    assert list(merged) == ["support_code", "code"]
    assert [(Path(s.path).name, s.line, s.text) for s in merged["support_code"]] == [
        ("a.c", 2, "int a1;\n"), ("a.c", 6, "int a2;\n"), ("b.c", 2, "int b1;\n")]


def test_parse_files_accepts_a_single_path():
    assert list(parse_files(DATA / "vectorTimesVector.c")) == ["support_code", "support_code_apply"]


def test_crlf_and_final_line_without_newline(tmp_path):
    path = tmp_path / "op.c"
    path.write_bytes(b"#section code\r\nx = 1;\r\ny = 2;")
    (section,) = parse_file(path)
    assert (section.line, section.text) == (2, "x = 1;\ny = 2;")


class FileOp(opkit.COp):
    """A COp over one file, for its version."""

    def make_node(self, x):
        return opkit.Apply(self, [x], [x.type()])


def test_a_cops_headers_are_found_recursively_without_cycles():
    """As the compiler finds them (opkit.cop.source.headers): "x.h" beside the including file, then in the op's
    folders (op.c's, where sub/nested.h finds common.h); a header including itself is read once; <math.h> and
    a missing header are not the op's."""
    found = FileOp(DATA / "include" / "op.c").version_headers()
    root = DATA / "include"
    assert sorted(found) == sorted(os.path.realpath(p) for p in (
        root / "helpers.h", root / "sub" / "nested.h", root / "common.h", root / "op_apply.h"))


def test_a_cops_version_follows_its_file_and_nested_headers(tmp_path):
    root = tmp_path / "op"
    shutil.copytree(DATA / "include", root)
    version = FileOp(root / "op.c").c_code_cache_version()
    assert version == FileOp(root / "op.c").c_code_cache_version()
    (root / "common.h").write_text("static const int common_value = 3;\n")
    changed = FileOp(root / "op.c").c_code_cache_version()
    assert changed != version
    (root / "op.c").write_text((root / "op.c").read_text() + "\n")
    assert FileOp(root / "op.c").c_code_cache_version() != changed


def test_the_version_of_a_cop_whose_file_is_gone_raises(tmp_path):
    path = tmp_path / "op.c"
    path.write_text("#section code\n// nothing\n")
    op = FileOp(path)
    path.unlink()
    with pytest.raises(SectionError, match="cannot read"):
        op.c_code_cache_version()


def test_line_directive_escapes_the_path():
    section = Section("code", 'C:\\ops\\my "op".c', 7, "x;\n")
    assert line_directive(section) == '#line 7 "C:\\\\ops\\\\my \\"op\\".c"'
    assert line_directive(Section("code", "/a/b.c", 2, "")) == '#line 2 "/a/b.c"'
