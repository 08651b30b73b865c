"""pytensor.graph.basic: opkit's graph classes, and PyTensor's functions over graphs.

``Apply``, ``Variable``, ``Constant`` and ``NominalVariable`` are opkit's own. ``as_string``,
``clone``, ``clone_get_equiv``, ``equal_computations`` and the interned ``FrozenApply`` follow
PyTensor's (BSD-3, see tests/ported/pytensor/LICENSE.txt) on opkit's graphs.
"""

import abc
import weakref

import numpy as np

from opkit.compat.pytensor.graph.traversal import applys_between, orphans_between, toposort
from opkit.core.graph import Apply, Constant, NominalVariable, Scratchpad, Variable



class AbstractApply(abc.ABC):
    """PyTensor's base of the mutable ``Apply`` (opkit's, registered here) and the interned ``FrozenApply``."""


AbstractApply.register(Apply)


class FrozenApply(AbstractApply):
    """An immutable node, one per (op, inputs, output types, `topo_idx`) in a process (PyTensor's).

    Frozen graphs (``FrozenFunctionGraph``) are built of these on NominalVariable inputs, so two
    graphs that compute the same thing are the same objects. Constant inputs are keyed by value
    (``Constant.signature``), other inputs by identity. Inputs and outputs are tuples.
    """

    _cache: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

    def __new__(cls, op, inputs, output_types, topo_idx=-1):
        key = (op, tuple(v.signature() if isinstance(v, Constant) else id(v) for v in inputs),
               tuple(output_types), topo_idx)
        node = cls._cache.get(key)
        if node is None:
            node = object.__new__(cls)
            node.op, node.inputs, node.topo_idx, node.tag = op, tuple(inputs), topo_idx, Scratchpad()
            node.outputs = tuple(t.variable_type(t, node, i) for i, t in enumerate(output_types))
            cls._cache[key] = node
        return node

    def __reduce__(self):
        return type(self), (self.op, self.inputs, tuple(o.type for o in self.outputs), self.topo_idx)

    def __str__(self):
        return f"{self.op}({', '.join(map(str, self.inputs))})"

    __repr__ = __str__


def default_node_formatter(op, argstrings):
    return f"{op.op}({', '.join(argstrings)})"


def as_string(inputs, outputs, leaf_formatter=str, node_formatter=default_node_formatter):
    """Return a string per output: its graph from `inputs`, ``*n -> `` marking a node used twice."""
    given, orphans = set(inputs), set(orphans_between(inputs, outputs))
    seen, multi = set(), []

    def note(node):
        if node in seen and node not in multi:
            multi.append(node)
        seen.add(node)

    for output in outputs:
        note(output.owner)
    for node in applys_between(inputs, outputs):
        for variable in node.inputs:
            if variable.owner is not None and variable not in given and variable not in orphans:
                note(variable.owner)
    done = set()

    def describe(variable):
        node = variable.owner
        if node is None or variable in given or variable in orphans:
            return leaf_formatter(variable)
        index = "" if len(node.outputs) == 1 else f"::{node.outputs.index(variable)}"
        if node in done:
            return f"*{multi.index(node) + 1}{index}"
        done.add(node)
        text = node_formatter(node, [describe(v) for v in node.inputs])
        return f"*{multi.index(node) + 1} -> {text}" if node in multi else text

    return [describe(output) for output in outputs]


def clone(inputs, outputs, copy_inputs=True, copy_orphans=None):
    """Copy the graph between `inputs` and `outputs`; return (new inputs, new outputs). Constants are kept."""
    equiv = clone_get_equiv(inputs, outputs, copy_inputs, copy_inputs if copy_orphans is None else copy_orphans)
    return [equiv[v] for v in inputs], [equiv[v] for v in outputs]


