"""Incremental builds: a big graph's module linked from one object file per distinct node.

Each node whose variables the glue can hand over (see `_separable`) is rendered
on its own, with local names (inputs I0.., outputs O0.., name `node`), into a
translation unit (templates/node.cpp.j2) keyed like a module: its text, the
headers it includes, its flags and the toolchain. Its object lives in the cache
(opkit.cop.cache_objects), so equal nodes, in this graph or any other, share one
object, and a graph that differs from a cached one by a few nodes compiles only
those. The module itself is the glue (templates/module.cpp.j2 with `states`):
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
import re

from opkit.config import config, usable_cores
from opkit.cop.build import LINK_TOO, build_flags, compile_object, link_extension
from opkit.cop.cache_objects import link_copy, object_cache
from opkit.cop.cinterface import call, include_line
from opkit.cop.codegen import (MODULE_NAME_PLACEHOLDER, QUICK_RUN_ABOVE, GeneratedModule, _Collector, _unique,
                               collect_module, node_template, render_parts, restore_line_numbers)

# A region of more nodes than this is built incrementally (config.incremental); a small one is
# cheaper as one module (one compiler run instead of an object, the glue and a link).
INCREMENTAL_ABOVE = QUICK_RUN_ABOVE
_READS_PY_OBJECT = re.compile(r"\bpy_[IO]\d+\b")
_SUB = {"fail": "{ __failure = 1; goto __label_1; }", "id": 1}


@dataclasses.dataclass
class NodeUnit:
    """One node's translation unit: its source (symbol left as a placeholder), flags and key."""

    generated: GeneratedModule
    has_cleanup: bool
    key: str = ""
    description: str = ""

    @property
    def symbol(self) -> str:
        return f"opkit_n_{self.key[:32]}"


def _single_declares():
    """Return the c_declare methods known to declare exactly one C variable named `name` (and typedefs)."""
    from opkit.core.cdata_type import CDataType
    from opkit.core.enum_type import EnumType
    from opkit.core.scalar_type import ScalarType
    from opkit.core.tensor.c_interface import TensorCInterface
    from opkit.core.type import Generic

    return {cls.c_declare for cls in (CDataType, EnumType, ScalarType, TensorCInterface, Generic)}


def _separable(node, declares) -> bool:
    return all(getattr(type(v.type), "c_declare", None) in declares for v in node.inputs + node.outputs)


def node_unit(node) -> NodeUnit | None:
    """Render `node` as a translation unit of its own; None if its code reads a py_ object."""
    from opkit.cop.compile import module_key

    op = node.op
    params_type = getattr(op, "params_type", None)
    inputs = [f"I{k}" for k in range(len(node.inputs))]
    outputs = [f"O{k}" for k in range(len(node.outputs))]
    sub = dict(_SUB, params="params") if params_type is not None else dict(_SUB)
    code = call(op, "c_code", node, "node", inputs, outputs, sub)
    cleanup = call(op, "c_code_cleanup", node, "node", inputs, outputs, dict(sub), default="") or ""
    if _READS_PY_OBJECT.search(code) or _READS_PY_OBJECT.search(cleanup):
        return None
    collected = _Collector()
    collected.add_op(op, node, "node", "params" if params_type is not None else None)
    params = None
    if params_type is not None:
        collected.add_type(params_type)
        psub = {"fail": "{ return -1; }"}
        params = dict(declare=call(params_type, "c_declare", "params", psub, check_input=True, default=""),
                      init=call(params_type, "c_init", "params", psub, default=""),
                      extract=call(params_type, "c_extract", "params", psub, check_input=True, default=""),
                      cleanup=call(params_type, "c_cleanup", "params", psub, default=""))
    names = inputs + outputs
    for name, variable in zip(names, node.inputs + node.outputs):
        collected.add_type(variable.type)
    variables = [dict(name=name, declare=call(v.type, "c_declare", name, dict(_SUB), check_input=True, default=""))
                 for name, v in zip(names, node.inputs + node.outputs)]
    source = node_template().render(
        symbol=MODULE_NAME_PLACEHOLDER, include_lines=[include_line(h) for h in _unique(collected.headers)],
        support_code=_unique(collected.support_code) + collected.support_code_apply, params=params,
        struct_support=collected.struct_support, struct_init=collected.struct_init[0],
        struct_cleanup=collected.struct_cleanup[0], variables=variables, code=code, cleanup=cleanup,
        init_code=_unique(collected.init_code) + collected.init_code_apply)
    no_args = set(collected.no_compile_args)
    generated = GeneratedModule(restore_line_numbers(source), _unique(collected.header_dirs),
                                _unique(collected.lib_dirs), _unique(collected.libraries),
                                [a for a in _unique(collected.compile_args) if a not in no_args], collected.versioned)
    unit = NodeUnit(generated, bool(cleanup.strip()))
    unit.key = module_key(generated)
    unit.description = f"node {node}"[:500]
    return unit


