"""COp: an Op whose C code lives in external files split by `#section <tag>` lines.

The files are parsed when the op is constructed, so a malformed file fails
early with a SectionError naming the file and line. Each `c_<tag>` method
returns its sections wrapped in their macros (SPEC section 5), every section
after a `#line` directive that points the compiler at the user's file.

PARAMS is defined, for an op with a `params_type`, in `init_code_struct`,
`support_code_struct`, `cleanup_code_struct`, `code` and `code_cleanup` (a pointer to the node's
params struct: `PARAMS->alpha`), and is the last argument of a `func_name`
function. CONTEXT is never defined: opkit passes no context objects to ops.

A `kernels` section (CUDA C++, `extern "C" __global__ void APPLY_SPECIFIC(name)(...)`) sees APPLY_SPECIFIC
and the DTYPE/TYPENUM/ITEMSIZE macros only; no C method returns it: opkit.cop.kernels compiles it with NVRTC
(or a GPU node's host module takes it in, under device="cuda-interpret"). An op with C methods may give
its kernels with `c_kernels(node, name)`, wrapped in the same macros.
"""

from __future__ import annotations

import abc
import inspect
import os
import re
from collections.abc import Sequence

from opkit.core.c_source import SectionOp
from opkit.core.digest import sha256
from opkit.core.op import Op
from opkit.core.type import MethodNotDefined
from opkit.cop.source.macro_values import macro_values
from opkit.cop.source.macros import section_macros, wrap_section
from opkit.cop.source import RESTORE_LINE_PRAGMA
from opkit.cop.source.headers import found_headers, option_dirs, pre_included
from opkit.cop.source.include_checks import check_local_includes
from opkit.cop.source.sections import _read_bytes, c_string_literal, parse_files

_FUNC_NAME = re.compile(r"\s*(?:APPLY_SPECIFIC\(\s*\w+\s*\)|[A-Za-z_][\w:]*)\s*\Z", re.ASCII)
_NO_MACRO_TAGS = ("support_code", "init_code")
_FILES_VERSION = b"opkit-cop-files-2\0"


def _path_list(func_files) -> list:
    """Accept one path or a list of paths."""
    if isinstance(func_files, (str, os.PathLike)):
        return [func_files]
    return list(func_files)


def _class_dirs(cls) -> list[str]:
    """Return the directories of the files defining `cls` and its COp bases, most derived first."""
    dirs = []
    for klass in cls.__mro__:
        if klass is COp or not (isinstance(klass, type) and issubclass(klass, COp)):
            continue
        try:
            directory = os.path.dirname(os.path.abspath(inspect.getfile(klass)))
        except (TypeError, OSError):  # a class typed at the interactive prompt has no file
            continue
        if directory not in dirs:
            dirs.append(directory)
    return dirs


def resolve_func_file(path, cls) -> str:
    """Return the absolute path of a section file named relative to the class that uses it.

    A relative path resolves against the directory of the module defining
    `cls`; if it is not there, against the modules of its COp base classes (so
    a subclass in another directory still finds its base's files); a class
    without a source file resolves against the current directory.
    """
    path = os.fspath(path)
    if os.path.isabs(path):
        return os.path.normpath(path)
    candidates = [os.path.normpath(os.path.join(d, path)) for d in _class_dirs(cls)]
    for candidate in candidates:
        if os.path.isfile(candidate):
            return candidate
    # Missing everywhere: name the most natural place in the SectionError that parsing raises.
    return candidates[0] if candidates else os.path.abspath(path)


def _wrap(section, define, undef):
    """Return a section between its macros, then point the compiler back at the generated file."""
    return wrap_section(section, define, undef) + RESTORE_LINE_PRAGMA + "\n"


