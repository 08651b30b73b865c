"""Split C files into `#section <tag>` sections.

One line scanner (`scan_text`) serves both `parse_file`, which raises on the
first problem, and the `opkit check` lint, which reports every problem.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from opkit.errors import SectionError

TAGS = (
    "init_code",
    "init_code_apply",
    "init_code_struct",
    "support_code",
    "support_code_apply",
    "support_code_struct",
    "cleanup_code_struct",
    "code",
    "code_cleanup",
    "kernels",
)
# `kernels` holds CUDA C++ (`extern "C" __global__ void APPLY_SPECIFIC(name)(...)`): never part of the host
# module; opkit.cop.kernels compiles it with NVRTC (device="cuda") or the host module takes it in
# (device="cuda-interpret"). Its macros: APPLY_SPECIFIC and the DTYPE family (opkit.cop.source.macros).

_MARKER = re.compile(r"^[ \t\f\v]*#[ \t\f\v]*section(?!\w)(.*)$")
_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_NOT_NEWLINE = re.compile(r"[^\n]")
# Unterminated literals stop at the end of their line, so an apostrophe in an
# `#error` line cannot swallow the rest of the file.
_COMMENT_OR_LITERAL = re.compile(
    r"//[^\n]*"
    r"|/\*.*?(?:\*/|\Z)"
    r'|"(?:\\.|[^"\\\n])*"?'
    r"|'(?:\\.|[^'\\\n])*'?",
    re.S,
)


@dataclass(frozen=True)
class Section:
    """One `#section` body: its tag, absolute file path, first body line (1-based) and text."""

    tag: str
    path: str
    line: int
    text: str


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a section file, at a 1-based line."""

    line: int
    message: str
    tag: str | None = None


def mask_comments_and_literals(text: str) -> str:
    """Blank out comments and string/char literal contents, keeping every newline.

    A literal keeps its opening quote so that it still counts as code.
    """

    def blank(match: re.Match) -> str:
        """Replace one comment or literal by spaces."""
        lexeme = match.group()
        if lexeme[0] in "\"'":
            return lexeme[0] + _NOT_NEWLINE.sub(" ", lexeme[1:])
        return _NOT_NEWLINE.sub(" ", lexeme)

    return _COMMENT_OR_LITERAL.sub(blank, text)


def split_lines(text: str) -> list[str]:
    """Split text on newlines only, keeping each line's newline."""
    return _LINE.findall(text)


def scan_text(text: str, path: str) -> tuple[list[Section], list[Problem]]:
    """Split text into sections, collecting every problem instead of stopping at the first.

    Sections whose marker has a problem (unknown or missing tag) are left out.
    """
    lines = split_lines(text)
    markers = [(i, m.group(1)) for i, line in enumerate(lines) if (m := _MARKER.match(line))]
    if not markers:
        return [], [Problem(1, "no '#section <tag>' line in the file; start the C code with "
                               "one, e.g. '#section support_code'")]
    problems = _stray_code(lines[: markers[0][0]])
    sections = []
    ends = [start for start, _ in markers[1:]] + [len(lines)]
    for (start, rest), end in zip(markers, ends):
        tag, problem = _parse_tag(rest, start + 1)
        if problem is not None:
            problems.append(problem)
            continue
        sections.append(Section(tag, path, start + 2, "".join(lines[start + 1 : end])))
    return sections, problems


def _stray_code(lines: list[str]) -> list[Problem]:
    """Return a problem for the first line of code before the first `#section` line."""
    masked = split_lines(mask_comments_and_literals("".join(lines)))
    for number, (line, raw) in enumerate(zip(masked, lines), start=1):
        if line.strip():
            snippet = raw.strip()[:60]
            return [Problem(number, f"code before the first '#section' line: {snippet!r}; "
                                    "move it under a '#section <tag>' line "
                                    "(e.g. '#section support_code') or delete it")]
    return []


def _parse_tag(rest: str, line: int) -> tuple[str | None, Problem | None]:
    """Return the tag after `#section`, or the problem with it."""
    words = mask_comments_and_literals(rest).split()
    if not words:
        return None, Problem(line, f"'#section' without a tag; valid tags: {', '.join(TAGS)}")
    if len(words) > 1:
        return None, Problem(line, f"expected one tag after '#section', got {' '.join(words)!r}; "
                                   f"valid tags: {', '.join(TAGS)}", tag=words[0])
    tag = words[0]
    if tag not in TAGS:
        return None, Problem(line, unknown_tag_message(tag), tag=tag)
    return tag, None


