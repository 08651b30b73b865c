"""The C of a SectionOp, remembered across processes: a warm process expands no `#section` file.

A SectionOp's C methods answer what opkit.cop.source.section_op.OpSections answers (the
methods of opkit.COp over the op's files). Each answer is kept (opkit.cop.compiledir.text_memo)
under a digest of everything it is made of:

- the paths and the contents of the op's files (read again when one changes on disk,
  looked at at most every RECHECK_SECONDS); an answer not kept yet is computed from
  the very bytes the key was made of, and is not kept if a file changed meanwhile;
- the source of the code that parses and expands them (ENGINE_MODULES) and the
  pragma it ends each section with;
- the method and the values its macros are made of (opkit.cop.source.macro_values), and
  the macros the op adds.

So a process whose answers are all kept imports neither the section parser nor the
macro expander. A tag the files do not have gives the method's empty answer without
a look at the disk. The version is kept under the contents of the local headers the
files include, too (the PyTensor bridge trusts it as PyTensor's cache version).
Answers made of values that are not plain data are never kept.
"""

from __future__ import annotations

import _thread
import functools
import json
import os
import time

from opkit.core.digest import sha256
from opkit.cop.compiledir.text_memo import is_plain, kept
from opkit.cop.source import RESTORE_LINE_PRAGMA
from opkit.cop.source.macro_values import macro_values
from opkit.cop.source.section_files import contents_digest, op_files, read_files, stamp

RECHECK_SECONDS = 0.5
ENGINE_MODULES = ("sections.py", "macros.py", "macro_values.py", "cop.py", "section_op.py", "section_files.py",
                  "section_memo.py", "headers.py")  # headers.py: how a version finds the headers it covers

_files: dict = {}  # paths -> _Files
_answers: dict = {}  # key -> answer, this process's
_versions: dict = {}  # (files' key, added macros) -> (version, the headers, their stamp, when last stamped)
_lock = _thread.allocate_lock()  # threading.Lock(), without importing threading


@functools.lru_cache(maxsize=None)
def engine_digest() -> str:
    """Return a digest of the source that turns section files into C, or '' where it cannot be read."""
    here = os.path.dirname(os.path.abspath(__file__))
    digest = sha256(RESTORE_LINE_PRAGMA.encode())
    try:
        for name in ENGINE_MODULES:
            with open(os.path.join(here, name), "rb") as handle:
                digest.update(b"\0" + name.encode() + b"\0" + handle.read())
    except OSError:  # installed without its sources: nothing is kept
        return ""
    return digest.hexdigest()


class _Files:
    """What a process knows of a set of section files: their stamp, their bytes, their key, the tags they have.

    An answer not kept yet is computed from these bytes, the ones the key names: never from
    a parse the reader made of the files earlier.
    """

    def __init__(self, paths, stamp, data, key, tags, when):
        self.paths, self.stamp, self.data, self.key, self.tags, self.when = paths, stamp, data, key, tags, when

    def unchanged(self) -> bool:
        """Return True if the files on disk are still the bytes the key names."""
        return _files_key(self.paths, read_files(self.paths)) == self.key


def _files_key(paths, data):
    return None if data is None else f"{engine_digest()}\0{contents_digest(paths, data)}"


class _Changed(Exception):
    """A file changed while its answer was computed: the answer is used, not kept."""

    def __init__(self, answer):
        super().__init__()
        self.answer = answer


def _files_of(paths):
    """Return the _Files of `paths`, or None when they cannot be kept (a file unreadable, no engine source)."""
    entry = _files.get(paths)
    now = time.monotonic()
    if entry is not None and now - entry.when < RECHECK_SECONDS:
        return entry
    current = stamp(paths)
    if entry is not None and entry.stamp == current:
        entry.when = now
        return entry
    data = read_files(paths)
    if not engine_digest() or data is None:
        return None
    entry = _Files(paths, current, data, _files_key(paths, data), frozenset(), now)
    entry.tags = frozenset(_keep(f"section-tags\0{entry.key}", lambda: _tags(paths, data), entry.unchanged))
    with _lock:
        _files[paths] = entry
    return entry


def parser():
    """Return opkit.cop.source.section_op, which parses and expands section files (it imports the section
    parser, the macro expander and opkit.COp): an answer not kept yet needs it, a warm process never does."""
    from opkit.cop.source import section_op  # lazy: the parser, for answers not kept yet (a warm process's are)

    return section_op


def _tags(paths, data):
    return parser().section_tags(paths, data)


def _keep(key, compute, unchanged):
    """Return compute()'s answer (JSON data), kept under `key`; not kept unless unchanged() after it (a file
    the key names was not edited meanwhile)."""
    def make():
        answer = compute()
        if not unchanged():
            raise _Changed(answer)
        return json.dumps(answer)

    try:
        text = kept(key, make)
    except _Changed as changed:
        return changed.answer
    try:
        return json.loads(text)
    except ValueError:  # a kept text cut short or damaged: computed again (and left for a writer to replace)
        return compute()


def _no_values():
    return None


