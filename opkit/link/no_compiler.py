"""What a machine without a C++ compiler lacks: the error for a node no installed package ships a module for.

Without a compiler (opkit.link.backend) a graph runs node by node
(opkit.link.binders.node_binder): each node with C code runs its shipped module
(opkit.cop.store.shipped). A node without one runs perform only where
config.python_fallback allows it; otherwise `missing_module_error` names the
node, its signature and the `opkit build ... --into ...` command that makes
the module. Nodes of ops that have no C code run perform, as they do everywhere.
"""

from __future__ import annotations

import pathlib

from opkit.cop.generate.codegen import collect_module
from opkit.cop.generate.region import Region
from opkit.cop.generate.target import current_target
from opkit.cop.store.shipped import built_for, entry_problem, shipped_dir, shipped_entries, shipped_key
from opkit.errors import MissingModuleError


def missing_module_error(node, cause=None) -> MissingModuleError:
    """Return the error for a node with C code, no shipped module and no compiler: what is missing, how to build it."""
    op = node.op
    name = registered_name(op)
    signature = ", ".join(str(v.type) for v in node.inputs)
    dtypes = [getattr(v.type, "dtype", str(v.type)) for v in node.inputs]
    ndims = [getattr(v.type, "ndim", None) for v in node.inputs]
    command = f"opkit build {name or '<op name>'} --dtypes {','.join(dtypes)}"
    if any(n != 1 for n in ndims) and None not in ndims:
        command += f" --ndims {','.join(map(str, ndims))}"
    package = type(op).__module__.partition(".")[0]
    command += f" --into <the source directory of the package {package}>"
    op_class = f"{type(op).__module__}.{type(op).__qualname__}"
    entries = shipped_entries(shipped_dir(op))
    shipped = sorted({e.get("signature", "?") for e in entries if e.get("op_class") == op_class})
    details = shipped_details(node, [e for e in entries if e.get("op_class") in (op_class, None)])
    lines = [f"no compiled module for {node} with inputs ({signature}), and no C++ compiler to build one",
             f"op: {op} ({op_class})"]
    if cause is not None and str(cause):
        lines.append(f"compiler: {str(cause).splitlines()[0]}")
    lines.append(f"installed packages ship {op} for: {'; '.join(f'({s})' for s in shipped)}" if shipped
                 else f"no installed package ships a module for {op}")
    lines += details
    lines.append(f"fix: on a machine with a C++ compiler, run `{command}` and reinstall that package")
    lines.append("  or install a C++ compiler here (`opkit doctor` checks the toolchain)")
    if op.has_perform():
        lines.append("  or run its (slow) Python perform() instead: OPKIT_FLAGS=python_fallback=true")
    return MissingModuleError("\n".join(lines), node=node, signature=signature, build_command=command)


def shipped_details(node, entries) -> list[str]:
    """Return a line per shipped module of node's op: what it was built for, and why it is not used here."""
    key = _shipped_key_of(node)
    signature = ", ".join(str(v.type) for v in node.inputs)
    lines = []
    for meta in sorted(entries, key=lambda m: (m.get("signature", ""), m["entry"])):
        if "op_class" not in meta:  # meta.json could not be read: which op it was is unknown
            problem, _ = entry_problem(pathlib.Path(meta["entry"]))
            lines.append(f"  a shipped module in {meta['entry']} is not used: {problem}")
            continue
        problem = entry_problem(pathlib.Path(meta["entry"]), key if meta.get("signature") == signature else None)
        status = (f"not used: {problem[0]}" if problem is not None else
                  "fits this machine" + ("" if meta.get("signature") == signature else " (another signature)"))
        lines.append(f"  ({meta.get('signature', '?')}) built for {built_for(meta)}: {status}")
    return lines


def _shipped_key_of(node) -> str | None:
    """Return the shipped key of a one-node module of `node`, or None if it has none."""
    try:
        return shipped_key(collect_module(Region.of_node(node, current_target())))
    except Exception:  # noqa: BLE001 - the error being reported matters more than this detail
        return None


def registered_name(op) -> str | None:
    """Return the name `op`'s class is registered under in opkit.ops (DIST:NAME when names clash), or None."""
    from opkit.plugins.manager import load_plugins  # lazy: plugins (pluggy, threading) load only to name the op here

    for name, registrations in sorted(load_plugins().ops.items()):
        for registration in registrations:
            if type(registration.obj) is type(op) and registration.obj == op:
                return f"{registration.record.distribution}:{name}" if len(registrations) > 1 else name
    return None
