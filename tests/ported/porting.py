"""The corpus's bookkeeping: PORTING.md says how each ported file is made from its vendored original.

Each ported file has a section in PORTING.md::

    ## theano/neighbours.py

    - original: `theano/original/neighbours.py` (Theano `theano/tensor/nnet/neighbours.py`, blob `<sha1>`)
    - kept: lines 1-803

    | line | kind | original | ported | reason |
    |---|---|---|---|---|
    | 9 | import | `import theano` | `import opkit.compat.theano as theano` | |

`build(section)` rebuilds the ported file from the original: the kept line ranges (a whole file or an
excerpt cut at whole classes and functions), each listed line replaced. tests/ported/test_ported_porting.py
checks that the committed port is exactly that, that every changed line is an import line unless its
kind is `difference` with a reason, and that each original is byte for byte the upstream blob.

Run `python tests/ported/porting.py` to (re)write the ported files after editing PORTING.md.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pathlib
import re

HERE = pathlib.Path(__file__).parent
PORTING_MD = HERE / "PORTING.md"


@dataclasses.dataclass
class Change:
    line: int
    kind: str  # "import" or "difference"
    original: str
    ported: str
    reason: str


@dataclasses.dataclass
class Section:
    ported: str  # path relative to tests/ported
    original: str
    blob: str
    kept: list  # [(first, last)], 1-based, inclusive
    changes: list


def git_blob_sha1(data: bytes) -> str:
    """The id git gives a file's bytes (`git hash-object`): checks a vendored file without the upstream tree."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _cell(text):
    text = text.strip()
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == "`" else text


def parse(text=None):
    """Return {ported path: Section} from PORTING.md."""
    text = PORTING_MD.read_text(encoding="utf-8") if text is None else text
    sections, current = {}, None
    for raw in text.splitlines():
        if raw.startswith("## "):  # a ported file's section, or prose (its tables are not changes)
            current = Section(raw[3:].strip(), "", "", [], []) if raw.strip().endswith((".py", ".c")) else None
            if current is not None:
                sections[current.ported] = current
        elif current is None:
            continue
        elif raw.startswith("- original:"):
            found = re.match(r"- original: `([^`]+)`.*blob `([0-9a-f]{40})`", raw)
            if not found:
                raise ValueError(f"PORTING.md: cannot read {raw!r}")
            current.original, current.blob = found.groups()
        elif raw.startswith("- kept:"):
            spec = raw[len("- kept:"):].split("(")[0]
            current.kept = [(int(a), int(b)) for a, b in re.findall(r"(\d+)-(\d+)", spec)]
        elif raw.startswith("| ") and not raw.startswith(("| line", "|---")):
            cells = raw.strip().strip("|").split(" | ")
            if len(cells) != 5:
                raise ValueError(f"PORTING.md: a change row needs 5 cells: {raw!r}")
            line, kind, original, ported, reason = (_cell(c) for c in cells)
            current.changes.append(Change(int(line), kind, original, ported, reason))
    return sections


def build(section: Section) -> str:
    """Return the text of the ported file: the kept lines of the original, each listed change applied."""
    return build_with_origins(section)[0]


def build_with_origins(section: Section):
    """Return (text of the ported file, {ported line number: the Change that made it})."""
    lines = (HERE / section.original).read_text(encoding="utf-8").splitlines()
    changes = {c.line: c for c in section.changes}
    out, origins = [], {}
    for first, last in section.kept:
        for number in range(first, last + 1):
            line = lines[number - 1]
            change = changes.pop(number, None)
            if change is not None:
                if line != change.original:
                    raise ValueError(f"{section.ported}: line {number} of {section.original} is {line!r}, "
                                     f"PORTING.md says {change.original!r}")
                for new in change.ported.split("\\n") if change.ported != "(deleted)" else []:
                    out.append(new)
                    origins[len(out)] = change
            else:
                out.append(line)
    if changes:
        raise ValueError(f"{section.ported}: changes to lines outside the kept ranges: {sorted(changes)}")
    return "\n".join(out) + "\n", origins


def import_lines(text):
    """Return the numbers of the lines that belong to import statements (at any depth) of Python source text."""
    import ast

    numbers = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            numbers.update(range(node.lineno, node.end_lineno + 1))
    return numbers


def main():
    for section in parse().values():
        (HERE / section.ported).write_text(build(section), encoding="utf-8")
        print("wrote", section.ported)


if __name__ == "__main__":
    main()