def _tuples(value):
    """Return `value` with every list made a tuple, as a version is (JSON keeps tuples as lists)."""
    return tuple(map(_tuples, value)) if isinstance(value, list) else value


class SectionC:
    """The C methods of a SectionOp over its files (or `files`), with the `macros` it adds; see the module."""

    def __init__(self, op, files=None, macros=()):
        self.op = op
        self.files = op_files(op, files)
        self.extra_macros = tuple(macros)

    def _reader(self, data=None):
        """Return the OpSections that computes an answer not kept yet: it parses `data` (path -> bytes), or
        else the files (then it raises the error a file that cannot be read or parsed gives)."""
        return parser().OpSections(self.op, self.files, self.extra_macros, data)

    def _answer(self, method, tag, empty, values, *args):
        """Return OpSections' `method(*args)`: `empty` if the files have no `tag`, else kept under `values()`."""
        files = _files_of(self.files)
        if files is not None and tag is not None and tag not in files.tags:
            return empty
        values = values()
        if files is None or not is_plain(values) or not is_plain(self.extra_macros):
            return getattr(self._reader(None if files is None else files.data), method)(*args)
        key = "\0".join(("section", files.key, method, repr(values), repr(self.extra_macros)))
        answer = _answers.get(key)
        if answer is None:
            answer = _keep(key, lambda: getattr(self._reader(files.data), method)(*args), files.unchanged)
            _answers[key] = answer
        return list(answer) if type(answer) is list else answer  # a caller may extend the list it gets

    def _values(self, node, name, sub=None, inputs=None, outputs=None):
        """Return a function of no arguments returning the values the macros of `node`'s sections are made of."""
        def values():
            return macro_values(self.op, node, name, sub, inputs, outputs)
        return values

    def has_c_code(self, node):
        files = _files_of(self.files)
        return self._reader().has_c_code(node) if files is None else "code" in files.tags

    def c_header_dirs(self, c_compiler=None):
        return self._answer("c_header_dirs", None, None, _no_values)

    def c_support_code(self):
        return self._answer("c_support_code", "support_code", "", _no_values)

    def c_init_code(self):
        return self._answer("c_init_code", "init_code", [], _no_values)

    def c_support_code_apply(self, node, name):
        return self._answer("c_support_code_apply", "support_code_apply", "", self._values(node, name), node, name)

    def c_init_code_apply(self, node, name):
        return self._answer("c_init_code_apply", "init_code_apply", "", self._values(node, name), node, name)

    def c_support_code_struct(self, node, name, sub=None):
        values = self._values(node, name, {"params": sub["params"]} if sub and "params" in sub else None)
        return self._answer("c_support_code_struct", "support_code_struct", "", values, node, name, sub)

    def c_init_code_struct(self, node, name, sub):
        return self._answer("c_init_code_struct", "init_code_struct", "", self._values(node, name, sub),
                            node, name, sub)

    def c_cleanup_code_struct(self, node, name, sub=None):
        values = self._values(node, name, {"params": sub["params"]} if sub and "params" in sub else None)
        return self._answer("c_cleanup_code_struct", "cleanup_code_struct", "", values, node, name, sub)

    def c_code(self, node, name, inputs, outputs, sub):
        files = _files_of(self.files)
        if files is None or "code" not in files.tags:  # the reader says why there is no code
            return self._reader().c_code(node, name, inputs, outputs, sub)
        return self._answer("c_code", "code", "", self._values(node, name, sub, inputs, outputs),
                            node, name, inputs, outputs, sub)

    def c_code_cleanup(self, node, name, inputs, outputs, sub):
        return self._answer("c_code_cleanup", "code_cleanup", "", self._values(node, name, sub, inputs, outputs),
                            node, name, inputs, outputs, sub)

    def c_code_cache_version(self):
        """OpSections' version, kept under the contents of the files and of the local headers they include."""
        files = _files_of(self.files)
        if files is None or not is_plain(self.extra_macros):
            return self._reader().c_code_cache_version()
        memo = (files.key, self.extra_macros)
        entry = _versions.get(memo)  # (version, the headers, their stamp, when last stamped)
        now = time.monotonic()
        if entry is not None and now - entry[3] < RECHECK_SECONDS:
            return entry[0]
        if entry is not None and entry[2] == stamp(entry[1]):
            with _lock:  # stamped again: not looked at for another RECHECK_SECONDS, as _files_of does
                _versions[memo] = entry[:3] + (now,)
            return entry[0]

        def includes():  # the headers the version covers (found as the compiler finds them)
            return self._reader(files.data).version_headers()

        headers = tuple(_keep(f"section-headers\0{files.key}", includes, files.unchanged))
        headers_stamp, contents = stamp(headers), contents_digest(headers)
        if contents is None:  # a header found before is gone: the reader looks for what the files include now
            return self._reader(files.data).c_code_cache_version()
        version = _tuples(_keep(f"section-version\0{files.key}\0{contents}\0{self.extra_macros!r}",
                                lambda: self._reader(files.data).c_code_cache_version(),
                                lambda: files.unchanged() and contents_digest(headers) == contents))
        with _lock:
            _versions[memo] = (version, headers, headers_stamp, now)
        return version
