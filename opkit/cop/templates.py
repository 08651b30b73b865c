"""opkit's jinja2 templates (opkit/templates, where generated C is written): their environment, the module
templates' text, and the rendering of a macro.

A warm process imports no jinja2 (tests/reach/test_fresh_process.py): each rendered text is
kept in the cache directory (`host/rendered/`), named by a digest of the templates'
content, the macro and its values, so a process whose modules are all cached reads
the text back instead of rendering it. Values that are not plain data (str, int,
float, bool, None, lists, tuples, dicts) are rendered every time. The texts are a
memo, not modules: a process that is about to add one and finds more than MAX_KEPT
deletes them all (others render again), so the folder never grows without bound, and
a warm process, which adds none, never lists the folder.
"""

from __future__ import annotations

import functools
import os

from opkit.core.memo import BoundedMemo

MAX_KEPT = 20000  # rendered texts kept in the cache directory before a process clears them
_rendered = BoundedMemo(8192)  # (template, macro, values' repr) -> text, this process's


TEMPLATES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "templates")
_JINJA_OPTIONS = {"autoescape": False, "trim_blocks": True, "lstrip_blocks": True, "keep_trailing_newline": True}


@functools.lru_cache(maxsize=None)
def environment():
    """Return the jinja2 environment of opkit's templates (the module template's and every macro's)."""
    import jinja2

    return jinja2.Environment(loader=jinja2.PackageLoader("opkit", "templates"), undefined=jinja2.StrictUndefined,
                              bytecode_cache=_bytecode_cache(jinja2), **_JINJA_OPTIONS)


def _bytecode_cache(jinja2):
    """Return a cache of the compiled templates in <compiledir>/host/ (a process's first render then
    loads them instead of compiling them, 60-220 ms), or None where the cache directory is unusable.

    The folder is named by jinja2's and Python's versions and the environment's options; jinja2 checks
    each template's source against its checksum, so an edited template is compiled again.
    """
    import sys

    from opkit.cop.host import _host_dir
    from opkit.cop.private_fs import make_private_dirs
    from opkit.core.digest import sha256

    class QuietCache(jinja2.FileSystemBytecodeCache):
        def dump_bytecode(self, bucket):
            try:
                super().dump_bytecode(bucket)
            except OSError:  # a read-only cache: compile again in the next process
                pass

    facts = repr((jinja2.__version__, sys.version, sorted(_JINJA_OPTIONS.items()), "StrictUndefined"))
    try:
        directory = _host_dir() / f"jinja-{sha256(facts.encode()).hexdigest()[:16]}"
        make_private_dirs(directory)
    except (OSError, ValueError):
        return None
    return QuietCache(str(directory))


@functools.lru_cache(maxsize=None)
def module_template():
    """Return the template of a region's extension module (opkit.cop.codegen renders it)."""
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


def files_digest(directory) -> str:
    """Return a digest of the names and contents of the regular files directly in `directory`.

    Every file, not only `*.j2`: `{% include "tensor_extract.h" %}` puts a header's text
    into a rendered text, so an edited header must give the texts new names.
    """
    from opkit.core.digest import sha256

    digest = sha256()
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                digest.update(name.encode() + b"\0" + handle.read() + b"\0")
    return digest.hexdigest()


_PLAIN = (str, int, float, bool, type(None))


def _is_plain(value):
    """Return True if `value` is plain data (str, int, float, bool, None, lists, tuples, str-keyed dicts).

    Then its repr names it exactly (a tuple is not a list, 1 is not True nor 1.0).
    """
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in _PLAIN:
            continue
        if kind is list or kind is tuple:
            stack.extend(item)
        elif kind is dict:
            if not all(type(key) is str for key in item):
                return False
            stack.extend(item.values())
        else:
            return False
    return True


def _jinja_render(template, macro, values):
    return str(getattr(_module(template), macro)(**values))


def render(template, macro, values):
    """Return the text of `macro` in `template`, called with the keyword arguments `values`."""
    if not _is_plain(values):
        return _jinja_render(template, macro, values)
    plain = repr(sorted(values.items()))
    memo = (template, macro, plain)
    text = _rendered.get(memo)
    if text is None:
        text = _remembered(template, macro, plain, values)
        _rendered[memo] = text
    return text


@functools.lru_cache(maxsize=None)
def _rendered_dir():
    """Return the folder of rendered texts, or None where the cache directory is unusable."""
    from opkit.cop.host import _host_dir
    from opkit.cop.private_fs import make_private_dirs

    try:
        directory = _host_dir() / "rendered"
        make_private_dirs(directory)
    except (OSError, ValueError):  # no usable cache directory (opkit show with an unsafe one): render here
        return None
    return directory


@functools.lru_cache(maxsize=None)
def _bound(directory):
    """Empty `directory` if it holds more than MAX_KEPT texts: once a process, and only in one that adds a
    text (a warm process reads what it needs and lists nothing)."""
    try:
        with os.scandir(directory) as entries:
            names = [entry.name for entry in entries]
    except OSError:
        return
    if len(names) > MAX_KEPT:
        for name in names:
            try:
                os.unlink(directory / name)
            except OSError:
                pass


def _render_and_bound(directory, template, macro, values):
    _bound(directory)
    return _jinja_render(template, macro, values)


def _remembered(template, macro, plain, values):
    """Return the rendered text from the cache directory, or render it and keep it there."""
    from opkit.core.digest import sha256

    directory = _rendered_dir()
    if directory is None:
        return _jinja_render(template, macro, values)
    key = "\0".join([templates_digest(), template, macro, plain])
    path = directory / sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:40]
    from opkit.cop.private_fs import kept_text

    return kept_text(path, lambda: _render_and_bound(directory, template, macro, values))
