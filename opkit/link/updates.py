"""Shared variables in a compiled function: givens, implicit inputs and updates.

`plan_shared` rewrites what the user passed to ``function`` into a plain graph:
each ``givens`` pair replaces a variable, each shared variable becomes an
extra input (its *placeholder*, read from the variable's container at every
call), and each update becomes an extra output, written back into the
container once every output is computed. The whole-graph C linker does that
reading and writing inside its module; every other linker gets
`python_update_runner` around its runner.
"""

from __future__ import annotations

from opkit.core.graph import Constant, Variable, ancestors, io_toposort
from opkit.core.record import Record
from opkit.core.shared import SharedVariable


class SharedPlan(Record):
    """The shared variables of a function and where its graph reads and writes them.

    The graph's inputs are the explicit inputs, then one placeholder per shared
    variable (``shared[k]``); its outputs are the returned outputs, then one
    per update, storing into ``shared[updates[j]]``.
    A Record (see opkit.core.record): compared and pickled as the dataclass it was.
    """

    _FIELDS = ("outputs", "shared", "placeholders", "update_values", "updates")

    def __init__(self, outputs, shared=None, placeholders=None, update_values=None, updates=None):
        self.outputs = outputs  # the returned outputs, givens and placeholders in
        self.shared = [] if shared is None else shared  # SharedVariable per cell k
        self.placeholders = [] if placeholders is None else placeholders  # the graph input standing for shared[k]
        self.update_values = [] if update_values is None else update_values  # the expression of each update
        self.updates = [] if updates is None else updates  # the cell k each update is stored into

    def cells(self):
        """Return each shared variable's storage list, the cell a compiled function reads and writes."""
        return [variable.container.storage for variable in self.shared]


def plan_shared(inputs, outputs, updates=None, givens=None, label="function", no_default_updates=False):
    """Check updates and givens and return the SharedPlan of a function over `inputs` and `outputs`.

    A shared variable the graph reads that has a ``default_update`` and no update in `updates` is
    updated by it, unless `no_default_updates` is True or lists it (Theano's and PyTensor's rule).
    """
    for position, variable in enumerate(inputs):
        if isinstance(variable, SharedVariable):
            raise TypeError(f"Cannot use a shared variable ({variable}) as explicit input {position} of {label}: "
                            "functions read shared variables implicitly.\nHint: remove it from the inputs, or "
                            f"replace it by a symbolic variable with givens={{{variable}: x}} and pass x as an "
                            "input.")
    skip_defaults = _no_default_updates(no_default_updates, label)
    update_pairs = _update_pairs(updates, label)
    given = _given_pairs(givens, inputs, label)
    outputs, update_pairs = _with_givens(outputs, update_pairs, given)
    update_pairs = _with_default_updates(outputs, update_pairs, given, skip_defaults, label)
    found = _shared_variables(outputs + [value for _, value in update_pairs], [t for t, _ in update_pairs])
    # One cell per container: clones of a shared variable (clone() shares the container) are one value.
    shared, cell = [], {}
    for variable in found:
        if id(variable.container) not in cell:
            cell[id(variable.container)] = len(shared)
            shared.append(variable)
    placeholders = [variable.type.make_variable(variable.name) for variable in shared]
    mapping = {variable: placeholders[cell[id(variable.container)]] for variable in found}
    replaced = replace_variables(outputs + [value for _, value in update_pairs], mapping)
    return SharedPlan(replaced[:len(outputs)], shared, placeholders, replaced[len(outputs):],
                      [cell[id(target.container)] for target, _ in update_pairs])


def _with_givens(outputs, update_pairs, given):
    if not given:
        return outputs, update_pairs
    replaced = replace_variables(outputs + [value for _, value in update_pairs], given)
    return replaced[:len(outputs)], list(zip([target for target, _ in update_pairs], replaced[len(outputs):]))


def _no_default_updates(value, label):
    """Return a test of the shared variables whose default update is not applied."""
    if isinstance(value, bool):
        return lambda variable: value
    if isinstance(value, list):
        containers = {id(v.container) for v in value if isinstance(v, SharedVariable)}
        return lambda variable: id(variable.container) in containers
    raise TypeError(f"no_default_updates of {label} must be a bool or a list of shared variables, not {value!r}")


def _with_default_updates(outputs, update_pairs, given, skip, label):
    """Return `update_pairs` plus the default update of each shared variable the graph reads (and those the
    default updates read, in turn) that has none, the givens applied to them too."""
    pairs = list(update_pairs)
    done = {id(target.container) for target, _ in pairs}
    pending = _shared_variables(outputs + [value for _, value in pairs], [])
    while pending:
        variable = pending.pop(0)
        default = getattr(variable, "default_update", None)
        if default is None or id(variable.container) in done or skip(variable):
            continue
        done.add(id(variable.container))
        value = _with_givens([], [(variable, default)], given)[1][0][1]
        pairs.extend(_update_pairs([(variable, value)], label))
        pending.extend(_shared_variables([value], []))
    return pairs


def _pairs(items, what, label):
    """Return `items` (a dict or a list of pairs) as a list of pairs."""
    if items is None:
        return []
    pairs = list(items.items()) if isinstance(items, dict) else list(items)
    for pair in pairs:
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise TypeError(f"{what} of {label} must be a dict or a list of (variable, expression) pairs; "
                            f"got the item {pair!r}")
    return [tuple(pair) for pair in pairs]


