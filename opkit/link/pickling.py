"""Pickle compiled functions: their graph and mode travel, the receiving process rebuilds them.

A function is pickled as a *recipe*: its inputs, its nodes in an order that
runs (each an op, references to earlier variables and its output types), its
outputs and its mode. Unpickling rebuilds the graph and compiles it as
`opkit.function` does, so its modules come from the receiving process's cache
(or are compiled there, under the cache's per-key lock). Rebuilt functions are
kept per process by their token (at most REBUILT_LIMIT of them, the least
recently used go first), so a Dask worker that unpickles one function for each
task rebuilds it once, and a long-lived worker does not grow without bound.

`graph_token` is the function's identity for Dask (`__dask_tokenize__`): a
sha256 over each part pickled on its own, so it is the same in every process
and under every PYTHONHASHSEED, equal for equal functions and different
otherwise. It covers everything that changes what a call returns: the graph,
the output structure (one output or a list), each node's code identity (its
op's Python code and the C it generates, as the module cache sees it:
opkit.link.code_identity), the mode and the flags that change the built code.
"""

from __future__ import annotations

import pickle

from opkit.core.digest import sha256
from opkit.core.graph import Apply, Constant, Variable, io_toposort
from opkit.core.memo import BoundedMemo
from opkit.link import function_maker
from opkit.link.code_identity import code_flags, node_identity

REBUILT_LIMIT = 64
# (token, trust_input, flags, op classes) -> Function rebuilt in this process (rebuild_function)
_rebuilt = BoundedMemo(REBUILT_LIMIT)


def graph_recipe(inputs, outputs) -> tuple:
    """Return a picklable description of the graph from `inputs` to `outputs` (no tags, no compiled state)."""
    refs: dict[int, tuple] = {id(v): ("input", i) for i, v in enumerate(inputs)}
    constants: list = []
    nodes = []

    def ref(variable):
        found = refs.get(id(variable))
        if found is None:
            if not isinstance(variable, Constant):
                raise ValueError(f"{variable} is neither an input nor computed in the graph")
            found = refs[id(variable)] = ("constant", len(constants))
            constants.append((type(variable), variable.type, variable.data, variable.name))
        return found

    for number, node in enumerate(io_toposort(inputs, outputs)):
        node_inputs = [ref(v) for v in node.inputs]
        for index, variable in enumerate(node.outputs):
            refs[id(variable)] = ("node", number, index)
        nodes.append((node.op, node_inputs, [(type(v), v.type, v.name) for v in node.outputs]))
    described_inputs = [(type(v), v.type, v.name) for v in inputs]
    return (described_inputs, constants, nodes, [ref(v) for v in outputs])


def rebuild_graph(recipe) -> tuple[list, list]:
    """Return fresh (inputs, outputs) variables for a recipe made by graph_recipe."""
    described_inputs, constants, nodes, output_refs = recipe
    inputs = [cls(variable_type, None, None, name) for cls, variable_type, name in described_inputs]
    made_constants = [_constant(*described) for described in constants]
    made_nodes: list[Apply] = []

    def lookup(reference):
        kind = reference[0]
        if kind == "input":
            return inputs[reference[1]]
        if kind == "constant":
            return made_constants[reference[1]]
        return made_nodes[reference[1]].outputs[reference[2]]

    for op, input_refs, described_outputs in nodes:
        node_outputs = [cls(variable_type, None, None, name) for cls, variable_type, name in described_outputs]
        made_nodes.append(Apply(op, [lookup(r) for r in input_refs], node_outputs))
    return inputs, [lookup(r) for r in output_refs]


def _constant(cls, variable_type, data, name):
    constant = object.__new__(cls)
    Variable.__init__(constant, variable_type, None, None, name)
    constant.data = data
    return constant


def node_identities(inputs, outputs) -> list:
    """Return the code identity of each node of the graph, in graph_recipe's order."""
    identities, seen = [], {}
    for node in io_toposort(inputs, outputs):
        key = None
        if not any(isinstance(v, Constant) for v in node.inputs):  # a constant may be baked into C code
            key = (node.op, tuple(v.type for v in node.inputs), tuple(v.type for v in node.outputs))
            try:
                found = seen.get(key)
            except TypeError:
                found = key = None
            if found is not None:
                identities.append(found)
                continue
        identity = node_identity(node)
        if key is not None:
            seen[key] = identity
        identities.append(identity)
    return identities


def graph_token(recipe, mode, single=False, identities=(), flags=None) -> str:
    """Return a deterministic hex digest of a function (see the module docstring).

    `single`: the function returns one output, not a list; `identities`: each
    node's code identity (node_identities); `flags`: code_flags() by default.
    """
    described_inputs, constants, nodes, output_refs = recipe
    digest = sha256(b"opkit.function 2")

    def add(part):
        data = _dumps(part)
        digest.update(len(data).to_bytes(8, "little") + data)

    add(described_inputs)
    for constant in constants:
        add(constant)
    for op, input_refs, described_outputs in nodes:
        add(op)  # on its own: an op shared by two nodes pickles as two equal ones would
        add((input_refs, described_outputs))
    add(output_refs)
    add(("single" if single else "list", len(output_refs)))
    add(list(identities))
    add(mode)
    add(code_flags() if flags is None else tuple(flags))
    return digest.hexdigest()


def _dumps(part) -> bytes:
    try:
        return pickle.dumps(part, protocol=4)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        try:
            import cloudpickle  # type: ignore[import-untyped]
        except ImportError:
            raise TypeError(f"cannot pickle {part!r} ({exc}); define the op at module level "
                            "or install cloudpickle") from None
        return cloudpickle.dumps(part, protocol=4)


def rebuilt_key(recipe, single, trust_input, token) -> tuple:
    """Return the key of the function a pickle describes among those this process rebuilt (see rebuilt).

    The copy is found by the sender's token (which covers the sender's code) and
    by what this process resolved the pickle's ops to and builds with: their
    classes (a class defined again here gives another copy), the section files a
    COp re-read here (with the headers they include) and the build flags.
    """
    return (token, bool(single), trust_input, code_flags(), tuple(_local_identity(op) for op, _, _ in recipe[2]))


def rebuilt(key):
    """Return the function this process rebuilt for `key` (rebuilt_key), or None."""
    return _rebuilt.get(key)


def keep_rebuilt(key, function):
    """Keep `function`, rebuilt from a pickle, for the next unpickling of the same key."""
    _rebuilt[key] = function


def _local_identity(op):
    """Return what this process resolved a pickled op to, cheaply: its class, and a COp's files' content."""
    if hasattr(op, "code_sections") and hasattr(op, "func_files"):  # a COp: its files as read on unpickling
        return type(op), op.c_code_cache_version()
    return type(op)


def rebuilt_count() -> int:
    """Return how many unpickled functions this process keeps for reuse (at most REBUILT_LIMIT)."""
    return len(_rebuilt)


def rebuild_function(recipe, mode, name, single, trust_input, token):
    """Return the function a pickle describes: this process's copy if it rebuilt it before (see rebuilt_key).

    Every pickle of a function, those of earlier opkit versions too, names this
    function. It compiles with opkit.function, as opkit.link.function_maker has it: this
    module does not import the function module, which imports this one to pickle.
    """
    key = rebuilt_key(recipe, single, trust_input, token)
    made = rebuilt(key)
    if made is None:
        inputs, outputs = rebuild_graph(recipe)
        made = function_maker.function(inputs, outputs[0] if single else outputs, mode=mode, name=name, on_unused_input="ignore")
        made.trust_input = trust_input
        made._token = token
        keep_rebuilt(key, made)
    return made
