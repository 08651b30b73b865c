"""What a compiled artifact is made of: the request a compiler receives, and the one identity of it.

A `CompileRequest` is exactly what a compiler is given for one artifact: the texts it
compiles, the folders and arguments it finds headers through (so the bytes of every
header they include, found as the compiler finds them: opkit.cop.source.headers), the
op's libraries and arguments, and a `Toolchain`: the compiler, what code is generated
for, opkit's own flags, and the system (Python's ABI, numpy's C-API version and the
bytes of their headers: opkit.cop.toolchain.system_headers). `made_of(request)` lists its
parts; `request_key(request)` digests them. Every key is a request's:

- a module's in the module cache (`region_key`, `module_key`; an incremental chunk's): the host's toolchain;
- a shipped module's (opkit.cop.store.shipped.shipped_key): the same request with the shipping toolchain, portable;
- a precompiled header's (`pch_request`, opkit.cop.toolchain.pch): its header, with the host's toolchain;
- a node's CUDA kernels' (opkit.cop.kernels.kernel_request): NVRTC's; a shipped kernel's
  (opkit.gpu.shipped_kernels): the same request, portable;
- a node's code identity (pickle and Dask tokens, the eager memo: opkit.link.code_identity): the flags
  opkit's configuration asks for (`requested_toolchain`), no compiler and no system.

A portable request (a shipped module's) leaves out the compiler and every path: the
folders, the headers' locations and the folders of `#line` directives, which differ
from machine to machine. A part added to `made_of` is in every key
(tests/cop/test_identity_parts.py); tests/cop/test_one_identity.py changes each input
of a request, one at a time, and checks every key that covers it.
"""

from __future__ import annotations

import os
import re
from typing import Callable, NamedTuple

from opkit.config import config
from opkit.cop.generate.templates import template_text
from opkit.cop.toolchain.compiler import find_compiler, numpy_c_api_version, python_abi
from opkit.cop.toolchain.flags import build_flags, module_flags
from opkit.cop.toolchain.host import native_target
from opkit.cop.toolchain.system_headers import system_headers_digest
from opkit.cop.compiledir.layout import CACHE_FORMAT
from opkit.cop.source.headers import found_headers, pre_included, search_dirs
from opkit.core.digest import sha256

# `#line 12 "/abs/path/op.c"` names where the source was when the module was built: a portable identity
# keeps the file name only.
_LINE_PATH = r'(#line \d+ ")([^"\n]*/)?([^"\n/]*")'
# What makes the compiler generate code for this host's CPU, whatever it is: resolved by the toolchain's compiler.
_NATIVE = ("-march=native", "-mcpu=native", "-mtune=native")

# Options whose value is a folder (searched for headers or libraries): a portable identity leaves them out.
_FOLDER_OPTIONS = ("-isystem", "-idirafter", "-iquote", "-I", "-L")

# Memos keyed by a module's whole text (equal text, equal value; nothing else is trusted): the text its
# headers are searched in, and the key's digest state after the text (both cost a recompile ~0.1-0.5 ms).
_MEMO_SIZE = 64
_PREFIX_MEMO_FROM = 4096
_code_texts: dict = {}
_prefixes: dict = {}


class Toolchain(NamedTuple):
    """What a build takes from the machine and from opkit's configuration (empty where a key does not cover it)."""

    tool: str = ""  # the compiler: its resolved path, version line and the other words of its command; NVRTC's version
    target: tuple = ()  # what code is generated for, beyond the flags: NVRTC's -arch
    compile_args: tuple = ()  # opkit's compile flags (opkit.cop.toolchain.flags.module_flags), before the op's
    link_args: tuple = ()
    system: tuple = ()  # Python's ABI, numpy's C-API version and the digest of their headers' bytes
    compiler: object = None  # the Compiler asked what -march=native stands for here (None: a key that cannot ask)


class CompileRequest(NamedTuple):
    """Exactly what a compiler receives for one artifact (see the module docstring)."""

    sources: tuple  # the texts compiled (a portable request's without the folders of its #line directives)
    include_dirs: tuple = ()  # the op's header folders (-I; NVRTC's include paths)
    compile_args: tuple = ()  # the op's arguments (NVRTC's options)
    library_dirs: tuple = ()
    libraries: tuple = ()
    toolchain: Toolchain = Toolchain()
    search: tuple | None = None  # (quoted folders, every folder) headers are found in; None: g++'s (search_dirs)
    code_text: Callable[[], str] | None = None  # the text whose includes are followed (None: the sources)
    portable: bool = False


def made_of(request: CompileRequest) -> list:
    """Return the parts a request is made of (strings): its sources, its headers' bytes, its toolchain and settings.

    The headers are those the sources include (and those the arguments pre-include),
    found where the compiler finds them. A portable request leaves out the compiler and
    every path.
    """
    toolchain = request.toolchain
    arguments = (*toolchain.compile_args, *request.compile_args)
    text = request.code_text() if request.code_text is not None else "\n".join(request.sources)
    pre = pre_included(arguments)
    quoted, every = request.search if request.search is not None else \
        search_dirs(request.include_dirs, request.compile_args)
    headers = found_headers(pre + text, quoted, every, with_paths=not request.portable)
    target = toolchain.target
    if toolchain.compiler is not None and any(argument in _NATIVE for argument in arguments):
        target = (*target, native_target(toolchain.compiler))
    named = _without_folders if request.portable else tuple
    parts = [*request.sources, f"{len(request.sources)} sources, {len(headers)} headers", *headers,
             repr(toolchain.system), repr(named(toolchain.compile_args)), repr(named(toolchain.link_args)),
             repr(tuple(target)), repr(tuple(request.libraries)), repr(named(request.compile_args))]
    if not request.portable:
        parts += [toolchain.tool, repr(tuple(request.include_dirs)), repr(tuple(request.library_dirs))]
    return parts


