"""Look inside a graph: `debugprint` (an indented text tree), `to_dot` and `pydotprint` (Graphviz).

Pure Python over the graph: a compiled function is read through `f.maker.fgraph`, the
graph that actually runs (after rewrites, with fused nodes shown with their expression).
"""

from __future__ import annotations

import os
import string
import sys
from typing import Any


def _roots(obj) -> list:
    """Return the output variables to print for a variable, a list of them, an Apply or a compiled function."""
    maker = getattr(obj, "maker", None)
    if maker is not None and hasattr(maker, "fgraph"):
        return list(maker.fgraph.outputs)
    if _is_apply(obj):
        return list(obj.outputs)
    if _is_variable(obj):
        return [obj]
    if isinstance(obj, (list, tuple)) and all(_is_apply(item) or _is_variable(item) for item in obj):
        return [out for item in obj for out in _roots(item)]
    raise TypeError(f"debugprint takes a Variable, a list of Variables, an Apply or a compiled function, "
                    f"not {type(obj).__name__}")


def _is_apply(obj):  # read by its attributes: core's Variable.dprint calls this module, which imports no core
    return all(hasattr(obj, name) for name in ("op", "inputs", "outputs"))


def _is_variable(obj):
    return all(hasattr(obj, name) for name in ("type", "owner", "index"))


def _ids():
    """Yield A, B, ..., Z, BA, BB, ...: short ids as Theano's debugprint gives them."""
    count = 0
    while True:
        n, text = count, ""
        while True:
            n, digit = divmod(n, 26)
            text = string.ascii_uppercase[digit] + text
            if n == 0:
                break
        yield text
        count += 1


def fused_expression(op) -> str:
    """Return the expression a fused elementwise node computes, in terms of its inputs i0, i1, ..."""
    program = getattr(op, "program", None)
    if program is None:
        return ""
    values = [f"i{k}" for k in range(op.n_inputs)]
    for scalar_op, refs, _ in program:
        values.append(f"{scalar_op.name}({', '.join(values[r] for r in refs)})")
    return values[-1]


def _node_label(node) -> str:
    label = str(node.op)
    expression = fused_expression(node.op)
    return f"{label}[{expression}]" if expression else label


def _memory_note(node, index) -> str:
    notes = []
    for kind, table in (("destroys", getattr(node.op, "destroy_map", {})), ("views", getattr(node.op, "view_map", {}))):
        inputs = table.get(index)
        if inputs:
            notes.append(f"{kind} input {', '.join(map(str, inputs))}")
    return f" ({'; '.join(notes)})" if notes else ""


def debugprint(obj: Any, file: Any = None, print_type: bool = False, depth: int = -1) -> Any:
    """Print an indented tree of `obj`'s graph; return the text if file="str", else print to `file` (stdout)."""
    ids, seen, lines = _ids(), {}, []

    def visit(variable, indent, level):
        if depth >= 0 and level > depth:
            return
        known = id(variable) in seen
        if not known:
            seen[id(variable)] = next(ids)
        node = variable.owner
        head = _node_label(node) if node is not None else str(variable)
        if node is not None and len(node.outputs) > 1:
            head += f".{variable.index}"
        name = f" '{variable.name}'" if node is not None and variable.name else ""
        kind = f" <{variable.type}>" if print_type else ""
        note = _memory_note(node, variable.index) if node is not None else ""
        lines.append(f"{indent}{head} [id {seen[id(variable)]}]{name}{kind}{note}{' ...' if known and node else ''}")
        if node is not None and not known:
            for parent in node.inputs:
                visit(parent, indent + " |", level + 1)

    for root in _roots(obj):
        visit(root, "", 0)
    text = "\n".join(lines) + "\n"
    if file == "str":
        return text
    (sys.stdout if file is None else file).write(text)
    return obj


def _dot_quote(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(obj: Any, print_type: bool = True) -> str:
    """Return the graph of `obj` as Graphviz DOT text: variables as boxes, Apply nodes as ellipses."""
    names, edges, lines = {}, [], ["digraph opkit {", "  rankdir=TB;"]

    def name_of(thing, label, shape):
        if id(thing) not in names:
            names[id(thing)] = f"n{len(names)}"
            lines.append(f"  {names[id(thing)]} [label={_dot_quote(label)}, shape={shape}];")
        return names[id(thing)]

    def visit(variable):
        if id(variable) in names:
            return names[id(variable)]
        label = str(variable) + (f"\n{variable.type}" if print_type else "")
        here = name_of(variable, label, "box")
        node = variable.owner
        if node is not None:
            fresh = id(node) not in names
            apply_name = name_of(node, _node_label(node), "ellipse")
            edges.append(f"  {apply_name} -> {here};")
            if fresh:
                for position, parent in enumerate(node.inputs):
                    edges.append(f"  {visit(parent)} -> {apply_name} [label={_dot_quote(position)}];")
        return here

    for root in _roots(obj):
        visit(root)
    return "\n".join(lines + edges + ["}"]) + "\n"


def pydotprint(obj: Any, outfile: str | os.PathLike[str], format: str = "svg", dot: str | None = None) -> str:
    """Render `obj`'s graph to `outfile` with Graphviz's `dot` in `format` (svg, png, pdf...); return the path."""
    import shutil  # here: opkit.core.graph imports this module, and a warm process spawns nothing (subprocess)
    import subprocess

    command = dot or shutil.which("dot")
    if command is None:
        raise RuntimeError("pydotprint needs Graphviz's `dot` program, which is not on PATH; install Graphviz "
                           "(Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz), "
                           "or write opkit.printing.to_dot(obj) to a .dot file yourself")
    outfile = os.fspath(outfile)
    result = subprocess.run([command, f"-T{format}", "-o", outfile], input=to_dot(obj), capture_output=True,
                            text=True)
    if result.returncode != 0:
        raise RuntimeError(f"dot -T{format} failed (exit status {result.returncode}): {result.stderr.strip()}")
    return outfile