def _update_pairs(updates, label):
    """Return the checked (shared variable, update expression) pairs."""
    pairs, seen = [], set()
    for target, value in _pairs(updates, "updates", label):
        if not isinstance(target, SharedVariable):
            raise TypeError(f"cannot update {target!r} in {label}: only shared variables can be updated "
                            f"(it is a {type(target).__name__}).\nHint: create it with opkit.shared(value), "
                            "or return the new value as an output.")
        if id(target.container) in seen:  # a clone of a shared variable holds the same value
            raise ValueError(f"shared variable {target} is updated twice in {label}; give each shared variable "
                             "at most one update expression.")
        seen.add(id(target.container))
        value = _as_variable_of(target, value, "an update")
        if not accepts(target.type, value.type):
            raise TypeError(f"the update of shared variable {target} has type {value.type}, but {target} has "
                            f"type {target.type}: an update must have the type of its shared variable."
                            f"\nHint: {_fix_hint(target, value, 'updates')}")
        pairs.append((target, value))
    return pairs


def _given_pairs(givens, inputs, label):
    """Return {variable: replacement} for the checked givens."""
    mapping = {}
    explicit = set(map(id, inputs))
    for variable, value in _pairs(givens, "givens", label):
        if not isinstance(variable, Variable) or isinstance(variable, Constant):
            raise TypeError(f"givens of {label}: {variable!r} is not a variable that can be replaced "
                            "(a key must be a symbolic Variable or a shared variable, not a constant or value)")
        if id(variable) in explicit:
            raise ValueError(f"{variable} is both an input of {label} and replaced through givens.\n"
                             "Hint: remove it from the inputs (givens supplies its value), or from givens.")
        if variable in mapping:
            raise ValueError(f"{variable} is replaced twice in the givens of {label}")
        value = _as_variable_of(variable, value, "a given")
        if not accepts(variable.type, value.type):
            raise TypeError(f"the given for {variable} has type {value.type}, but {variable} has type "
                            f"{variable.type}: a given must have the type of the variable it replaces."
                            f"\nHint: {_fix_hint(variable, value, 'givens')}")
        mapping[variable] = value
    return mapping


def _as_variable_of(target, value, what):
    """Return `value` as a Variable: plain data becomes a constant of `target`'s type."""
    if isinstance(value, Variable):
        return value
    try:
        return target.type.make_constant(target.type.filter(value))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what} for {target} is {value!r:.60}, which is not a value of its type: {exc}") from None


def accepts(target_type, value_type):
    """Return True if a value of `value_type` is always a valid value of `target_type`.

    Tensor types need the same dtype and ndim, and a static length where the
    target has one; other types must be equal.
    """
    if target_type == value_type:
        return True
    shape, other = getattr(target_type, "shape", None), getattr(value_type, "shape", None)
    if type(target_type) is not type(value_type) or shape is None or other is None:
        return False
    return (target_type.dtype == value_type.dtype and len(shape) == len(other)
            and all(s is None or s == o for s, o in zip(shape, other)))


def _fix_hint(target, value, where):
    """Return how to give `value` the type of `target` (a cast, or the static shape to build)."""
    dtype, other = getattr(target.type, "dtype", None), getattr(value.type, "dtype", None)
    shape, other_shape = getattr(target.type, "shape", None), getattr(value.type, "shape", None)
    if dtype is not None and other is not None and dtype != other and accepts(
            target.type, value.type.clone(dtype=dtype)):
        return (f"cast it to {dtype}: {where}={{{target}: opkit.tensor.cast(expression, {dtype!r})}}, "
                f"or make {target} {other}.")
    if dtype == other and shape is not None and other_shape is not None and len(shape) == len(other_shape):
        return (f"its static shape {other_shape} does not ensure {target}'s {shape}: build it from operands "
                "with those lengths.")
    return f"build an expression of type {target.type} (same dtype and number of dimensions)."


def _shared_variables(variables, targets):
    """Return the shared variables `variables` depend on, then the update targets not among them, each once."""
    found, seen = [], set()
    for variable in [*ancestors(variables), *targets]:
        if isinstance(variable, SharedVariable) and id(variable) not in seen:
            seen.add(id(variable))
            found.append(variable)
    return found


def replace_variables(outputs, mapping):
    """Return `outputs` with every variable of `mapping` replaced by its value, nodes copied as needed.

    The replacements are simultaneous: a replacement's own graph is not
    searched. Nodes that depend on no replaced variable are kept as they are.
    """
    if not mapping:
        return list(outputs)
    new = {id(old): value for old, value in mapping.items()}
    for node in io_toposort(list(mapping), outputs):
        inputs = [new.get(id(v), v) for v in node.inputs]
        if any(a is not b for a, b in zip(inputs, node.inputs)):
            copied = node.clone_with_new_inputs(inputs)
            for old, value in zip(node.outputs, copied.outputs):
                new[id(old)] = value
    return [new.get(id(v), v) for v in outputs]


def python_update_runner(runner, plan, n_outputs):
    """Return a runner over `runner` (explicit inputs, then shared values) that stores the updates.

    It reads each shared variable's value, runs the graph, then stores every
    update at once. Calls run one at a time (a reentrant lock per function), so
    concurrent calls never lose an update; a call made from inside a running
    call (a Python op calling its own function) goes on.
    """
    import threading

    cells, targets = plan.cells(), list(plan.updates)
    returned, total = len(plan.outputs), n_outputs
    lock = threading.RLock() if targets else None

    def run_graph(args):
        results = runner(*args, *[cell[0] for cell in cells])
        return [results] if total == 1 else results

    def run(*args):
        if lock is None:
            results = run_graph(args)
        else:
            with lock:
                results = run_graph(args)
                for k, value in zip(targets, results[returned:]):
                    cells[k][0] = value
        return results[0] if returned == 1 else results[:returned]

    return run
