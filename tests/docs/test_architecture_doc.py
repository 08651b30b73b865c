"""docs/architecture.md names real things: every file, folder and dotted opkit name it cites exists, and its
picture is the one its .dot source draws (a renamed module must be renamed in the doc too)."""

import importlib
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
FILES = [path.relative_to(ROOT).as_posix() for folder in ("opkit", "docs") for path in (ROOT / folder).rglob("*")
         if "__pycache__" not in path.parts]
# Names under the compile cache (not in the repository): the layout module names every one.
LAYOUT = (ROOT / "opkit" / "cop" / "compiledir" / "layout.py").read_text(encoding="utf-8")
CITED = sorted(set(re.findall(r"`([^`\s]+)`", DOC)))


def _exists(token):
    """A path `a/b.py` or folder `a/` exists when some file or folder of opkit/ or docs/ (or the repository) ends
    with it; a folder of the compile cache, when compiledir/layout.py names it."""
    if token.endswith("/") and token in LAYOUT:
        return True
    token = token.rstrip("/")
    return (ROOT / token).exists() or any(path == token or path.endswith("/" + token) for path in FILES)


@pytest.mark.parametrize("token", [t for t in CITED if re.fullmatch(r"[\w./-]+(\.(py|j2|cpp|c|h|md|dot)|/)", t)])
def test_every_cited_file_or_folder_exists(token):
    assert _exists(token), f"docs/architecture.md cites `{token}`, which is no file or folder of the repository"


def _resolve(dotted):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        return found
    raise ImportError(dotted)


@pytest.mark.parametrize("dotted", [t.rstrip("()") for t in CITED if re.fullmatch(r"opkit(\.\w+)+(\(\))?", t)])
def test_every_cited_dotted_name_imports(dotted):
    assert _resolve(dotted) is not None


def test_the_picture_is_drawn_from_its_source_and_names_every_cop_stage():
    from opkit.cop import STAGES

    source = (ROOT / "docs" / "architecture.dot").read_text(encoding="utf-8")
    picture = (ROOT / "docs" / "architecture.svg").read_text(encoding="utf-8")
    assert "](architecture.svg)" in DOC
    for stage in STAGES:
        assert f"{stage}/" in source and f"{stage}/" in picture, stage
    for label in re.findall(r'label="([^"\\]+)', source):  # every box's first line is in the rendered picture
        assert label.replace("&", "&amp;").replace(">", "&gt;") in picture, label
