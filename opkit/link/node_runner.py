"""Link's one node runner: run one op on values of given opkit types, compiled once per (op, input types).

Every way of running a lone op goes through here: ``op.compute`` (opkit.link.eager,
which the torch bridge calls), the PyTensor bridge's perform and the JAX bridge's
FFI handler. A runner is an `opkit.function` of the op's node, so it gets what
link gives every function: the backend decided once (a compiled module, a shipped
one, or perform under python_fallback), profiling (``profile=True``) and the
function's own checks of its inputs unless `trusted`.

`preallocated` (the JAX handler's convention) asks for a runner that also takes
an array per output, which the op's C code finds as its output and writes into
where it reuses its outputs. It is the node's module called directly; where
that is not safe or possible (no compiler here, an op without C code, one that
writes into its inputs, or whose make_node put other nodes before it) or when
``config.profile`` asks for per-node times, the runner is the function form,
and says so (see `node_runner`).

The compiled functions are kept in one bounded memo, keyed by the op, its
node's code identity (an op whose `.c` file was edited, then created again,
equals the old one by its props, not by its identity: opkit.link.code_identity)
and the input types.
"""

from __future__ import annotations

from opkit.config import config
from opkit.cop.generate.cinterface import op_has_c
from opkit.core.memo import BoundedMemo
from opkit.decision import decide
from opkit.cop.generate.region import Region
from opkit.link.binders import region_runner
from opkit.link.code_identity import node_identity
from opkit.link.function import function

COMPILED_LIMIT = 256
# (op, code identity, *input types) or ("node", op, code identity, types, preallocated, trusted, profile) -> runner;
# op.compute's params entries ("params", ...) -> (op, function) live here too (opkit.link.eager)
compiled = BoundedMemo(COMPILED_LIMIT)
_by_op = BoundedMemo(4 * COMPILED_LIMIT)  # id(op) -> (op, {(types, preallocated, trusted, profile): runner})


def compile_node(inputs, node, name, single=False, trusted=False):
    """Return the opkit function computing `node` from `inputs` (one output, or a list with `single` False)."""
    outputs = list(node.outputs)
    made = function(inputs, outputs[0] if single and len(outputs) == 1 else outputs, name=name,
                    on_unused_input="ignore")
    if trusted:
        made.trust_input = True
    return made


def node_runner(op, input_types, preallocated=False, trusted=False, name=None):
    """Return (runner, takes_outputs): `op` applied to values of `input_types`, compiled once (bounded memo).

    The runner returns a list of the node's outputs. With `preallocated`, `takes_outputs`
    says whether it takes an array per output after the inputs (see the module docstring);
    `trusted`: its caller has checked the values against `input_types` already.
    """
    types = tuple(input_types)
    flavour = (types, bool(preallocated), bool(trusted), bool(config.profile))  # a profiled runner is another one
    entry = _by_op.get(id(op))
    if entry is not None and entry[0] is op and flavour in entry[1]:
        return entry[1][flavour]
    variables = [t() for t in types]
    node = op.make_node(*variables)
    key = ("node", op, node_identity(node), *flavour)
    found = compiled.get(key)
    if found is None:
        label = name or f"{op} on ({', '.join(map(str, types))})"
        found = (_preallocated_runner(variables, node, label) if preallocated else None) or \
            (compile_node(variables, node, label, trusted=trusted), False)
        compiled[key] = found
    if entry is None or entry[0] is not op:
        entry = (op, {})  # holding op keeps its id from being reused while the entry lives
    entry[1][flavour] = found
    _by_op[id(op)] = entry
    return found


def _preallocated_runner(inputs, node, label):
    """Return (the node's module runner, True), or None where a preallocated call is not safe or possible."""
    if (config.profile or any(o.owner is not node for o in node.outputs) or list(node.inputs) != list(inputs)
            or getattr(node.op, "destroy_map", None) or not op_has_c(node)):
        return None  # the function form: profiled (config.profile), or not safe to call directly
    backend = decide()  # this entry's one decision: the module is called with no function around it
    if not backend.compiles:
        return None  # the function form, which finds the shipped module or falls back to perform
    return region_runner(Region.of_node(node, backend.target, preallocated=True), label, backend), True


def run_node(op, input_types, values):
    """Return the outputs (a list) of `op` on `values`, already checked against their opkit types `input_types`."""
    return node_runner(op, input_types, trusted=True)[0](*values)


def compiled_count() -> int:
    """Return how many compiled runners this process keeps (at most COMPILED_LIMIT)."""
    return len(compiled)
