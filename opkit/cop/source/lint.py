"""Lint `#section` C files for `opkit check`, reporting every problem rather than the first."""

from __future__ import annotations

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
_EXTERN_C = re.compile(r'\bextern[ \t\n]*"C"[ \t\n]*\Z')
_EXTERN_C_BLOCK = re.compile(r'\bextern[ \t\n]*"C"[ \t\n]*\{[^{}]*\Z')
_KERNEL_NAME = re.compile(r"[ \t\n]*(?:__launch_bounds__[ \t\n]*\([^)]*\)[ \t\n]*)?void[ \t\n]+"
                          r"(APPLY_SPECIFIC[ \t\n]*\([ \t\n]*\w+[ \t\n]*\)|\w+)")
DECLARE_KERNEL = 'extern "C" __global__ void APPLY_SPECIFIC(name)(...)'


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
    for section in sections:
        diagnostics.extend(_check_section(section, user_defined))
    diagnostics.extend(_no_kernel(sections))
    return sorted(diagnostics, key=lambda d: d.line or 0)


def _check_section(section: Section, user_defined: set) -> list[Diagnostic]:
    """Lint one section body for macros it does not see and, in `code`, `return`."""
    if not section.text.strip():
        return [Diagnostic(section.path, section.line - 1, "warning",
                           f"'#section {section.tag}' is empty")]
    available = defined_macros(section.tag)
    masked = _NAME_NOT_USED.sub(lambda m: m.group(1) or m.group(2),
                                mask_comments_and_literals(section.text))
    diagnostics = _check_kernels(section) if section.tag == "kernels" else []
    for offset, line in enumerate(split_lines(masked)):
        reported = set()
        for name in _IDENTIFIER.findall(line):
            message = _misuse(name, section.tag, available, user_defined) or _misspelt(name, user_defined)
            if message and name not in reported:
                reported.add(name)
                diagnostics.append(Diagnostic(section.path, section.line + offset, "error", message))
    return diagnostics


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


def _check_kernels(section: Section) -> list[Diagnostic]:
    """Lint a kernels section: at least one kernel, each `extern "C"` and named through APPLY_SPECIFIC."""
    text = section.text
    masked = mask_comments_and_literals(text)
    found = []
    for match in _GLOBAL.finditer(masked):
        line = section.line + masked.count("\n", 0, match.start())
        start = max(masked.rfind(";", 0, match.start()), masked.rfind("}", 0, match.start()))
        declaration = text[start + 1: match.start()]
        extern = _EXTERN_C.search(declaration) or _EXTERN_C_BLOCK.search(text[: match.start()])
        name = _KERNEL_NAME.match(masked, match.end())
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


def _no_kernel(sections) -> list[Diagnostic]:
    """Return an error at the first `#section kernels` when the file's kernels sections declare no kernel."""
    kernels = [section for section in sections if section.tag == "kernels"]
    if not kernels or any(_GLOBAL.search(mask_comments_and_literals(s.text)) for s in kernels):
        return []
    return [Diagnostic(kernels[0].path, kernels[0].line - 1, "error",
                       f"'#section kernels' declares no kernel; declare each as {DECLARE_KERNEL}")]


# Names opkit defines in sections besides the families' patterns (PARAMS_TYPE, DTYPE_PARAM_<field>).
_OTHER_MACROS = re.compile(r"PARAMS_TYPE\Z|DTYPE_PARAM_\w+\Z")
_FIXED_NAMES = ("APPLY_SPECIFIC", "FAIL", "PARAMS", "PARAMS_TYPE", "CONTEXT")
_INDEX = re.compile(r"_?(\d+)\Z")


def macro_suggestion(name: str, user_defined=frozenset()) -> str | None:
    """Return the opkit macro `name` is a misspelling of (one or two letters off: DTYPE_INPTU_0), or None.

    A name that is an opkit macro, or that the file #defines itself, is no misspelling.
    """
    if len(name) < 4 or name in user_defined or macro_family(name) or _OTHER_MACROS.match(name):
        return None
    index = _INDEX.search(name)
    number = index.group(1) if index else "0"
    candidates = [f"{kind}_{side}_{number}" for kind in ("DTYPE", "TYPENUM", "ITEMSIZE") for side in ("INPUT", "OUTPUT")]
    candidates += [f"INPUT_{number}", f"OUTPUT_{number}", *_FIXED_NAMES]
    best = min(candidates, key=lambda candidate: _distance(name, candidate))
    limit = 1 if len(best) <= 8 else 2
    return best if 0 < _distance(name, best) <= limit else None


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


def _distance(a: str, b: str) -> int:
    """Return the edit distance of a and b, a swap of two neighbouring letters counting one (OSA distance)."""
    previous2, previous = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (ca != cb))
            if previous2 is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], previous2[j - 2] + 1)
        previous2, previous = previous, row
    return previous[len(b)]


def misspelt_macro_hints(paths) -> list[str]:
    """Return a `hint:` line for each misspelt opkit macro in these C files (those a compiler error points at)."""
    hints = []
    for path in dict.fromkeys(paths):
        if os.path.isfile(path):
            hints += [f"hint: {d.path}:{d.line}: {d.message}" for d in misspelt_macros(path)]
    return hints
