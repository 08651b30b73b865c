"""The build side: a module opkit.cop.compile found nowhere, built (`build_module`), whole or, for a big graph,
linked from cached objects of a few nodes each (incremental builds). opkit.cop.compile imports this module
only to build: what it imports (the compilers' commands, the precompiled header, lint) a process that loads
cached modules never does.

Each node whose variables the glue can hand over (see `_separable`) is rendered
on its own, with local names (inputs I0.., outputs O0..; see NODE_NAME), as a
piece. The pieces, in graph order, are cut into chunks at points their contents
choose (see CHUNK_MEAN); a chunk's distinct pieces are one translation unit
(templates/node.cpp.j2) keyed like a module: its text, the headers it includes,
its flags and the toolchain. Its object lives in the cache
(opkit.cop.store.objects), so a graph that differs from a cached one by a few
nodes compiles only the chunks holding those. The module itself is the glue (templates/module.cpp.j2 with `states`):
extract the inputs, call each node's object on its variables' addresses, sync,
clean up; it is compiled and linked with the objects under the region's key.

A node stays in the glue (compiled there, as in a whole-module build) when a type
of its variables is not known to declare a single C variable, or its code reads
a variable's Python object (py_<name>). A build that fails here (say, two node
objects defining the same non-static function) is built again as one module,
which reports the error, if any, as a whole-module build always has.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
import pathlib
import re

from opkit.config import config, usable_cores
from opkit.core.cdata_type import CDataType
from opkit.core.enum_type import EnumType
from opkit.core.scalar_type import ScalarType
from opkit.core.tensor.types.c_interface import TensorCInterface
from opkit.core.type import Generic
from opkit.cop.generate.apply_support import chunk_apply_support
from opkit.cop.toolchain.compiler import find_compiler, python_include_dirs
from opkit.cop.toolchain.extension import LINK_TOO, build_extension, build_flags, compile_object, link_extension
from opkit.cop.toolchain.identity import cache_key, module_key
from opkit.cop.toolchain.pch import pch_args
from opkit.cop.compiledir.layout import read_meta
from opkit.cop.compiledir.private_fs import CacheNotWritableError
from opkit.cop.store.objects import link_copy, object_cache
from opkit.cop.generate.cinterface import call, include_line, node_c_code
from opkit.cop.generate.codegen import (MODULE_NAME_PLACEHOLDER, QUICK_RUN_ABOVE, GeneratedModule, collect_module,
                               render_parts, restore_line_numbers)
from opkit.cop.toolchain.depends import carry
from opkit.cop.generate.node_code import Collector, unique
from opkit.cop.generate.templates import node_template
from opkit.errors import CompileError
from opkit.logs import log_info

# A region of more nodes than this is built incrementally (config.incremental); a small one is
# cheaper as one module (one compiler run instead of an object, the glue and a link).
INCREMENTAL_ABOVE = QUICK_RUN_ABOVE
# The linker flag that keeps the first of several definitions of a name (GNU ld, gold, lld).
MULTIPLE_DEFINITIONS = "-Wl,--allow-multiple-definition"
_READS_PY_OBJECT = re.compile(r"\bpy_[IO]\d+\b")
_SUB = {"fail": "{ __failure = 1; goto __label_1; }", "id": 1}


# A node's code is rendered under this name, replaced by its place in a chunk (node0, node1, ...):
# names made from it (APPLY_SPECIFIC) stay apart in a chunk of several nodes.
NODE_NAME = "OPKIT_NODE_NAME"
# Content-defined chunks: a chunk ends after a node whose identity hash is 0 modulo CHUNK_MEAN, or at
# CHUNK_MOST nodes. A node edited, added or removed changes its own chunk; the cut points elsewhere,
# hence the other chunks and their objects, stay. Each chunk costs a compiler start (the precompiled
# Python and numpy headers alone take about 0.2 s), so a chunk holds several nodes.
CHUNK_MEAN = 8
CHUNK_MOST = 16


@dataclasses.dataclass
class NodePiece:
    """One node's C, rendered under NODE_NAME with local variable names, and what it needs to build."""

    fields: dict  # the node's entry of templates/node.cpp.j2 (its name still NODE_NAME)
    headers: list
    support_code: list
    support_code_apply: list
    init_code: list
    header_dirs: list
    lib_dirs: list
    libraries: list
    compile_args: list
    no_compile_args: list
    identity: str  # a hash of all of the above: equal pieces are one entry of a chunk


