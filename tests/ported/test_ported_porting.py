"""The corpus is what PORTING.md says: upstream's files, changed only on the lines it lists."""

import pathlib
import re

import pytest

from ported import porting

SECTIONS = porting.parse()
HERE = pathlib.Path(porting.__file__).parent


def test_porting_md_lists_ported_files():
    assert SECTIONS, "PORTING.md lists no ported file"
    for name, section in SECTIONS.items():
        assert (HERE / name).is_file(), name
        assert section.kept, f"{name}: no 'kept:' line ranges"
        assert section.changes, f"{name}: no changed line (an unported file does not belong in the corpus)"


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_the_ported_file_is_its_original_with_the_listed_changes_only(name):
    section = SECTIONS[name]
    text, _ = porting.build_with_origins(section)
    assert (HERE / name).read_text(encoding="utf-8") == text, (
        f"{name} differs from its original with PORTING.md's changes: run python tests/ported/porting.py")


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_each_change_is_an_import_line_or_a_documented_difference(name):
    section = SECTIONS[name]
    text, origins = porting.build_with_origins(section)
    original_imports = porting.import_lines((HERE / section.original).read_text(encoding="utf-8"))
    ported_imports = porting.import_lines(text)
    for change in section.changes:
        assert change.kind in ("import", "difference"), change
        if change.kind == "difference":
            assert change.reason, f"{name} line {change.line}: a difference needs its reason"
            continue
        assert change.line in original_imports, f"{name} line {change.line} is not an import line: {change}"
    for number, change in origins.items():
        if change.kind == "import":
            assert number in ported_imports, f"{name}: ported line {number} is not an import: {change.ported!r}"


def _vendored_files():
    files = [(HERE / s.original, s.blob) for s in SECTIONS.values()]
    text = porting.PORTING_MD.read_text(encoding="utf-8")
    for line in text.splitlines():  # C files the ops read at run time: "- vendored: `path`, blob `sha`"
        if line.startswith("- vendored: `"):
            path, blob = line.split("`")[1], re.search(r"blob `([0-9a-f]{40})`", line).group(1)
            files.append((HERE / path, blob))
    return files


@pytest.mark.parametrize("path, blob", _vendored_files(), ids=lambda v: v.name if hasattr(v, "name") else v[:8])
def test_vendored_files_are_upstreams_bytes(path, blob):
    assert porting.git_blob_sha1(path.read_bytes()) == blob, f"{path} is not upstream's blob {blob}"


def test_licences_are_vendored():
    for tree in ("theano", "pytensor"):
        text = (HERE / tree / "LICENSE.txt").read_text(encoding="utf-8")
        assert "Redistribution and use in source and binary forms" in text


def test_a_change_to_a_line_that_is_not_an_import_is_caught(tmp_path):
    section = next(iter(SECTIONS.values()))
    original = (HERE / section.original).read_text(encoding="utf-8").splitlines()
    numbers = porting.import_lines("\n".join(original))
    first, last = section.kept[-1]
    line = next(n for n in range(last, first - 1, -1) if n not in numbers and original[n - 1].strip())
    forged = porting.Change(line, "import", original[line - 1], "x = 1", "")
    assert line not in numbers
    section = porting.Section(section.ported, section.original, section.blob, section.kept, [forged])
    text, origins = porting.build_with_origins(section)
    assert origins and all(n not in porting.import_lines(text) for n in origins)


def test_parse_reads_a_section():
    sections = porting.parse("## a/b.py\n\n- original: `a/original/b.py` (X, blob `" + "0" * 40 + "`)\n"
                             "- kept: lines 1-3, 7-9 (excerpt: class C)\n\n| line | kind | original | ported | reason |\n"
                             "|---|---|---|---|---|\n| 2 | import | `import theano` | `import opkit` | |\n")
    section = sections["a/b.py"]
    assert section.kept == [(1, 3), (7, 9)]
    assert section.changes == [porting.Change(2, "import", "import theano", "import opkit", "")]


def test_every_vendored_file_is_listed():
    listed = {s.original for s in SECTIONS.values()} | {str(p.relative_to(HERE)) for p, _ in _vendored_files()}
    on_disk = {str(p.relative_to(HERE)) for tree in ("theano", "pytensor") for sub in ("original", "c_code")
               for p in (HERE / tree / sub).glob("*") if p.is_file()}
    assert on_disk <= listed, sorted(on_disk - listed)
