"""Issue 45.3: a broken plugin's "fix: correct the error at ..." names the user's file and line, never opkit's own
source (tests/cli/test_first_hour.py types the whole story: a misspelt tag, the import, `opkit doctor`)."""

import importlib
import sys

import pytest

from opkit.plugins.manager import raise_location

OP = """import opkit


class Checked(opkit.COp):
    def __init__(self, name):
        super().__init__(name)  # line 6: where the op names its .c file
"""


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A package `fixloc_pkg` on sys.path with an op whose C file is given by name."""
    root = tmp_path / "fixloc_pkg"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "op.py").write_text(OP)
    (root / "tagged.c").write_text("#section support_code\nint ok;\n#section cdoe\nint x;\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    for name in [m for m in sys.modules if m.split(".")[0] == "fixloc_pkg"]:
        del sys.modules[name]


def _raised(package, name):
    op = importlib.import_module("fixloc_pkg.op")
    with pytest.raises(Exception) as info:
        op.Checked(name)
    return info.value


def test_a_misspelt_tag_is_fixed_at_its_line_in_the_c_file(package):
    exc = _raised(package, "tagged.c")
    assert type(exc).__name__ == "SectionError" and "unknown section tag 'cdoe'" in str(exc)
    assert raise_location(exc, "fixloc_pkg") == f"{package / 'tagged.c'}:3"


def test_a_missing_c_file_is_fixed_where_the_op_names_it(package):
    """The file has no line to point at: the fix is the op's line that names it, not opkit's reader."""
    exc = _raised(package, "missing.c")
    assert "cannot read C section file" in str(exc)
    assert raise_location(exc, "fixloc_pkg") == f"{package / 'op.py'}:6"


def test_an_error_raised_inside_opkit_is_placed_at_the_callers_line(package):
    """An op refused inside opkit (here the COp constructor on a non-string) is the package's own line."""
    exc = _raised(package, 42)
    where = raise_location(exc, "fixloc_pkg")
    assert where == f"{package / 'op.py'}:6", (type(exc), exc, where)
    assert "/opkit/" not in where
