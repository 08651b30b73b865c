"""Symbolic differentiation: grad and Lop/pullback (reverse mode), Rop/pushforward (forward mode).

Each op contributes through ``L_op``/``grad``, ``R_op`` and
``connection_pattern``. An undefined gradient is a NullType variable that
only raises when it reaches a variable the user asked about.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import overload
import operator
import warnings

from opkit.core.gradient_points import as_point, is_float, seed_gradients, zero_gradient
from opkit.core.graph import Variable, ancestors, io_toposort
from opkit.core.op import Op
from opkit.core.tensor.shapes.alloc import cast, float_dtype
from opkit.errors import add_note
# re-exported: opkit.core.gradient was the one home of these names
from opkit.core.gradient_types import (
    DisconnectedInputError,
    DisconnectedOutputError,
    DisconnectedType,
    NullType,
    NullTypeGradError,
    disconnected_type,
    grad_not_implemented,
    grad_undefined,
)


@overload
def grad(cost: Variable | None, wrt: Variable, consider_constant: Sequence[Variable] | None = None,
         disconnected_inputs: str = "raise", add_names: bool = True,
         known_grads: Mapping[Variable, Variable] | None = None, return_disconnected: str = "zero",
         null_gradients: str = "raise") -> Variable: ...
@overload
def grad(cost: Variable | None, wrt: list[Variable], consider_constant: Sequence[Variable] | None = None,
         disconnected_inputs: str = "raise", add_names: bool = True,
         known_grads: Mapping[Variable, Variable] | None = None, return_disconnected: str = "zero",
         null_gradients: str = "raise") -> list[Variable]: ...
@overload
def grad(cost: Variable | None, wrt: tuple[Variable, ...], consider_constant: Sequence[Variable] | None = None,
         disconnected_inputs: str = "raise", add_names: bool = True,
         known_grads: Mapping[Variable, Variable] | None = None, return_disconnected: str = "zero",
         null_gradients: str = "raise") -> tuple[Variable, ...]: ...
def grad(cost, wrt, consider_constant=None, disconnected_inputs="raise", add_names=True, known_grads=None,
         return_disconnected="zero", null_gradients="raise"):
    """Return the gradient of the scalar `cost` with respect to `wrt` (a Variable, list or tuple).

    The arguments are Theano's and PyTensor's, in their order. `known_grads`
    maps variables to gradients already known (then `cost` may be None);
    `consider_constant` lists variables not to differentiate through. A
    disconnected `wrt` raises, warns or is ignored per `disconnected_inputs`,
    and is returned as zeros, None or a DisconnectedType variable per
    `return_disconnected` ("zero", "none", "disconnected"). With `add_names`,
    the gradient of a named variable x of a named cost is named ``(dcost/dx)``.
    """
    known_grads = dict(known_grads or {})
    seeds = seed_gradients(cost, known_grads)
    naming = None
    if add_names and getattr(cost, "name", None) is not None:
        naming = (cost.name, {id(v) for v in known_grads.values()})  # never rename the user's variables
    return _backpropagate(seeds, wrt, consider_constant, disconnected_inputs, return_disconnected, null_gradients,
                          naming=naming)


def Lop(f, wrt, eval_points, consider_constant=None, disconnected_inputs="raise"):
    """Return `eval_points` times the Jacobian of `f` with respect to `wrt` (a vector-Jacobian product).

    Unlike known_grads, an eval point adds to what reaches its output through
    the other outputs of `f`, so outputs that depend on each other count fully.
    """
    outputs, _ = _as_list(f, "f")
    points, _ = _as_list(eval_points, "eval_points")
    if len(points) != len(outputs):
        raise ValueError(f"Lop: {len(outputs)} output(s) in f but {len(points)} eval point(s)")
    seeds = {out: as_point(out, point, f"eval_points[{i}]", broadcast=True)
             for i, (out, point) in enumerate(zip(outputs, points))}
    return _backpropagate(seeds, wrt, consider_constant, disconnected_inputs, "zero", "raise", accumulate=True)


def pullback(f, wrt, cotangents, consider_constant=None, disconnected_inputs="raise", return_disconnected="zero"):
    """Return `cotangents` times the Jacobian of `f` with respect to `wrt` (PyTensor's name of Lop).

    One cotangent per output of `f`; the result has the structure of `wrt` (a variable, list or tuple).
    """
    outputs, _ = _as_list(f, "f")
    points, _ = _as_list(cotangents, "cotangents")
    if len(points) != len(outputs):
        raise ValueError(f"pullback: {len(outputs)} output(s) in f but {len(points)} cotangent(s)")
    seeds = {out: as_point(out, point, f"cotangents[{i}]", broadcast=True)
             for i, (out, point) in enumerate(zip(outputs, points))}
    return _backpropagate(seeds, wrt, consider_constant, disconnected_inputs, return_disconnected, "raise",
                          accumulate=True)


def pushforward(f, wrt, tangents, disconnected_outputs="raise", return_disconnected="zero",
                use_op_pushforward=False):
    """Return the Jacobian of `f` with respect to `wrt` times `tangents` (PyTensor's name of Rop).

    The result has the structure of `f`. Ops contribute through ``R_op`` (or PyTensor's ``pushforward``).
    """
    return Rop(f, wrt, tangents, disconnected_outputs, {"none": "None"}.get(return_disconnected, return_disconnected))


def subgraph_grad(wrt, end, start=None, cost=None, details=False):
    """Return the gradients of `cost` and of the known gradients `start` with respect to `wrt` and `end`.

    Backpropagation stops at the `end` variables (held constant), so a graph can be differentiated
    piece by piece: the `end` gradients of one piece are the `start` of the next (Theano's and
    PyTensor's subgraph_grad). Returns (wrt gradients, end gradients), and with `details` also the
    gradients from `start` and from `cost` alone. Disconnected variables get zeros.
    """
    if cost is None and start is None:
        raise ValueError("subgraph_grad: `cost` or `start` must be given")
    if not isinstance(end, list) or not isinstance(wrt, list):
        raise TypeError("subgraph_grad: `wrt` and `end` must be lists of variables")
    if start is not None and not isinstance(start, dict):
        raise TypeError("subgraph_grad: `start` must be a dict {variable: its known gradient}")
    params = list(dict.fromkeys([*wrt, *end]))
    options = {"wrt": params, "consider_constant": end, "disconnected_inputs": "ignore"}
    start_grads = None if start is None else list(grad(None, known_grads=start, **options))
    cost_grads = None if cost is None else list(grad(cost, **options))
    grads = cost_grads if start_grads is None else list(start_grads)
    if start_grads is not None and cost_grads is not None:
        grads = [a + b for a, b in zip(start_grads, cost_grads)]
    found = dict(zip(params, grads))
    wrt_grads, end_grads = [found[v] for v in wrt], [found[v] for v in end]
    return (wrt_grads, end_grads, start_grads, cost_grads) if details else (wrt_grads, end_grads)


def _backpropagate(seeds, wrt, consider_constant, disconnected_inputs, return_disconnected, null_gradients,
                   accumulate=False, naming=None):
    """Return the gradients reaching `wrt` from `seeds`, shaped like `wrt`, applying the user's policies."""
    _check_choice("disconnected_inputs", disconnected_inputs, ("raise", "warn", "ignore"))
    # Theano spelled these "None" and "Disconnected", PyTensor "none" and "disconnected": both are accepted.
    return_disconnected = {"none": "None", "disconnected": "Disconnected"}.get(return_disconnected,
                                                                               return_disconnected)
    _check_choice("return_disconnected", return_disconnected, ("zero", "None", "Disconnected"))
    _check_choice("null_gradients", null_gradients, ("raise", "return"))
    variables, kind = _as_list(wrt, "wrt")
    backprop = _Backprop(seeds, variables, consider_constant or (), accumulate, naming)
    results = []
    for position, variable in enumerate(variables):
        result = backprop.total(variable)
        if isinstance(result.type, NullType) and null_gradients == "raise":
            raise NullTypeGradError(variable, position, result.type)
        if isinstance(result.type, DisconnectedType):
            _report(DisconnectedInputError(variable, position), disconnected_inputs, stacklevel=3)
            if return_disconnected == "zero":
                result = zero_gradient(variable)
            elif return_disconnected == "None":
                result = None
        results.append(result)
    return _restore(kind, results)


def Rop(f, wrt, eval_points, disconnected_outputs="raise", return_disconnected="zero"):
    """Return the Jacobian of `f` with respect to `wrt` times `eval_points` (a Jacobian-vector product)."""
    _check_choice("disconnected_outputs", disconnected_outputs, ("raise", "warn", "ignore"))
    _check_choice("return_disconnected", return_disconnected, ("zero", "None"))
    outputs, kind = _as_list(f, "f")
    variables, _ = _as_list(wrt, "wrt")
    points, _ = _as_list(eval_points, "eval_points")
    if len(points) != len(variables):
        raise ValueError(f"Rop: {len(variables)} variable(s) in wrt but {len(points)} eval point(s)")
    values = {var: as_point(var, point, f"eval_points[{i}]") for i, (var, point) in enumerate(zip(variables, points))}
    for node in io_toposort(variables, outputs):
        local = [values.get(v) for v in node.inputs]
        if any(point is not None for point in local):
            values.update(zip(node.outputs, _call_r_op(node, local)))
    results = []
    for position, out in enumerate(outputs):
        result = values.get(out)
        if result is None:
            _report(DisconnectedOutputError(out, position), disconnected_outputs, stacklevel=2)
            result = zero_gradient(out) if return_disconnected == "zero" else None
        results.append(result)
    return _restore(kind, results)


class _Backprop:
    """Gradient terms of every node on a differentiable path from `wrt` to the seeds."""

    def __init__(self, seeds, wrt, consider_constant, accumulate=False, naming=None):
        self.seeds = dict(seeds)
        self.accumulate = accumulate
        self.naming = naming  # (cost name, ids of the user's gradient variables), or None
        self.totals = {}
        self.copies = _weak_copies(list(seeds), wrt)
        copies = [copy for found in self.copies.values() for copy in found]
        self.uses = _true_uses(list(seeds), [*wrt, *copies], consider_constant)
        relevant = {node for nodes in self.uses.values() for node in nodes}
        self.terms = {}
        for node in reversed(io_toposort([], list(seeds))):
            if node in relevant:
                output_grads = [self.total(out) for out in node.outputs]
                self.terms[node] = node_input_grads(node, output_grads)

    def total(self, variable):
        """Return the gradient reaching `variable`: its seed, or the sum of its terms (and seed, accumulating)."""
        if variable not in self.totals:
            total = self._sum_terms(variable)
            if self.naming is not None and variable.name is not None and variable not in self.seeds:
                _name_gradient(total, f"(d{self.naming[0]}/d{variable.name})", self.naming[1])
            self.totals[variable] = total
        return self.totals[variable]

    def _sum_terms(self, variable):
        seed = self.seeds.get(variable)
        if seed is not None and not self.accumulate:
            return seed
        terms = [self.terms[node][i] for node, positions in self.uses.get(variable, {}).items() for i in positions]
        terms += [seed] if seed is not None else []
        terms += [_through_cast(variable, self.total(copy)) for copy in self.copies.get(id(variable), ())]
        nulls = [t for t in terms if isinstance(t.type, NullType)]
        if nulls:
            return nulls[0]
        terms = [t for t in terms if not isinstance(t.type, DisconnectedType)]
        if not terms:
            return disconnected_type()
        return functools.reduce(operator.add, terms)


def _weak_copies(outputs, wrt):
    """Map the id of each constant in `wrt` to the retyped copies of it that `outputs` use.

    An elementwise op gives a Python-number constant the other operand's dtype
    through a new constant that names its source in ``tag.weak_source``; the
    gradient reaches the source through it as through a cast.
    """
    wanted = {id(v) for v in wrt if v.owner is None}
    copies = {}
    if wanted:
        for variable in ancestors(outputs):
            source = variable.tag.get("weak_source") if variable.owner is None else None
            if source is not None and id(source) in wanted:
                copies.setdefault(id(source), []).append(variable)
    return copies


def _through_cast(source, gradient):
    """Return `gradient` (of a retyped copy of `source`) as the gradient of `source`, as Cast.grad does."""
    if isinstance(gradient.type, (NullType, DisconnectedType)):
        return gradient
    return cast(gradient, source.type.dtype if is_float(source) else float_dtype(gradient.type.dtype))


def _name_gradient(total, name, protected):
    """Name a gradient grad made, PyTensor's way; never the user's own variables or one named already.

    One variable can be the gradient of several (``x + y``): it keeps the first name.
    """
    if isinstance(total.type, (NullType, DisconnectedType)) or total.name is not None:
        return
    if total.owner is None or id(total) in protected:
        return
    total.name = name


def _true_uses(outputs, wrt, blockers):
    """Map each variable between `wrt` and `outputs` to {node: [positions]} of the nodes it truly feeds."""
    blocked = set(map(id, blockers))
    uses, seen, stack = {}, set(), list(outputs)
    while stack:
        variable = stack.pop()
        if id(variable) in seen or variable.owner is None or id(variable) in blocked:
            continue
        seen.add(id(variable))
        node = variable.owner
        pattern = connection_pattern(node)
        for i, source in enumerate(node.inputs):
            if pattern[i][variable.index]:
                positions = uses.setdefault(source, {}).setdefault(node, [])
                if i not in positions:
                    positions.append(i)
                stack.append(source)
    reached, stack = set(), list(wrt)
    while stack:
        variable = stack.pop()
        if id(variable) in reached or variable not in uses:
            continue
        reached.add(id(variable))
        for node, positions in uses[variable].items():
            pattern = connection_pattern(node)
            stack.extend(out for j, out in enumerate(node.outputs) if any(pattern[i][j] for i in positions))
    return {variable: nodes for variable, nodes in uses.items() if id(variable) in reached}


def connection_pattern(node):
    """Return [input][output] booleans: which inputs' elements affect which outputs."""
    method = getattr(node.op, "connection_pattern", None)
    if method is None:
        return [[True] * len(node.outputs) for _ in node.inputs]
    pattern = [list(row) for row in method(node)]
    if len(pattern) != len(node.inputs) or any(len(row) != len(node.outputs) for row in pattern):
        raise ValueError(f"{node.op}.connection_pattern returned {pattern!r}; it must hold one list per input "
                         f"({len(node.inputs)}), each with one bool per output ({len(node.outputs)})")
    return pattern


def node_input_grads(node, output_grads):
    """Return the gradient term of each input of `node`, given its outputs' gradients."""
    pattern = connection_pattern(node)
    live = [not isinstance(g.type, DisconnectedType) for g in output_grads]
    null = [isinstance(g.type, NullType) for g in output_grads]
    integer = [not is_float(out) for out in node.outputs]
    routes = [[j for j, connected in enumerate(row) if connected and live[j]] for row in pattern]
    computed = None
    if any(not null[j] and not integer[j] for route in routes for j in route):
        computed = _call_op_grad(node, output_grads, null)
    terms = []
    for i, (source, route) in enumerate(zip(node.inputs, routes)):
        if not route:
            terms.append(disconnected_type())
        elif any(null[j] for j in route):
            terms.append(next(output_grads[j] for j in route if null[j]))
        elif all(integer[j] for j in route):
            # An integer output is flat almost everywhere: its gradient is zero.
            terms.append(zero_gradient(source))
        else:
            terms.append(_checked_term(node, i, computed[i]))
    return terms


def _call_op_grad(node, output_grads, null):
    """Call the op's L_op with output gradients fit for it; return one term per input."""
    op = node.op
    fitted = []
    for out, g, is_null in zip(node.outputs, output_grads, null):
        if is_null:
            g = zero_gradient(out)
        elif is_float(out) and getattr(g.type, "dtype", out.type.dtype) != out.type.dtype:
            g = cast(g, out.type.dtype)
        fitted.append(g)
    if not _has_grad(op):
        return [grad_not_implemented(op, i, x, "Define grad(inputs, output_grads) on the op to differentiate it.")
                for i, x in enumerate(node.inputs)]
    try:
        terms = op.L_op(list(node.inputs), list(node.outputs), fitted)
    except Exception as exc:
        add_note(exc, f"while computing the gradient of {node}")
        raise
    if terms is None or isinstance(terms, Variable):
        raise TypeError(f"{op}.grad returned {terms!r}; it must return a list with one term per input")
    terms = list(terms)
    if len(terms) != len(node.inputs):
        raise ValueError(f"{op}.grad returned {len(terms)} gradient terms for {len(node.inputs)} inputs")
    return terms


def _has_grad(op):
    """Return True if `op` defines grad or its own L_op."""
    if getattr(op, "grad", None) is not None or getattr(op, "pullback", None) is not None:
        return True
    if "L_op" in getattr(op, "__dict__", {}):
        return True
    return type(op).L_op is not Op.L_op


def _checked_term(node, i, term):
    """Return `term` (the gradient of input `i` from the op) after checking it is usable."""
    source = node.inputs[i]
    if term is None:
        raise TypeError(f"{node.op}.grad returned None for input {i} ({source}).\n"
                        "Hint: return zeros, disconnected_type() or grad_undefined(op, i, x) instead.")
    if not isinstance(term, Variable):
        raise TypeError(f"{node.op}.grad returned {term!r} for input {i} ({source}), not a Variable")
    if isinstance(term.type, (NullType, DisconnectedType)):
        return term
    dtype = getattr(term.type, "dtype", None)
    if dtype is not None and not is_float(term):
        raise TypeError(f"{node.op}.grad illegally returned an integer-valued variable for input {i} "
                        f"({source}), dtype {dtype}.\nGradients are always float: use zeros of config.floatX.")
    want, got = getattr(source.type, "ndim", None), getattr(term.type, "ndim", None)
    if want is not None and got is not None and want != got:
        raise ValueError(f"{node.op}.grad returned a term with {got} dimensions for input {i} ({source}), "
                         f"which has {want}")
    return term


def _call_r_op(node, eval_points):
    """Return the R_op results of `node` (one per output, None where undefined)."""
    points = []
    for source, point in zip(node.inputs, eval_points):
        if point is not None and is_float(source) and point.type.dtype != source.type.dtype:
            point = cast(point, source.type.dtype)
        points.append(point)
    r_op = getattr(node.op, "R_op", None)
    if r_op is None and getattr(node.op, "pushforward", None) is not None:  # PyTensor's current name
        r_op = functools.partial(_pushforward_as_r_op, node)
    if r_op is None:
        position = next(i for i, p in enumerate(points) if p is not None)
        raise NotImplementedError(
            f"{node.op} does not implement R_op, which Rop needs: its input {position} depends on wrt.\n"
            "Hint: define R_op(inputs, eval_points) returning the Jacobian times eval_points for each output.")
    try:
        results = r_op(list(node.inputs), points)
    except Exception as exc:
        add_note(exc, f"while computing the R_op of {node}")
        raise
    results = list(results) if results is not None else [None] * len(node.outputs)
    if len(results) != len(node.outputs) or not all(r is None or isinstance(r, Variable) for r in results):
        raise TypeError(f"{node.op}.R_op returned {results!r}; it must return one Variable (or None) per output "
                        f"({len(node.outputs)})")
    return results


def _pushforward_as_r_op(node, inputs, eval_points):
    return node.op.pushforward(inputs, node.outputs, eval_points)


def _report(error, mode, stacklevel):
    if mode == "raise":
        raise error
    if mode == "warn":
        warnings.warn(str(error), stacklevel=stacklevel + 1)


def _check_choice(name, value, allowed):
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, not {value!r}")


def _as_list(value, label):
    """Return (list of variables, 'single' | 'list' | 'tuple') for a Variable or sequence."""
    if isinstance(value, (list, tuple)):
        kind = "list" if isinstance(value, list) else "tuple"
        items = list(value)
    else:
        kind, items = "single", [value]
    if label in ("f", "wrt"):
        for position, item in enumerate(items):
            if not isinstance(item, Variable):
                raise TypeError(f"{label}[{position}] is {item!r}, not an opkit Variable")
    return items, kind


def _restore(kind, values):
    if kind == "single":
        return values[0]
    return tuple(values) if kind == "tuple" else values
