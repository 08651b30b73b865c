"""The headers a compiler read for a cache entry, kept with it and checked on every hit (as ccache's direct mode).

A module's key holds the bytes of the headers its code includes (opkit.cop.source.headers),
found by scanning the code; the compiler may read others (an include named by a
macro, a search order the scan does not know). So every compile also writes the
compiler's own list of what it opened (`-MMD`: the user's headers, not the system's),
and the sha256 of each of those files goes into the entry's meta.json ("depends").
A hit whose listed header has changed since is not used: the module is built again.

Python's and numpy's headers (the toolchain's: every byte of them is in the key, opkit.cop.toolchain.system_headers) and
what lies in the compile cache (the precompiled header) are left out.
"""

from __future__ import annotations

import json
import os
import pathlib

from opkit.cop.compiledir.private_fs import write_private
from opkit.cop.source.headers import header_facts


SUFFIX = ".depends.json"  # beside a compiled object until the entry is published


def dependency_args(obj: pathlib.Path) -> list[str]:
    """Return the compiler arguments that write the list of headers it opens, beside the object `obj`."""
    return ["-MMD", "-MF", str(obj.with_suffix(".d"))]


def parse_makefile(text: str) -> list[str]:
    """Return the prerequisites of a make rule as `-MMD` writes them (`\\ ` escapes a space)."""
    _, colon, rest = text.replace("\\\n", " ").partition(": ")
    if not colon:
        return []
    words, current, k = [], [], 0
    while k < len(rest):
        char = rest[k]
        if char == "\\" and k + 1 < len(rest) and rest[k + 1] in " #":
            current.append(rest[k + 1])
            k += 2
            continue
        if char.isspace():
            if current:
                words.append("".join(current))
            current = []
        elif char == "$" and rest[k + 1:k + 2] == "$":
            current.append("$")
            k += 1
        else:
            current.append(char)
        k += 1
    if current:
        words.append("".join(current))
    return words


def record(obj: pathlib.Path, source: pathlib.Path, left_out=()) -> None:
    """Turn the compiler's list of what it read for `obj` into `<obj>.depends.json` ({path: sha256})."""
    listing = obj.with_suffix(".d")
    try:
        text = listing.read_text(encoding="utf-8", errors="surrogateescape")
        listing.unlink()
    except OSError:
        return  # a compiler that writes no list (not gcc nor clang): the key's headers are all there is
    outside = tuple(os.path.join(os.path.realpath(d), "") for d in left_out)
    own = os.path.realpath(source)
    depends = {}
    for path in parse_makefile(text):
        real = os.path.realpath(path)  # a relative one is relative to the compiler's folder: this process's
        if real != own and not real.startswith(outside):
            depends[real] = file_digest(real)
    write_private(obj.with_name(obj.stem + SUFFIX), json.dumps(depends).encode("utf-8", "surrogateescape"),
                  sync=False)


def gather(directory: pathlib.Path) -> dict:
    """Return every header listed beside the objects built in `directory`, and remove those lists."""
    depends = {}
    for listing in sorted(directory.glob(f"*{SUFFIX}")):
        depends.update(json.loads(listing.read_bytes().decode("utf-8", "surrogateescape")))
        listing.unlink()
    return depends


def carry(depends: dict, directory: pathlib.Path, name: str) -> None:
    """Put a cached object's list of headers (from its meta.json) beside a build that links it."""
    write_private(directory / f"{name}{SUFFIX}", json.dumps(depends).encode("utf-8", "surrogateescape"), sync=False)


def file_digest(path: str) -> str | None:
    """Return the sha256 of the file `path` (None if it cannot be read); read once while its stat is unchanged."""
    try:
        return header_facts(path)[0]
    except OSError:
        return None


def changed(depends) -> str | None:
    """Return the first header of `depends` ({path: sha256}) that is not what it was, or None."""
    if not isinstance(depends, dict):
        return "its list of headers is damaged"
    for path, digest in depends.items():
        if file_digest(path) != digest:
            return path
    return None
