"""opkit's jinja2 templates (opkit/templates, where generated C is written): their environment, the module
templates' text, and the rendering of a macro.

A warm process imports no jinja2 (tests/reach/test_fresh_process.py): each rendered text is
kept in the cache directory (opkit.cop.compiledir.text_memo), named by a digest of the templates'
content, the macro and its values, so a process whose modules are all cached reads
the text back instead of rendering it. Values that are not plain data (str, int,
float, bool, None, lists, tuples, dicts) are rendered every time.
"""

from __future__ import annotations

import functools
import os

from opkit.cop.compiledir.layout import jinja_dir
from opkit.cop.compiledir.private_fs import read_sealed
from opkit.cop.compiledir.text_memo import is_plain, keep_later, kept
from opkit.core.digest import sha256
from opkit.core.memo import BoundedMemo

_rendered = BoundedMemo(8192)  # (template, macro, values' repr) -> text, this process's


TEMPLATES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "templates")
_JINJA_OPTIONS = {"autoescape": False, "trim_blocks": True, "lstrip_blocks": True, "keep_trailing_newline": True}


@functools.lru_cache(maxsize=None)
def environment():
    """Return the jinja2 environment of opkit's templates (the module template's and every macro's)."""
    import jinja2

    return jinja2.Environment(loader=jinja2.PackageLoader("opkit", "templates"), undefined=jinja2.StrictUndefined,
                              bytecode_cache=_bytecode_cache(jinja2), **_JINJA_OPTIONS)


def _bytecode_cache(jinja2):
    """Return a cache of the compiled templates in <compiledir>/host/ (a process's first render then
    loads them instead of compiling them, 60-220 ms). What jinja2 compiles is written once a module's key
    exists (opkit.cop.compiledir.text_memo.flush): generating code writes nothing to the cache directory.

    The folder is named by jinja2's and Python's versions and the environment's options; jinja2 checks
    each template's source against its checksum, so an edited template is compiled again. The bytecode
    itself is kept sealed (opkit.cop.compiledir.private_fs.sealed): a file damaged on disk is compiled again,
    never run.
    """
    import sys

    class SealedCache(jinja2.BytecodeCache):
        def __init__(self, directory):
            self.directory = directory

        def _path(self, bucket):
            return os.path.join(self.directory, f"{bucket.key}.cache")

        def load_bytecode(self, bucket):
            data = read_sealed(self._path(bucket))
            if data is not None:  # jinja2 still checks the template's checksum, and resets the bucket
                bucket.bytecode_from_string(data)

        def dump_bytecode(self, bucket):  # written once a module's key exists (text_memo.flush), or at exit
            keep_later(self._path(bucket), bucket.bytecode_to_string())

    facts = repr((jinja2.__version__, sys.version, sorted(_JINJA_OPTIONS.items()), "StrictUndefined", "sealed"))
    return SealedCache(str(jinja_dir(sha256(facts.encode()).hexdigest()[:16])))


@functools.lru_cache(maxsize=None)
def module_template():
    """Return the template of a region's extension module (opkit.cop.generate.codegen renders it)."""
    return environment().get_template("module.cpp.j2")


@functools.lru_cache(maxsize=None)
def node_template():
    """Return the template of a chunk of nodes compiled on its own (see opkit.cop.incremental)."""
    return environment().get_template("node.cpp.j2")


@functools.lru_cache(maxsize=None)
def template_text() -> str:
    """Return the module templates' own text (part of every region module's identity).

    The files are read directly: importlib.resources costs the warm path milliseconds.
    """
    return "\0".join(template_file(name) for name in ("module.cpp.j2", "threads.inc.j2", "node.cpp.j2"))


@functools.lru_cache(maxsize=None)
def template_file(name) -> str:
    """Return the text of one of opkit's code templates (module, node, what they include)."""
    with open(os.path.join(TEMPLATES, name), encoding="utf-8") as handle:
        return handle.read()


@functools.lru_cache(maxsize=None)
def _module(template):
    return environment().get_template(template).module


@functools.lru_cache(maxsize=None)
def templates_digest():
    """Return a digest of every file in opkit/templates: a template may import or include any of them."""
    return files_digest(TEMPLATES)


@functools.lru_cache(maxsize=None)
def template_digest(name) -> str:
    """Return a digest of the template `name` and of every file it includes, imports or extends, at any depth.

    Where one of them names a template by an expression (not a literal name), or a named
    file cannot be read, the digest is templates_digest(): every file of opkit/templates.
    """
    digest = closure_digest(name, template_file)
    return templates_digest() if digest is None else digest


def closure_digest(name, read):
    """Return a digest of the names and texts (`read(name)`) of `name` and the templates it refers to, at any
    depth; None when a reference is not a literal name or a text cannot be read."""
    texts, pending = {}, [name]
    while pending:
        current = pending.pop()
        if current in texts:
            continue
        try:
            texts[current] = read(current)
        except (OSError, ValueError, KeyError):
            return None
        references = referenced_templates(texts[current])
        if references is None:
            return None
        pending.extend(references)
    digest = sha256()
    for current in sorted(texts):
        digest.update(current.encode() + b"\0" + texts[current].encode("utf-8", "surrogateescape") + b"\0")
    return digest.hexdigest()


_REFERRING = ("include", "import", "from", "extends")
_AFTER_NAME = ("import", "as", "ignore", "with", "without")  # what may follow a literal name in those statements


def referenced_templates(text):
    """Return the names of the templates `text` includes, imports or extends, or None where one of them is
    named by an expression (a variable, a list, a concatenation) rather than a string literal alone.

    Plain string scanning: compiling a regular expression would cost a warm process more than the scan.
    """
    names = set()
    start = text.find("{%")
    while start >= 0:
        end = text.find("%}", start + 2)
        words = text[start + 2:len(text) if end < 0 else end].strip("-+").split(None, 1)
        if words and words[0] in _REFERRING:
            argument = words[1] if len(words) > 1 else ""
            quote = argument[:1]
            close = argument.find(quote, 1) if quote in ("'", '"') else -1
            rest = argument[close + 1:].split(None, 1) if close > 0 else None
            if rest is None or "\\" in argument[:close] or (rest and rest[0] not in _AFTER_NAME):
                return None
            names.add(argument[1:close])
        start = text.find("{%", start + 2)
    return names


def files_digest(directory) -> str:
    """Return a digest of the names and contents of the regular files directly in `directory`.

    Every file, not only `*.j2`: `{% include "tensor_extract.h" %}` puts a header's text
    into a rendered text, so an edited header must give the texts new names.
    """
    digest = sha256()
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                digest.update(name.encode() + b"\0" + handle.read() + b"\0")
    return digest.hexdigest()


def _jinja_render(template, macro, values):
    return str(getattr(_module(template), macro)(**values))


def render(template, macro, values):
    """Return the text of `macro` in `template`, called with the keyword arguments `values`."""
    if not is_plain(values):
        return _jinja_render(template, macro, values)
    plain = repr(sorted(values.items()))
    memo = (template, macro, plain)
    text = _rendered.get(memo)
    if text is None:
        text = _remembered(template, macro, plain, values)
        _rendered[memo] = text
    return text


def _remembered(template, macro, plain, values):
    """Return the rendered text from the cache directory, or render it and keep it there."""
    key = "\0".join([template_digest(template), template, macro, plain])
    return kept(key, lambda: _jinja_render(template, macro, values))
