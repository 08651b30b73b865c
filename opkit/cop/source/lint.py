"""Lint `#section` C files for `opkit check`, reporting every problem rather than the first.

Linear in the file, whatever it holds (100,000 markers, one section of 100,000 kernels, an identifier of
a million letters): each section is masked once, the kernels section is read in one forward pass (no
look back to its start), and a misspelling is looked for only among macros a few letters off, in a band
of the edit-distance table, once per distinct name.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass

from opkit.cop.source.macros import defined_macros, macro_family
from opkit.cop.source.sections import (
    TAGS,
    Section,
    mask_comments_and_literals,
    read_section_file,
    scan_text,
    split_lines,
)
from opkit.errors import SectionError

_IDENTIFIER = re.compile(r"(?<!\w)[A-Za-z_]\w*")
# Names a directive only tests or (re)defines are not uses of the macro.
_NAME_NOT_USED = re.compile(
    r"^([ \t]*#[ \t]*(?:ifdef|ifndef|undef|define)[ \t]+)\w+|(\bdefined[ \t]*\(?[ \t]*)\w+", re.M)
_USER_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)

_HINTS = {
    "APPLY_SPECIFIC": "move code that needs it to an _apply or _struct section",
    "DTYPE": "move code that needs it to an _apply or _struct section",
    "FAIL": "outside those, set a Python exception and return an error value instead",
    "IO_NAMES": "elsewhere, pass the variables as function arguments",
    "PARAMS": "move code that needs it to an _apply or _struct section",
    "CONTEXT": "move code that needs it to an _apply or _struct section",
}
# A kernel runs on the device: what the host has, it gets as kernel arguments from the code section.
_KERNEL_HINTS = {
    "FAIL": "a kernel cannot fail the node: write an error flag to device memory and FAIL in the code section",
    "IO_NAMES": "pass the data (INPUT_0->data, OUTPUT_0->data) and sizes as kernel arguments from the code section",
    "PARAMS": "pass the parameters' values as kernel arguments from the code section",
    "CONTEXT": "pass what it holds as kernel arguments from the code section",
}
_GLOBAL = re.compile(r"\b__global__\b")
_KERNEL_TOKEN = re.compile(r"[;{}\n]|\b__global__\b")  # what _kernel_declarations carries along
_KERNEL_NAME = re.compile(r"[ \t\n]*(?:__launch_bounds__[ \t\n]*\([^)]*\)[ \t\n]*)?void[ \t\n]+"
                          r"(APPLY_SPECIFIC[ \t\n]*\([ \t\n]*\w+[ \t\n]*\)|\w+)")
DECLARE_KERNEL = 'extern "C" __global__ void APPLY_SPECIFIC(name)(...)'
# A kernel's name is read within this many characters after `__global__`: a `(` never closed is not read to
# the end of the section once per kernel.
_NAME_WINDOW = 400


@dataclass(frozen=True)
class Diagnostic:
    """One lint finding: where it is, how bad ('error' or 'warning'), and what to do."""

    path: str
    line: int | None
    severity: str
    message: str

    def __str__(self) -> str:
        """Format as `path:line: severity: message`, like a compiler."""
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.severity}: {self.message}"


def check_files(paths) -> list[Diagnostic]:
    """Lint each C section file and return every diagnostic, file by file, by line."""
    diagnostics = []
    for path in paths:
        diagnostics.extend(check_file(path))
    return diagnostics


def check_file(path) -> list[Diagnostic]:
    """Lint one C section file: tags, stray code, misplaced macros, `return` in code."""
    path = os.path.abspath(path)
    try:
        text = read_section_file(path)
    except SectionError as exc:
        return [Diagnostic(path, exc.line, "error", exc.message)]
    sections, problems = scan_text(text, path)
    diagnostics = [Diagnostic(path, p.line, "error", p.message) for p in problems]
    user_defined = set(_USER_DEFINE.findall(mask_comments_and_literals(text)))
    masked = [mask_comments_and_literals(section.text) for section in sections]
    for section, section_masked in zip(sections, masked):
        diagnostics.extend(_check_section(section, section_masked, user_defined))
    diagnostics.extend(_no_kernel(sections, masked))
    return sorted(diagnostics, key=lambda d: d.line or 0)


def _check_section(section: Section, masked: str, user_defined: set) -> list[Diagnostic]:
    """Lint one section body (`masked`: its text, comments and literals blanked) for macros it does not
    see and, in `code`, `return`."""
    if not section.text.strip():
        return [Diagnostic(section.path, section.line - 1, "warning",
                           f"'#section {section.tag}' is empty")]
    diagnostics = _check_kernels(section, masked) if section.tag == "kernels" else []
    masked = _NAME_NOT_USED.sub(lambda m: m.group(1) or m.group(2), masked)
    for offset, line in enumerate(split_lines(masked)):
        reported = set()
        for name in _IDENTIFIER.findall(line):
            if name in user_defined:
                message = _misuse(name, section.tag, defined_macros(section.tag), user_defined)
            else:
                message = _name_message(name, section.tag)
            if message and name not in reported:
                reported.add(name)
                diagnostics.append(Diagnostic(section.path, section.line + offset, "error", message))
    return diagnostics


@functools.lru_cache(maxsize=8192)  # a file names the same identifiers again and again
def _name_message(name: str, tag: str) -> str | None:
    """What is wrong with `name` (not #defined by the file) in a section with this tag, or None."""
    return _misuse(name, tag, defined_macros(tag), frozenset()) or _misspelt(name, frozenset())


def _misuse(name: str, tag: str, available: frozenset, user_defined: set) -> str | None:
    """Return why `name` is wrong in a section with this tag, or None if it is fine."""
    if name == "return" and tag == "code":
        return ("'return' in a code section skips the generated cleanup; set a Python "
                "exception and use FAIL instead (or move the function to support_code_apply)")
    family = macro_family(name)
    if family is None or family in available or name in user_defined:
        return None
    where = [t for t in TAGS if family in defined_macros(t)]
    hint = _KERNEL_HINTS.get(family, _HINTS[family]) if tag == "kernels" else _HINTS[family]
    return (f"{name} is not defined in '#section {tag}'; it is defined only in "
            f"{', '.join(where)}; {hint}")


def _check_kernels(section: Section, masked: str) -> list[Diagnostic]:
    """Lint a kernels section: at least one kernel, each `extern "C"` and named through APPLY_SPECIFIC."""
    found = []
    for offset, extern, match in _kernel_declarations(section.text, masked):
        line = section.line + offset
        name = _KERNEL_NAME.match(masked, match.end(), match.end() + _NAME_WINDOW)
        shown = "".join(name.group(1).split()) if name else "this kernel"
        if not extern:
            found.append(Diagnostic(section.path, line, "error",
                                    f"{shown} is __global__ without extern \"C\": its name would be C++-mangled and "
                                    f"OPKIT_LAUNCH could not find it; declare it {DECLARE_KERNEL}"))
        elif name and not name.group(1).startswith("APPLY_SPECIFIC"):
            found.append(Diagnostic(section.path, line, "warning",
                                    f"kernel {shown!r} is not named through APPLY_SPECIFIC: OPKIT_LAUNCH({shown}, ...) "
                                    f"launches APPLY_SPECIFIC({shown}), and two nodes of this op in one module would "
                                    f"define it twice; declare it {DECLARE_KERNEL}"))
    return found


def _kernel_declarations(text: str, masked: str):
    """Yield (line offset, whether it is extern "C", match) for each `__global__` of a section, in one pass.

    extern "C": its declaration (what follows the last `;` or `}`) ends with `extern "C"`, or the last
    brace before it opens an `extern "C" {` block. Lines, the last `;`/`}` and the open block are carried
    along the pass, so no kernel looks back over the section (a section of many kernels stays linear).
    """
    line, declaration, in_block = 0, 0, False
    for token in _KERNEL_TOKEN.finditer(masked):
        char = token.group()
        if char == "\n":
            line += 1
        elif char == ";":
            declaration = token.end()
        elif char == "}":
            declaration, in_block = token.end(), False
        elif char == "{":
            in_block = _ends_with_extern_c(text, token.start(), 0)
        else:
            yield line, in_block or _ends_with_extern_c(text, token.start(), declaration), token


def _ends_with_extern_c(text: str, end: int, floor: int) -> bool:
    """Return whether text[floor:end] ends with `extern "C"` and blanks, reading back no further than that."""
    end = _before_blanks(text, end, floor)
    if end - 3 < floor or text[end - 3:end] != '"C"':
        return False
    end = _before_blanks(text, end - 3, floor)
    start = end - len("extern")
    return (start >= floor and text[start:end] == "extern"
            and (start == floor or not (text[start - 1].isalnum() or text[start - 1] == "_")))


def _before_blanks(text: str, end: int, floor: int) -> int:
    """Return where the run of spaces, tabs and newlines that ends at `end` starts (not below `floor`)."""
    while end > floor and text[end - 1] in " \t\n":
        end -= 1
    return end


def _no_kernel(sections, masked) -> list[Diagnostic]:
    """Return an error at the first `#section kernels` when the file's kernels sections declare no kernel."""
    kernels = [(section, text) for section, text in zip(sections, masked) if section.tag == "kernels"]
    if not kernels or any(_GLOBAL.search(text) for _, text in kernels):
        return []
    return [Diagnostic(kernels[0][0].path, kernels[0][0].line - 1, "error",
                       f"'#section kernels' declares no kernel; declare each as {DECLARE_KERNEL}")]


# Names opkit defines in sections besides the families' patterns (PARAMS_TYPE, DTYPE_PARAM_<field>).
_OTHER_MACROS = re.compile(r"PARAMS_TYPE\Z|DTYPE_PARAM_\w+\Z")
_FIXED_NAMES = ("APPLY_SPECIFIC", "FAIL", "PARAMS", "PARAMS_TYPE", "CONTEXT")
_INDEX = re.compile(r"_?(\d+)\Z")


def macro_suggestion(name: str, user_defined=frozenset()) -> str | None:
    """Return the opkit macro `name` is a misspelling of (one or two letters off: DTYPE_INPTU_0), or None.

    A name that is an opkit macro, or that the file #defines itself, is no misspelling.
    """
    if len(name) < 4 or name in user_defined:
        return None
    return _suggestion(name)


@functools.lru_cache(maxsize=8192)  # a file names the same identifiers again and again
def _suggestion(name: str) -> str | None:
    """macro_suggestion for a name the file does not #define: the nearest candidate within its limit."""
    if macro_family(name) or _OTHER_MACROS.match(name):
        return None
    index = _INDEX.search(name)
    number = index.group(1) if index else "0"
    candidates = [f"{kind}_{side}_{number}" for kind in ("DTYPE", "TYPENUM", "ITEMSIZE") for side in ("INPUT", "OUTPUT")]
    candidates += [f"INPUT_{number}", f"OUTPUT_{number}", *_FIXED_NAMES]
    best, best_distance = None, _MAX_LIMIT + 1
    for candidate in candidates:
        distance = _distance(name, candidate, _MAX_LIMIT)
        if distance < best_distance:
            best, best_distance = candidate, distance
    if best is None:
        return None
    limit = 1 if len(best) <= 8 else 2
    return best if 0 < best_distance <= limit else None


def _misspelt(name: str, user_defined: set) -> str | None:
    """Return the message for an identifier that looks like a misspelt opkit macro, or None."""
    best = macro_suggestion(name, user_defined)
    return None if best is None else f"{name} is not an opkit macro (nor #defined in this file); did you mean {best}?"


def misspelt_macros(path) -> list[Diagnostic]:
    """Return a diagnostic for each identifier in a #section file that looks like a misspelt opkit macro."""
    path = os.path.abspath(path)
    try:
        text = read_section_file(path)
    except SectionError:
        return []
    masked = _NAME_NOT_USED.sub(lambda m: m.group(1) or m.group(2), mask_comments_and_literals(text))
    user_defined = set(_USER_DEFINE.findall(mask_comments_and_literals(text)))
    found = []
    for number, line in enumerate(split_lines(masked), 1):
        for name in dict.fromkeys(_IDENTIFIER.findall(line)):
            message = _misspelt(name, user_defined)
            if message:
                found.append(Diagnostic(path, number, "error", message))
    return found


_MAX_LIMIT = 2  # the most letters a misspelling is off (1 for a macro of 8 letters or fewer)


def _distance(a: str, b: str, limit: int) -> int:
    """Return the edit distance of a and b (a swap of two neighbouring letters counting one: OSA distance)
    if it is at most `limit`, else limit + 1.

    Only the band of cells within `limit` of the diagonal is computed (a path leaving it costs more), so
    the work is len(a) * (2 * limit + 1), and nothing at all when the lengths differ by more than `limit`.
    """
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    over = limit + 1
    # Rows hold the band only ({column: distance}); a cell outside it reads as `over`.
    previous2, previous = {}, {j: j for j in range(min(len(b), limit) + 1)}
    for i, ca in enumerate(a, 1):
        row = {0: i} if i <= limit else {}
        for j in range(max(1, i - limit), min(len(b), i + limit) + 1):
            cb = b[j - 1]
            cost = min(previous.get(j, over) + 1, row.get(j - 1, over) + 1,
                       previous.get(j - 1, over) + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cost = min(cost, previous2.get(j - 2, over) + 1)
            row[j] = min(cost, over)
        if min(row.values(), default=over) > limit:
            return over
        previous2, previous = previous, row
    return previous.get(len(b), over)


def misspelt_macro_hints(paths) -> list[str]:
    """Return a `hint:` line for each misspelt opkit macro in these C files (those a compiler error points at)."""
    hints = []
    for path in dict.fromkeys(paths):
        if os.path.isfile(path):
            hints += [f"hint: {d.path}:{d.line}: {d.message}" for d in misspelt_macros(path)]
    return hints
