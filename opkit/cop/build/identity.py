"""What a compiled module is made of: the one list every key of a module is a digest of.

`made_of` returns the parts (strings and bytes) of a module's identity: its code,
the bytes of every header its code includes from the folders the compiler will
search, the toolchain (`toolchain_parts`) and the build settings. Every key is
`cache_key` of it: the module cache's (`region_key`, `module_key`), an
incremental chunk's (opkit.cop.incremental, `module_key`), a shipped module's
(opkit.cop.store.shipped.shipped_key, a portable `region_made_of`) and a node's
code identity (opkit.link.code_identity, `region_made_of` without the toolchain).
A part added to `made_of` is in every one of them (tests/cop/test_identity_parts.py).

The headers its code includes are found as the compiler finds them (opkit.cop.build.headers).
"""

from __future__ import annotations

import re

from opkit.cop.build.compiler import find_compiler, toolchain_fingerprint
from opkit.cop.build.extension import build_flags
from opkit.cop.build.headers import local_headers
from opkit.cop.build.host import native_target
from opkit.cop.compiledir.layout import CACHE_FORMAT
from opkit.core.digest import sha256

# `#line 12 "/abs/path/op.c"` names where the source was when the module was built: a portable identity
# keeps the file name only.
_LINE_PATH = re.compile(r'(#line \d+ ")([^"\n]*/)?([^"\n/]*")')

# Memos keyed by a module's whole text (equal text, equal value; nothing else is trusted): the text its
# headers are searched in, and the key's digest state after the text (both cost a recompile ~0.1-0.5 ms).
_MEMO_SIZE = 64
_PREFIX_MEMO_FROM = 4096
_code_texts: dict = {}
_prefixes: dict = {}


def _portable(text):
    """Return `text` with the folders of its `#line` directives left out."""
    return _LINE_PATH.sub(r"\1\3", text) if "#line" in text else text


def made_of(content, code_text, include_dirs, library_dirs, libraries, compile_args, toolchain,
            *, portable=False) -> list:
    """Return the parts a module is made of: its code, its headers' bytes, the toolchain and its settings.

    `content`: the module's canonical text; `code_text()`: the code its includes are
    found in; `toolchain`: the parts the compiler, ABI and flags give. A portable
    identity (a shipped module's, a node's) leaves out every path: the headers'
    locations and the folders, which differ from machine to machine.
    """
    headers = local_headers(code_text(), include_dirs, compile_args, with_paths=not portable)
    settings = [repr(list(libraries)), repr(list(compile_args))]
    if not portable:
        settings = [repr(list(include_dirs)), repr(list(library_dirs)), *settings]
    return [content, *headers, *toolchain, *settings]


def region_made_of(parts, toolchain, *, portable=False) -> list:
    """Return what a region's module is made of, from the parts it renders from (see made_of).

    The template's text and every code string of every op and type are in it. A portable
    identity names the files of its `#line` directives without their folders.
    """
    from opkit.cop.generate.templates import template_text

    content = template_text() + "\0" + parts.content()
    code_text = _code_texts.get(content)
    if code_text is None:
        code_text = _remember(_code_texts, content, parts.code_text())
    if portable:
        content = _portable(template_text()) + "\0" + parts.content(_portable)
    return made_of(content, lambda: code_text, parts.include_dirs, parts.library_dirs, parts.libraries,
                   parts.compile_args, toolchain, portable=portable)


def generated_made_of(generated, toolchain) -> list:
    """Return what a rendered module (or an incremental build's chunk) is made of (see made_of)."""
    return made_of(generated.source, lambda: generated.source, generated.include_dirs, generated.library_dirs,
                   generated.libraries, generated.compile_args, toolchain)


def toolchain_parts():
    """Return what a module's identity takes from the toolchain: compiler, ABI, numpy, flags.

    With `-march=native`, the CPU features it stands for on this host are part
    of it too: a module built for another CPU is another module.
    """
    compile_args, link_args = build_flags()
    target = (native_target(find_compiler()),) if "-march=native" in compile_args else ()
    return (*toolchain_fingerprint(), *compile_args, *link_args, *target)


def cache_key(*parts) -> str:
    """Hash strings and bytes, with CACHE_FORMAT, into a stable hex key (never Python's hash())."""
    # A module's code (the first or, after a format tag, the second part) is hashed again at every recompile
    # of the same graph: the digest's state after it is kept, keyed by the parts up to it themselves (not a
    # version or an object's identity), and copied.
    for end, part in enumerate(parts[:2], start=1):
        if not isinstance(part, (str, bytes)):
            break
        if len(part) >= _PREFIX_MEMO_FROM:
            head = tuple((type(p), p) for p in parts[:end])
            prefix = _prefixes.get(head)
            if prefix is None:
                prefix = _remember(_prefixes, head, _hashed(sha256(CACHE_FORMAT.encode()), parts[:end]))
            return _hashed(prefix.copy(), parts[end:]).hexdigest()
    return _hashed(sha256(CACHE_FORMAT.encode()), parts).hexdigest()


def _hashed(digest, parts):
    """Feed `parts` into `digest`, each with its length; return `digest`."""
    for part in parts:
        if isinstance(part, str):
            # surrogateescape: a path's bytes that are not UTF-8 (lone surrogates in Python) hash as those bytes
            part = part.encode("utf-8", "surrogateescape")
        elif not isinstance(part, (bytes, bytearray, memoryview)):
            raise TypeError(f"cache_key parts must be str or bytes, not {type(part).__name__}")
        data = bytes(part)
        # The length prefix keeps ("ab", "c") and ("a", "bc") apart.
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest


def _remember(memo, key, value):
    """Store `value` under `key` in a bounded memo and return it."""
    if len(memo) >= _MEMO_SIZE:
        memo.clear()
    memo[key] = value
    return value


def module_key(generated, toolchain=None):
    """Return the cache key of generated source (a module, or an incremental build's chunk)."""
    return cache_key(*generated_made_of(generated, toolchain_parts() if toolchain is None else toolchain))


def region_key(parts, toolchain=None):
    """Return the cache key of a region's module from the parts it renders from (no rendering).

    An edited op, a redefined class or another constant baked into c_code gives
    another key; nothing trusts a version number alone.
    """
    return cache_key(*region_made_of(parts, toolchain_parts() if toolchain is None else toolchain))