def clone_get_equiv(inputs, outputs, copy_inputs=True, copy_orphans=True, memo=None, **kwargs):
    """Clone the graph between `inputs` and `outputs`; return `memo`, {old variable or node: new one}.

    Entries already in `memo` are used as they are; a node all of whose outputs are there is not cloned.
    `kwargs` go to ``Apply.clone_with_new_inputs``.
    """
    memo = {} if memo is None else memo
    for variable in inputs:
        memo.setdefault(variable, variable.clone() if copy_inputs and not isinstance(variable, Constant)
                        else variable)
    for node in toposort(outputs, blockers=inputs):
        for variable in node.inputs:
            if variable not in memo:
                memo[variable] = variable.clone() if copy_orphans and not isinstance(variable, Constant) else variable
        if all(v in memo for v in node.outputs):
            continue
        new = node.clone_with_new_inputs([memo[v] for v in node.inputs], **kwargs)
        memo[node] = new
        for old, made in zip(node.outputs, new.outputs):
            memo.setdefault(old, made)
    for variable in outputs:
        if variable not in memo:
            memo[variable] = variable.clone()
    return memo


def _leaf_value_equal(x, y):
    """Compare the pair when one side is not a Variable (PyTensor's rule: a value equals a constant's data)."""
    if not isinstance(x, Variable) and not isinstance(y, Variable):
        return np.array_equal(x, y, equal_nan=True)
    variable, value = (x, y) if isinstance(x, Variable) else (y, x)
    return isinstance(variable, Constant) and np.array_equal(variable.data, value, equal_nan=True)


def equal_computations(xs, ys, in_xs=None, in_ys=None, strict_dtype=True):
    """Return True if each graph of `xs` computes what the graph at its place in `ys` does.

    Values (numpy arrays, numbers) equal constants of their value; `in_xs[i]` and `in_ys[i]`
    are taken as the same variable. Raises ValueError if `xs` and `ys` differ in length.
    """
    if len(xs) != len(ys):
        raise ValueError("The number of graphs/Variables in each argument must match.")
    in_xs, in_ys = list(in_xs or []), list(in_ys or [])
    for x, y in zip(xs, ys):
        if not isinstance(x, Variable) or not isinstance(y, Variable):
            return _leaf_value_equal(x, y)
        if (x.owner is None) != (y.owner is None):
            return False
        if x.owner is not None and x.index != y.index:
            return False
        if x not in in_xs and not y.type.in_same_class(x.type):
            return False
    if len(in_xs) != len(in_ys) or not all(b.type.in_same_class(a.type) for a, b in zip(in_xs, in_ys)):
        return False
    common = set(zip(in_xs, in_ys))
    for x, y in zip(xs, ys):
        if x.owner is None and not _same_leaf(x, y, common, strict_dtype):
            return False
    different = set()
    return all(x.owner is None or _same_node(x.owner, y.owner, common, different, strict_dtype)
               for x, y in zip(xs, ys))


def _same_leaf(x, y, common, strict_dtype):
    if (x, y) in common or x is y or x == y:
        return True
    if isinstance(x, Constant) and isinstance(y, Constant):
        return x.equals(y) or (not strict_dtype and np.array_equal(x.data, y.data))
    return False


def _same_node(x, y, common, different, strict_dtype):
    """Compare two nodes: same op, and inputs that are pairwise the same computation (cached in `common`)."""
    if x is y:
        return True
    if x.op != y.op or len(x.inputs) != len(y.inputs) or len(x.outputs) != len(y.outputs):
        return False
    pairs = list(zip(x.outputs, y.outputs))
    if any(p in different for p in pairs):
        return False
    if all(p in common for p in pairs):
        return True
    for dx, dy in zip(x.inputs, y.inputs):
        if (dx, dy) in common:
            continue
        if dx.owner is not None and dy.owner is not None and dx.index == dy.index:
            if not _same_node(dx.owner, dy.owner, common, different, strict_dtype):
                different.add((dx, dy))
                return False
        elif dx.owner is not None or dy.owner is not None or not _same_leaf(dx, dy, common, strict_dtype):
            return False
    common.update(pairs)
    return True


__all__ = ["AbstractApply", "Apply", "Constant", "FrozenApply", "NominalVariable", "Variable", "as_string", "clone",
           "clone_get_equiv", "default_node_formatter", "equal_computations"]
