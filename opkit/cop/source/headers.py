"""The headers C text includes, found as the compiler finds them, with the sha256 of their bytes.

One scan serves every identity: a module's, a kernel's, a precompiled header's (opkit.cop.toolchain.identity)
and a COp's version (opkit.cop.source.cop).

Headers are found the way the compiler finds them (see `search_dirs`): beside the
including file for `#include "..."`, then `-iquote` folders, then the op's header
folders and every `-I`, `-isystem` and `-idirafter` of the op's arguments and of
config.cflags, then CPATH, C_INCLUDE_PATH and CPLUS_INCLUDE_PATH. A header the
compiler opens that this scan cannot see (an include named by a macro) is in the
compiler's own list of what it read, kept with the cache entry and checked on
every hit (opkit.cop.toolchain.depends).
"""

from __future__ import annotations

import functools
import os
import re

from opkit.config import cflag_words, config
from opkit.core.digest import sha256

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include(?:_next)?[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)', re.M)
_PATH_OPTIONS = ("-isystem", "-idirafter", "-iquote", "-I")
_ENVIRONMENT = ("CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH")
_headers: dict = {}  # a header's (path, device, inode, size, mtime, ctime) -> (its sha256, what it includes)


@functools.lru_cache(maxsize=64)
def _includes(text):
    """Return the ("quoted", "angled") names `text` includes: a big graph's code is scanned once, not per rebuild."""
    return tuple(_INCLUDE.findall(text))


def search_dirs(include_dirs, compile_args=()) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return the folders (quoted only, every include) the compiler searches for a module's headers.

    `include_dirs` are the op's header folders; the `-I`/`-isystem`/`-idirafter`/
    `-iquote` of `compile_args` and of config.cflags, and the CPATH, C_INCLUDE_PATH
    and CPLUS_INCLUDE_PATH of the environment are searched too.
    """
    return _search_dirs(tuple(include_dirs), tuple(compile_args), config.cflags or "",
                        tuple(os.environ.get(name) for name in _ENVIRONMENT))


@functools.lru_cache(maxsize=64)
def _search_dirs(include_dirs, compile_args, cflags, environment):
    """search_dirs of everything it reads, given (a recompile reads the same again; see search_dirs)."""
    quoted, every = [], list(include_dirs)
    words = list(compile_args) + cflag_words(cflags)
    for k, word in enumerate(words):
        option = next((o for o in _PATH_OPTIONS if word.startswith(o)), None)
        if option is None:
            continue
        value = word[len(option):] or (words[k + 1] if k + 1 < len(words) else "")
        if value:
            (quoted if option == "-iquote" else every).append(value)
    for value in environment:
        if value:
            every += [d or "." for d in value.split(os.pathsep)]
    return tuple(dict.fromkeys(quoted)), tuple(dict.fromkeys(every))


def local_headers(source, include_dirs, compile_args=(), *, with_paths=True) -> list[str]:
    """Return the path (unless not `with_paths`) and the sha256 of the bytes of every header `source` includes,
    recursively.

    `#include "..."` is looked up beside the including file, then in the quoted
    folders, then in every folder; `#include <...>` in every folder (see
    search_dirs). A header's bytes are hashed as they are: two headers that
    differ in a byte that is not UTF-8 are two headers.
    """
    return found_headers(source, *search_dirs(include_dirs, compile_args), with_paths=with_paths)


def option_dirs(include_dirs, compile_args=()) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return the folders (quoted only, every include) that `include_dirs` and the path options of
    `compile_args` name, and nothing else (no config.cflags, no environment): a compiler given only these."""
    return _search_dirs(tuple(include_dirs), tuple(compile_args), "", ())


def pre_included(arguments) -> str:
    """Return `#include` lines of the headers `arguments` include before the source (g++'s -include FILE,
    NVRTC's --pre-include=FILE): found as the compiler finds them, they are part of what it reads."""
    names = []
    for k, argument in enumerate(arguments):
        if argument == "-include" and k + 1 < len(arguments):
            names.append(arguments[k + 1])
        elif argument.startswith(("--pre-include=", "-include=")):
            names.append(argument.partition("=")[2])
    return "".join(f'#include "{name}"\n' for name in names)


def found_headers(source, quoted_dirs, every_dir, *, with_paths=True) -> list[str]:
    """Return the path (unless not `with_paths`) and the sha256 of every header `source` includes, recursively,
    looked up in `quoted_dirs` (for `#include "..."`, after the including file's folder) then in `every_dir`."""
    if not every_dir and not quoted_dirs:
        return []
    found, pending, seen = [], [(_includes(source), None)], set()
    while pending:
        includes, here = pending.pop()
        for quoted, angled in includes:
            directories = ([here] if here and quoted else []) + list(quoted_dirs if quoted else ()) + list(every_dir)
            for directory in directories:
                path = os.path.join(directory, quoted or angled)
                if os.path.isfile(path):
                    real = os.path.realpath(path)
                    if real not in seen:
                        seen.add(real)
                        digest, inner = header_facts(real)
                        found.append(f"{real}\n{digest}" if with_paths else digest)
                        pending.append((inner, os.path.dirname(real)))
                    break
    return found


def header_facts(real):
    """Return the sha256 of the header `real`'s bytes and what it includes, read once while its stat is unchanged.

    The change time and the inode are in the stat: an edit in place, even with its
    modification time set back, reads the file again.
    """
    st = os.stat(real)
    memo = (real, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    known = _headers.get(memo)
    if known is None:
        with open(real, "rb") as handle:
            data = handle.read()
        if len(_headers) > 4096:
            _headers.clear()
        known = _headers[memo] = (sha256(data).hexdigest(), _includes(data.decode("utf-8", "surrogateescape")))
    return known