@dataclasses.dataclass
class Chunk:
    """A few nodes' pieces compiled into one object; its entry points are `<symbol>_<k>_run` & co."""

    pieces: list
    generated: GeneratedModule
    key: str
    description: str

    @property
    def symbol(self) -> str:
        return f"opkit_c_{self.key[:32]}"


@dataclasses.dataclass
class Entry:
    """What the glue calls for one node: a chunk's entry point `symbol` (make, run, free).

    The node's c_code_cleanup runs inside its run, in c_code's block."""

    symbol: str


def _single_declares():
    """Return the c_declare methods known to declare exactly one C variable named `name` (and typedefs)."""
    return {cls.c_declare for cls in (CDataType, EnumType, ScalarType, TensorCInterface, Generic)}


def _separable(node, declares) -> bool:
    return all(getattr(type(v.type), "c_declare", None) in declares for v in node.inputs + node.outputs)


def node_piece(node, target=None) -> NodePiece | None:
    """Render `node` for a chunk (generated for `target`, its region's); None if its code reads a variable's
    Python object (py_<name>)."""
    op = node.op
    params_type = getattr(op, "params_type", None)
    inputs = [f"I{k}" for k in range(len(node.inputs))]
    outputs = [f"O{k}" for k in range(len(node.outputs))]
    sub = dict(_SUB, params="params") if params_type is not None else dict(_SUB)
    code = node_c_code(op, node, NODE_NAME, inputs, outputs, sub)
    cleanup = call(op, "c_code_cleanup", node, NODE_NAME, inputs, outputs, dict(sub), default="") or ""
    if _READS_PY_OBJECT.search(code) or _READS_PY_OBJECT.search(cleanup):
        return None
    collected = Collector(target=target)
    collected.add_op(op, node, NODE_NAME, "params" if params_type is not None else None)
    params = None
    if params_type is not None:
        collected.add_type(params_type)
        psub = {"fail": "{ return -1; }"}
        params = dict(declare=call(params_type, "c_declare", "params", psub, check_input=True, default=""),
                      init=call(params_type, "c_init", "params", psub, default=""),
                      extract=call(params_type, "c_extract", "params", psub, check_input=True, default=""),
                      cleanup=call(params_type, "c_cleanup", "params", psub, default=""))
    names = inputs + outputs
    for variable in node.inputs + node.outputs:
        collected.add_type(variable.type)
    if not collected.versioned:
        return None
    variables = [dict(name=name, declare=call(v.type, "c_declare", name, dict(_SUB), check_input=True, default=""))
                 for name, v in zip(names, node.inputs + node.outputs)]
    fields = dict(params=params, struct_support=collected.struct_support, struct_init=collected.struct_init[0],
                  struct_cleanup=collected.struct_cleanup[0], variables=variables, code=code, cleanup=cleanup,
                  init_apply=collected.init_code_apply)
    piece = NodePiece(fields, unique(collected.headers), unique(collected.support_code),
                      collected.support_code_apply, unique(collected.init_code),
                      unique(collected.header_dirs), unique(collected.lib_dirs), unique(collected.libraries),
                      unique(collected.compile_args), unique(collected.no_compile_args), "")
    piece.identity = cache_key(repr(dataclasses.astuple(piece)))
    return piece


def _named(value, name):
    """Return `value` (text, or lists and dicts of it) with NODE_NAME replaced by `name`."""
    if isinstance(value, str):
        return value.replace(NODE_NAME, name)
    if isinstance(value, dict):
        return {k: _named(v, name) for k, v in value.items()}
    if isinstance(value, list):
        return [_named(v, name) for v in value]
    return value