def incremental_builder(region, parts):
    """Return `build(tmp_dir, module_name) -> shared object` linking `region` from node objects, or None.

    None when the region is small, incremental builds are off, or no node can be
    compiled on its own.
    """
    if not config.incremental or not parts.versioned or len(region.nodes) <= INCREMENTAL_ABOVE:
        return None
    declares = _single_declares()
    units = {}
    for index, node in enumerate(region.nodes):
        if _separable(node, declares):
            unit = node_unit(node)
            if unit is not None and unit.generated.versioned:
                units[index] = unit
    if not units:
        return None
    glue = render_parts(collect_module(region, external=units))
    every = [glue, *(u.generated for u in units.values())]

    def build(tmp_dir, module_name):
        objects = ensure_objects(list({u.key: u for u in units.values()}.values()))
        local = [link_copy(path, tmp_dir) for path in objects]
        glue_object = compile_object(glue.with_name(module_name), module_name, tmp_dir,
                                     include_dirs=glue.include_dirs, extra_compile_args=glue.compile_args)
        try:
            return link_extension([glue_object, *local], module_name, tmp_dir,
                                  library_dirs=_unique([d for g in every for d in g.library_dirs]),
                                  libraries=_unique([name for g in every for name in g.libraries]),
                                  extra_link_args=_unique([a for g in every for a in g.compile_args if a in LINK_TOO]))
        finally:
            for path in (glue_object, *local):
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass

    return build


def ensure_objects(units) -> list:
    """Return each unit's cached object file, compiling the missing ones in parallel (one compiler per core)."""
    cache = object_cache()
    paths = {}
    missing = []
    for unit in units:
        found = cache.lookup(unit.key, unit.symbol)
        if found is None:
            missing.append(unit)
        else:
            paths[unit.key] = found
    if missing:
        from opkit.cop.compiler import find_compiler, python_include_dirs
        from opkit.cop.pch import pch_args

        pch_args(find_compiler(), build_flags()[0], python_include_dirs())  # built once, before the threads

        def build_one(unit):
            def build(tmp_dir):
                generated = unit.generated
                return compile_object(generated.with_name(unit.symbol), unit.symbol, tmp_dir,
                                      include_dirs=generated.include_dirs,
                                      extra_compile_args=generated.compile_args)
            return cache.get_or_build(unit.key, build, module_name=unit.symbol,
                                      extra_meta={"description": unit.description, "kind": "node object"})

        workers = max(1, min(len(missing), usable_cores()))
        if workers == 1:
            for unit in missing:
                paths[unit.key] = build_one(unit)
        else:
            with concurrent.futures.ThreadPoolExecutor(workers) as pool:
                futures = {unit.key: pool.submit(build_one, unit) for unit in missing}
                for key, future in futures.items():
                    paths[key] = future.result()
    return [paths[unit.key] for unit in units]
