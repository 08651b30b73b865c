"""Run a graph on a machine without a C++ compiler: node by node, from the modules op packages ship.

Each node with C code runs its shipped module (opkit.cop.shipped). A node
without one runs perform only where config.python_fallback allows it; otherwise
the error names the node, its signature and the `opkit build ... --into ...`
command that makes the module. Nodes of ops that have no C code run perform, as
they do everywhere.
"""

from __future__ import annotations

import warnings

from opkit.config import config
from opkit.cop.cinterface import op_has_c
from opkit.errors import CompileError, MissingModuleError
from opkit.link.runner import sequential_runner


def compiler_available() -> bool:
    """Return True if a C++ compiler can be found (config.cxx, else PATH)."""
    from opkit.cop.compiler import find_compiler

    try:
        find_compiler()
    except CompileError:
        return False
    return True


def shipped_runner(fgraph):
    """Return a runner of `fgraph` built from shipped modules and perform (see the module docstring)."""
    order = fgraph.toposort()
    binders = [_binder(node) for node in order]
    return sequential_runner(fgraph, lambda storage, compute_map: [b(storage, compute_map) for b in binders], order)


def _binder(node):
    from opkit.link.c_linker import _python_binder, node_c_runner

    if not op_has_c(node):
        return _python_binder(node)
    try:
        bind = node_c_runner(node)
    except MissingModuleError:
        raise
    except CompileError as exc:
        if config.python_fallback and node.op.has_perform():
            warnings.warn(f"no C++ compiler and no shipped module for {node}: running its Python perform() "
                          "(OPKIT_FLAGS=python_fallback=true)", RuntimeWarning, stacklevel=6)
            return _python_binder(node)
        raise missing_module_error(node, exc) from None
    return lambda storage, compute_map: bind(storage)


def missing_module_error(node, cause=None) -> MissingModuleError:
    """Return the error for a node with C code, no shipped module and no compiler: what is missing, how to build it."""
    from opkit.cop.shipped import describe_entries

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
    shipped, unfit = describe_entries(op, signature, _shipped_key(node))
    lines = [f"no compiled module for {node} with inputs ({signature}), and no C++ compiler to build one",
             f"op: {op} ({op_class})"]
    if cause is not None and str(cause):
        lines.append(f"compiler: {str(cause).splitlines()[0]}")
    if shipped:
        lines.append(f"installed packages ship {op} for: {'; '.join(f'({s})' for s in shipped)}")
    elif not unfit:
        lines.append(f"no installed package ships a module for {op}")
    if unfit:
        lines.append(f"shipped modules of {op} that this machine cannot use:")
        lines.extend(f"  {line}" for line in unfit)
    lines.append(f"fix: on a machine with a C++ compiler, run `{command}` and reinstall that package")
    lines.append("  or install a C++ compiler here (`opkit doctor` checks the toolchain)")
    if op.has_perform():
        lines.append("  or run its (slow) Python perform() instead: OPKIT_FLAGS=python_fallback=true")
    return MissingModuleError("\n".join(lines), node=node, signature=signature, build_command=command)


def _shipped_key(node) -> str | None:
    """Return the shipped key of `node`'s one-node module here, or None if its code cannot be generated."""
    from opkit.cop.codegen import collect_module
    from opkit.cop.region import Region
    from opkit.cop.shipped import shipped_key

    try:
        return shipped_key(collect_module(Region.from_nodes([node], lambda variable: True)))
    except Exception:  # the error being built names the node; a second failure here must not hide it
        return None


def registered_name(op) -> str | None:
    """Return the name `op`'s class is registered under in opkit.ops (DIST:NAME when names clash), or None."""
    from opkit.plugins.manager import load_plugins

    for name, registrations in sorted(load_plugins().ops.items()):
        for registration in registrations:
            if type(registration.obj) is type(op) and registration.obj == op:
                return f"{registration.record.distribution}:{name}" if len(registrations) > 1 else name
    return None