def unknown_tag_message(tag: str) -> str:
    """Describe an unknown tag, with the closest valid tag and the full list."""
    import difflib  # compiles a regex on import: only for this message

    close = difflib.get_close_matches(tag.lower(), TAGS, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ";"
    return f"unknown section tag {tag!r}{hint} valid tags: {', '.join(TAGS)}"


def _read_bytes(path) -> bytes:
    """Read a file, turning any failure into a SectionError naming the path tried."""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        hint = ""
        if isinstance(exc, FileNotFoundError):
            hint = ("; check the path (relative func_files resolve against the directory "
                    "of the module that defines the op)")
        raise SectionError(f"cannot read C section file: {reason}{hint}", path=path) from exc


def read_section_file(path) -> str:
    """Read a C file as UTF-8 text with `\\n` newlines, or raise SectionError."""
    return decode_section_file(_read_bytes(path), path)


def decode_section_file(data: bytes, path) -> str:
    """Return a C file's bytes as UTF-8 text with `\\n` newlines, or raise SectionError naming `path`."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SectionError(f"byte 0x{data[exc.start]:02x} is not UTF-8; save the file as UTF-8",
                           path=path, line=line) from exc
    return text.replace("\r\n", "\n")


_parsed: dict[tuple, list[Section]] = {}


def parse_file(path) -> list[Section]:
    """Parse one C file into its sections; raise SectionError at the first problem.

    A file parsed before is not read again while its size, inode, modification and
    change times are unchanged (a graph of 200 instances of one COp parses its file
    once; an edit whose mtime was set back still moves the change time).
    """
    path = os.path.abspath(path)
    try:
        st = os.stat(path)
        seen = (path, st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_dev, st.st_ino)
    except OSError:
        seen = None
    if seen is not None and seen in _parsed:
        return list(_parsed[seen])
    sections = parse_text(read_section_file(path), path)
    if seen is not None:
        if len(_parsed) > 256:
            _parsed.clear()
        _parsed[seen] = list(sections)
    return sections


def parse_text(text: str, path) -> list[Section]:
    """Parse the text of the C file `path` into its sections; raise SectionError at the first problem."""
    sections, problems = scan_text(text, path)
    if problems:
        first = problems[0]
        raise SectionError(first.message, path=path, line=first.line, tag=first.tag)
    return sections


def _path_list(paths) -> list:
    """Accept one path or an iterable of paths."""
    if isinstance(paths, (str, os.PathLike)):
        return [paths]
    return list(paths)


def parse_files(paths, func_name=None, data=None) -> dict[str, list[Section]]:
    """Parse C files and merge repeated tags in order, across files in order.

    With `data` (absolute path -> bytes), the files are parsed from those bytes, not read.

    A `code` section is an error when `func_name` is given, since the generated
    `c_code` then calls `func_name`; the error names the `#section code` line.
    """
    merged: dict[str, list[Section]] = {}
    for path in _path_list(paths):
        if data is None:
            parsed = parse_file(path)
        else:
            path = os.path.abspath(path)
            parsed = parse_text(decode_section_file(data[path], path), path)
        for section in parsed:
            merged.setdefault(section.tag, []).append(section)
    if func_name and "code" in merged:
        code = merged["code"][0]
        raise SectionError(
            f"'#section code' cannot be combined with func_name {func_name!r}: the generated "
            "c_code already calls that function; remove the code section or drop func_name",
            path=code.path, line=code.line - 1, tag="code")
    return merged


@functools.lru_cache(maxsize=4096)  # the same paths and messages, node after node
def c_string_literal(text: str) -> str:
    """Quote text as a C string literal (backslashes, quotes and control characters escaped).

    A character UTF-8 cannot hold (a path's byte that is not UTF-8, which Python
    keeps as a lone surrogate) becomes the octal escape of that byte, so the
    literal, and the source file, hold the path's exact bytes.
    """
    out = []
    for char in text:
        if char in '\\"':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\{ord(char):03o}")
        elif 0xD800 <= ord(char) <= 0xDFFF:
            raw = char.encode("utf-8", "surrogateescape" if 0xDC80 <= ord(char) <= 0xDCFF else "surrogatepass")
            out.append("".join(f"\\{byte:03o}" for byte in raw))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def line_directive(section: Section) -> str:
    """Return the `#line N "path"` directive that makes the compiler point at the user's file."""
    return f"#line {section.line} {c_string_literal(section.path)}"