def make_chunk(pieces) -> Chunk:
    """Render distinct pieces into one translation unit; return the chunk with its key."""
    nodes, before, init_code = [], [], []
    for k, piece in enumerate(pieces):
        name = f"node{k}"
        fields = _named(piece.fields, name)
        # Each node's apply support code in its own namespace (opkit.cop.generate.apply_support), its init code using it.
        support, hoisted = chunk_apply_support(_named(piece.support_code_apply, name), name, piece.header_dirs)
        nodes.append(dict(fields, name=name, support_apply=support))
        before += hoisted
        init_code += piece.init_code + [f"using namespace {name};\n{code}" for code in fields["init_apply"]]
    every = lambda attribute: unique([x for p in pieces for x in getattr(p, attribute)])  # noqa: E731
    no_args = set(every("no_compile_args"))
    source = node_template().render(
        symbol=MODULE_NAME_PLACEHOLDER, include_lines=[include_line(h) for h in every("headers")],
        support_code=every("support_code") + unique(before), nodes=nodes, init_code=unique(init_code))
    generated = GeneratedModule(restore_line_numbers(source), every("header_dirs"), every("lib_dirs"),
                                every("libraries"), [a for a in every("compile_args") if a not in no_args])
    return Chunk(list(pieces), generated, module_key(generated), f"{len(pieces)} node(s)")


def chunk_pieces(pieces) -> list:
    """Cut a sequence of pieces into chunks at content-defined points (see CHUNK_MEAN)."""
    chunks, current = [], []
    for piece in pieces:
        current.append(piece)
        if int(piece.identity[:8], 16) % CHUNK_MEAN == 0 or len(current) >= CHUNK_MOST:
            chunks.append(current)
            current = []
    if current:
        chunks.append(current)
    return chunks


def build_module(generated, name, tmp_dir, incremental=None):
    """Build `generated` as the module `name` in `tmp_dir` and return its shared object; `incremental(tmp_dir,
    name)` (incremental_builder's), if given, links it from node objects instead.

    An incremental build that fails (a compile error, a lock waited for too long,
    an object cache that cannot be written), unless a compiler ran past
    config.compile_timeout, is done again as one module: the error a user sees,
    if any, is the whole module's.
    """
    if incremental is not None:
        try:
            return incremental(tmp_dir, name)
        except (CompileError, CacheNotWritableError) as exc:  # a cache bypassed for a damaged entry, say
            if getattr(exc, "timed_out", None) is not None:
                raise
            log_info("incremental build of %s failed, building it as one module:\n%s", name, exc)
            (pathlib.Path(tmp_dir) / f"{name}.log").unlink(missing_ok=True)
    return build_extension(generated.with_name(name), name, tmp_dir, include_dirs=generated.include_dirs,
                           library_dirs=generated.library_dirs, libraries=generated.libraries,
                           extra_compile_args=generated.compile_args)