class COp(Op, metaclass=abc.ABCMeta):
    """An Op whose C code is read from `.c` files split into `#section <tag>` sections.

    `func_files` is a path or a list of paths; relative paths resolve against
    the directory of the module that defines the op class. With `func_name`,
    the generated `c_code` calls `func_name(input0, ..., &output0, ...)`, which
    returns 0 on success and non-zero after setting a Python exception; without
    it, the files' `code` sections are the op's `c_code`.
    """

    def __init__(self, func_files: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
                 func_name: str | None = None) -> None:
        if func_name is not None and not (isinstance(func_name, str) and _FUNC_NAME.match(func_name)):
            raise ValueError(f"func_name must name a C function, e.g. 'my_func' or "
                             f"'APPLY_SPECIFIC(my_func)', got {func_name!r}")
        self._func_files_given = tuple(os.fspath(p) for p in _path_list(func_files))
        self.func_name = func_name.strip() if func_name else None
        self._load()

    def _load(self):
        """Resolve the section files and parse them (SectionError on any problem)."""
        self.func_files = tuple(resolve_func_file(p, type(self)) for p in self._func_files_given)
        self.code_sections = parse_files(self.func_files, func_name=self.func_name)

    def __setstate__(self, state):
        """Restore a pickled op, re-reading its files where this installation keeps them."""
        self.__dict__.update(state)
        if "_func_files_given" not in state:
            return
        try:
            self._load()
        except ValueError:
            pass  # files not here: keep the pickled code and paths

    # ---- the text of one tag's sections with their macros ----

    def _sections(self, tag, node=None, name=None, sub=None, inputs=None, outputs=None):
        """Return every `tag` section wrapped in its macros, or '' if the files have none."""
        sections = self.code_sections.get(tag, ())
        if not sections:
            return ""
        define = undef = ""
        if tag not in _NO_MACRO_TAGS:
            define, undef = self._macros(tag, node, name, sub, inputs, outputs)
        return "".join(_wrap(section, define, undef) for section in sections)

    def _macros(self, tag, node, name, sub=None, inputs=None, outputs=None):
        """Return the (define, undef) text of the macros a `tag` section sees for `node`."""
        return section_macros(tag, **macro_values(self, node, name, sub, inputs, outputs))

    # ---- the C methods opkit's code generator calls ----

    def c_support_code(self):
        return self._sections("support_code")

    def c_init_code(self):
        return [_wrap(section, "", "") for section in self.code_sections.get("init_code", ())]

    def c_support_code_apply(self, node, name):
        return self._sections("support_code_apply", node, name)

    def c_init_code_apply(self, node, name):
        return self._sections("init_code_apply", node, name)

    def c_support_code_struct(self, node, name, sub=None):
        sub = {"params": sub["params"]} if sub and "params" in sub else None
        return self._sections("support_code_struct", node, name, sub)

    def c_init_code_struct(self, node, name, sub):
        return self._sections("init_code_struct", node, name, sub)

    def c_cleanup_code_struct(self, node, name, sub=None):
        sub = {"params": sub["params"]} if sub and "params" in sub else None
        return self._sections("cleanup_code_struct", node, name, sub)

    def has_c_code(self, node):
        """Return True if the files give this op C code: a `code` section or func_name."""
        return bool(self.func_name) or "code" in self.code_sections

    def c_code(self, node, name, inputs, outputs, sub):
        if self.func_name:
            return self._func_call(node, name, inputs, outputs, sub)
        if "code" not in self.code_sections:
            raise MethodNotDefined("c_code", f"{type(self).__name__}: its C files have no "
                                             "'#section code' and no func_name was given")
        return self._sections("code", node, name, sub, inputs, outputs)

    def _func_call(self, node, name, inputs, outputs, sub):
        """Return the call of func_name, inside the macros so it may use APPLY_SPECIFIC."""
        define, undef = self._macros("code", node, name, sub, inputs, outputs)
        params = [sub["params"]] if "params" in sub else []
        arguments = ", ".join([*inputs, *(f"&{output}" for output in outputs), *params])
        message = c_string_literal(f"{type(self).__name__}: {self.func_name} returned non-zero "
                                   "without setting a Python exception")
        return (f"{define}"
                f"if ({self.func_name}({arguments}) != 0) {{\n"
                f"    if (!PyErr_Occurred()) {{\n"
                f"        PyErr_SetString(PyExc_RuntimeError, {message});\n"
                f"    }}\n"
                f"    FAIL\n"
                f"}}\n"
                f"{undef}")

    def c_code_cleanup(self, node, name, inputs, outputs, sub):
        return self._sections("code_cleanup", node, name, sub, inputs, outputs)

    def c_header_dirs(self, c_compiler=None):
        """Return the directories of the section files, so `#include "local.h"` beside them works."""
        dirs = []
        for path in self.func_files:
            directory = os.path.dirname(path)
            if directory not in dirs:
                dirs.append(directory)
        return dirs

    def c_code_cache_version(self):
        """Return a version naming the parsed sections, the files on disk and the headers they include.

        The parsed text is what the module is rendered from; the files' bytes and the
        headers they include, recursively, found as the compiler finds them through the
        op's own header folders and arguments (opkit.cop.source.headers: the one scan
        every identity uses), cover the rest. (A module's cache key is its request's in
        any case; this version says the op may be cached at all, and PyTensor's cache,
        through the bridge, trusts it.)
        """
        parsed = sha256()
        for tag, sections in self.code_sections.items():
            for section in sections:
                parsed.update(repr((tag, section.path, section.line, section.text)).encode())
        return ("opkit.COp", parsed.hexdigest(), self._files_version())

    def version_headers(self) -> list[str]:
        """Return the paths of the headers the op's files include, as c_code_cache_version finds them."""
        return [found.partition("\n")[0] for found in self._included(self._file_bytes())]

    def _files_version(self) -> str:
        for path in self.func_files:  # a name the header scan could not look up is an error at its line
            check_local_includes(path)
        digest = sha256(_FILES_VERSION)
        data = self._file_bytes()
        for part in data:
            digest.update(b"%d\0" % len(part) + part)
        for found in self._included(data):
            digest.update(b"\0" + found.encode("utf-8", "surrogateescape"))
        return digest.hexdigest()

    def _file_bytes(self) -> list[bytes]:
        return [_read_bytes(path) for path in self.func_files]

    def _included(self, data) -> list[str]:
        """Return 'path\nsha256' of every header the files' bytes `data` include (opkit.cop.source.headers)."""
        arguments = _own(self.c_compile_args)
        text = pre_included(arguments) + "\n".join(part.decode("utf-8", "surrogateescape") for part in data)
        return found_headers(text, *option_dirs(_own(self.c_header_dirs), arguments))


def _own(method) -> list[str]:
    """Return what an op's c_header_dirs or c_compile_args gives (every signature opkit calls it with)."""
    try:
        try:
            return [str(item) for item in method() or ()]
        except TypeError:
            return [str(item) for item in method(None) or ()]
    except MethodNotDefined:
        return []


# opkit's own ops whose C is fixed text are COps too: their `#section` files are named by their class
# (core cannot import this module, so the kinship is declared here).
COp.register(SectionOp)