def request_key(request: CompileRequest, tag: str | None = None) -> str:
    """Return the key of `request` (cache_key of made_of), after `tag` (a key's format) if given."""
    parts = made_of(request)
    return cache_key(tag, *parts) if tag is not None else cache_key(*parts)


def _without_folders(arguments) -> tuple:
    """Return `arguments` less those naming a folder (-I, -isystem, -idirafter, -iquote, -L, NVRTC's
    --include-path=) and their values, and with a pre-included file's name only: a portable identity holds the
    bytes of the headers found there, not where they are."""
    kept, after = [], None
    for argument in arguments:
        if after is not None:
            if after == "-include":
                kept.append(os.path.basename(argument))
            after = None
        elif argument in (*_FOLDER_OPTIONS, "-include"):
            after = argument
            if argument == "-include":
                kept.append(argument)
        elif argument.startswith(("--pre-include=", "-include=")):
            option, _, name = argument.partition("=")
            kept.append(f"{option}={os.path.basename(name)}")
        elif not argument.startswith((*_FOLDER_OPTIONS, "--include-path=")):
            kept.append(argument)
    return tuple(kept)


# ---- toolchains ----

def host_toolchain(compiler=None, flags=None, python_dirs=None) -> Toolchain:
    """Return this machine's toolchain: the compiler (find_compiler), opkit's flags (build_flags), Python's ABI,
    numpy's C-API version and the bytes of their headers (of `python_dirs`: default, python_include_dirs())."""
    compiler = find_compiler() if compiler is None else compiler
    compile_args, link_args = build_flags() if flags is None else flags
    return Toolchain(tool="\0".join((compiler.identity, *compiler.command[1:])), compile_args=tuple(compile_args),
                     link_args=tuple(link_args), system=system_parts(python_dirs), compiler=compiler)


def system_parts(python_dirs=None) -> tuple[str, ...]:
    """Return what a module takes from Python and numpy: the ABI, the C-API version and their headers' bytes."""
    return (python_abi(), numpy_c_api_version(), system_headers_digest(python_dirs))


def requested_toolchain() -> Toolchain:
    """Return the toolchain opkit's configuration asks for, known without a compiler: its flags only (a token's)."""
    compile_args, link_args = module_flags(config.march, bool(config.openmp))
    return Toolchain(compile_args=compile_args, link_args=link_args)


# ---- requests ----

def _portable(text):
    """Return `text` with the folders of its `#line` directives left out."""
    return re.sub(_LINE_PATH, r"\1\3", text) if "#line" in text else text


def region_request(parts, toolchain: Toolchain, *, portable=False) -> CompileRequest:
    """Return the request of a region's module, from the parts it renders from (no rendering).

    The template's text and every code string of every op and type are its source.
    """
    content = template_text() + "\0" + parts.content()
    code_text = _code_texts.get(content)
    if code_text is None:
        code_text = _remember(_code_texts, content, parts.code_text())
    if portable:
        content = _portable(template_text()) + "\0" + parts.content(_portable)
    return CompileRequest((content,), tuple(parts.include_dirs), tuple(parts.compile_args),
                          tuple(parts.library_dirs), tuple(parts.libraries), toolchain,
                          code_text=lambda: code_text, portable=portable)


def generated_request(generated, toolchain: Toolchain) -> CompileRequest:
    """Return the request of a rendered module (or an incremental build's chunk)."""
    return CompileRequest((generated.source,), tuple(generated.include_dirs), tuple(generated.compile_args),
                          tuple(generated.library_dirs), tuple(generated.libraries), toolchain)


def pch_request(text: str, compiler, compile_args, python_dirs) -> CompileRequest:
    """Return the request of a precompiled header `text` built by `compiler` with `compile_args` and -I `python_dirs`.

    The bytes of every header in `python_dirs` (Python's and numpy's) are the toolchain's
    (system_parts); the other folders the arguments name are searched as g++ does.
    """
    toolchain = host_toolchain(compiler, (tuple(compile_args), ()), python_dirs)
    return CompileRequest((text,), tuple(python_dirs), toolchain=toolchain, search=search_dirs((), compile_args))


# ---- keys ----

def module_key(generated, toolchain=None):
    """Return the cache key of generated source (a module, or an incremental build's chunk)."""
    return request_key(generated_request(generated, host_toolchain() if toolchain is None else toolchain))


def region_key(parts, toolchain=None):
    """Return the cache key of a region's module from the parts it renders from (no rendering).

    An edited op, a redefined class or another constant baked into c_code gives
    another key; nothing trusts a version number alone.
    """
    return request_key(region_request(parts, host_toolchain() if toolchain is None else toolchain))


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