def incremental_builder(region, parts):
    """Return `build(tmp_dir, module_name) -> shared object` linking `region` from chunk objects, or None.

    None when the region is small, incremental builds are off, or no node can be
    compiled on its own.
    """
    if not config.incremental or not parts.versioned or len(region.nodes) <= INCREMENTAL_ABOVE:
        return None
    declares = _single_declares()
    pieces = {}
    for index, node in enumerate(region.nodes):
        if _separable(node, declares):
            piece = node_piece(node, region.target)
            if piece is not None:
                pieces[index] = piece
    if not pieces:
        return None
    entries, chunks = {}, {}
    for group in chunk_pieces(list(pieces.values())):
        distinct = list({p.identity: p for p in group}.values())
        chunk = make_chunk(distinct)
        chunk = chunks.setdefault(chunk.key, chunk)
        for k, piece in enumerate(distinct):
            entries[piece.identity] = Entry(f"{chunk.symbol}_{k}")
    external = {index: entries[piece.identity] for index, piece in pieces.items()}
    glue = render_parts(collect_module(region, external=external, setups=[c.symbol for c in chunks.values()],
                                       external_declares=declares))
    every = [glue, *(c.generated for c in chunks.values())]

    def build(tmp_dir, module_name):
        def compile_glue():
            return compile_object(glue.with_name(module_name), module_name, tmp_dir,
                                  include_dirs=glue.include_dirs, extra_compile_args=glue.compile_args)

        # The glue names the chunks' entry points only: it compiles beside them.
        objects, glue_object = ensure_objects(list(chunks.values()), also=compile_glue)
        local = [link_copy(path, tmp_dir) for path in objects]
        for chunk, path in zip(chunks.values(), objects):  # the headers each object was compiled from
            try:
                carry(read_meta(path.parent).get("depends", {}), pathlib.Path(tmp_dir), chunk.symbol)
            except (OSError, ValueError) as exc:  # evicted meanwhile: built as one module instead
                raise CompileError(f"the object {path} cannot be linked: its meta.json cannot be read ({exc})"
                                   ) from exc

        def link(*extra):
            return link_extension([glue_object, *local], module_name, tmp_dir,
                                  library_dirs=unique([d for g in every for d in g.library_dirs]),
                                  libraries=unique([name for g in every for name in g.libraries]),
                                  extra_link_args=[*extra, *unique([a for g in every for a in g.compile_args
                                                                     if a in LINK_TOO])])
        try:
            try:
                return link()
            except CompileError as exc:
                if "multiple definition of" not in (getattr(exc, "output", "") or ""):
                    raise
            # Support code that defines a function or a variable (not static) is in every chunk that
            # needs it. If the module is valid C++ as one file, each name has one definition there:
            # the chunks' copies are that same text, and the link keeps one of each.
            (pathlib.Path(tmp_dir) / f"{module_name}.log").unlink(missing_ok=True)
            whole = render_parts(parts)
            compile_object(whole.with_name(module_name), f"{module_name}_whole", tmp_dir,
                           include_dirs=whole.include_dirs, extra_compile_args=whole.compile_args, syntax_only=True)
            (pathlib.Path(tmp_dir) / f"{module_name}_whole.cpp").unlink(missing_ok=True)
            return link(MULTIPLE_DEFINITIONS)
        finally:
            for path in (glue_object, *local):
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass

    return build


def ensure_objects(chunks, also=None):
    """Return each chunk's cached object file, and what `also()` returns (None without it).

    The missing objects are compiled in parallel, one compiler per core, `also`
    (the glue's compile) among them.
    """
    cache = object_cache()
    paths = {}
    missing = []
    for chunk in chunks:
        found = cache.lookup(chunk.key, chunk.symbol)
        if found is None:
            missing.append(chunk)
        else:
            paths[chunk.key] = found
    if missing:
        pch_args(find_compiler(), build_flags()[0], python_include_dirs())  # built once, before the threads

    def build_one(chunk):
        def build(tmp_dir):
            generated = chunk.generated
            return compile_object(generated.with_name(chunk.symbol), chunk.symbol, tmp_dir,
                                  include_dirs=generated.include_dirs, extra_compile_args=generated.compile_args)
        return cache.get_or_build(chunk.key, build, module_name=chunk.symbol,
                                  extra_meta={"description": chunk.description, "kind": "chunk of nodes"})

    jobs = [(chunk.key, lambda chunk=chunk: build_one(chunk)) for chunk in missing]
    if also is not None:
        jobs.append((None, also))
    workers = max(1, min(len(jobs), usable_cores()))
    results = {}
    if workers == 1:
        for key, job in jobs:
            results[key] = job()
    else:
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            futures = [(key, pool.submit(job)) for key, job in jobs]
            for key, future in futures:
                results[key] = future.result()
    paths.update({key: path for key, path in results.items() if key is not None})
    return [paths[chunk.key] for chunk in chunks], results.get(None)
