"""Code generation: a Region of the graph -> the C++ source of one extension module."""

from __future__ import annotations

import itertools

from opkit.config import config
from opkit.cop.generate.cinterface import call, include_line, node_c_code
from opkit.cop.generate.apply_support import place_apply_code
from opkit.cop.generate.node_code import (RESTORE_LINE_PRAGMA, Collector, Sharing,  # noqa: F401 (cop.py imports it)
                                 sync_read_objects, unique)
from opkit.cop.generate.templates import module_template
from opkit.core.aliasing import view_roots
from opkit.core.record import Record

MODULE_NAME_PLACEHOLDER = "OPKIT_MODULE_NAME"


class GeneratedModule(Record):
    """A module's source with the build settings its ops and types asked for."""

    _FIELDS = ("source", "include_dirs", "library_dirs", "libraries", "compile_args", "versioned")

    def __init__(self, source, include_dirs=None, library_dirs=None, libraries=None, compile_args=None,
                 versioned=True):
        self.source = source
        self.include_dirs = [] if include_dirs is None else include_dirs
        self.library_dirs = [] if library_dirs is None else library_dirs
        self.libraries = [] if libraries is None else libraries
        self.compile_args = [] if compile_args is None else compile_args
        self.versioned = versioned

    def with_name(self, module_name):
        return self.source.replace(MODULE_NAME_PLACEHOLDER, module_name)


def _fail(label):
    return f"{{ __failure = {label}; goto __label_{label}; }}"


class ModuleParts(Record):
    """Everything a region's module is rendered from: the template's context and the build settings.

    It is what the module *is*: every code string of every op and type, in
    place. Its key (see opkit.cop.compile) is derived from it, so a warm
    process finds its module without importing jinja2 or rendering.
    """

    _FIELDS = ("context", "include_dirs", "library_dirs", "libraries", "compile_args", "versioned")

    def __init__(self, context, include_dirs, library_dirs, libraries, compile_args, versioned):
        self.context = context
        self.include_dirs = include_dirs
        self.library_dirs = library_dirs
        self.libraries = libraries
        self.compile_args = compile_args
        self.versioned = versioned

    def content(self, rewrite=None) -> str:
        """Return a canonical text of the context: equal for equal modules, different otherwise.

        The context holds strings, numbers, None, lists and dicts built in a fixed
        order. Each string is written with its length, each list, tuple and dict with
        its size, anything else with its type and the length of its repr: no two
        contexts give one text, at a quarter of the cost of the context's repr.
        `rewrite(text)`, if given, is applied to each string first (a portable identity's).
        """
        pieces = []
        _canonical(self.context, pieces, rewrite)
        return "".join(pieces)

    def code_text(self) -> str:
        """Return every code string of the context, one after another (for finding included headers)."""
        texts = []

        def walk(value):
            if isinstance(value, str):
                texts.append(value)
            elif isinstance(value, dict):
                for item in value.values():
                    walk(item)
            elif isinstance(value, (list, tuple)):
                for item in value:
                    walk(item)

        walk(self.context)
        return "\n".join(dict.fromkeys(texts))  # each text once: nodes sharing code repeat theirs


def _canonical(value, pieces, rewrite):
    kind = type(value)
    if kind is str:
        if rewrite is not None:
            value = rewrite(value)
        pieces += ("s", str(len(value)), ":", value)
    elif kind is dict:
        pieces += ("d", str(len(value)), ":")
        for key, item in value.items():
            _canonical(key, pieces, rewrite)
            _canonical(item, pieces, rewrite)
    elif kind is list or kind is tuple:
        pieces += ("l" if kind is list else "t", str(len(value)), ":")
        for item in value:
            _canonical(item, pieces, rewrite)
    else:  # a number, None (or another value: its repr, as the whole context's repr would have it)
        text = repr(value)
        pieces += ("r", kind.__qualname__, str(len(text)), ":", text)


def collect_module(region, external=None, setups=(), external_declares=()) -> ModuleParts:
    """Ask every op and type of `region` for its C code; return the parts its module renders from.

    `external` maps node indices to the Entry each is compiled as elsewhere (an
    incremental build, opkit.cop.incremental), and `setups` names those objects:
    such nodes are calls into them, and the module is the glue that links with them;
    the variables of types whose c_declare is in `external_declares` are fetched,
    synced and cleaned up by functions, one per distinct code (see _VariableHelpers).
    """
    external = external or {}
    labels = itertools.count(1)
    names = {}
    for position, variable in enumerate(ordered_variables(region)):
        names[variable] = f"V{position}"
    helpers = _VariableHelpers(external_declares) if external else None
    variables = _variable_blocks(region, names, labels, helpers)
    nodes, params, collected, sharing = [], [], Collector(region.asked, region.target), Sharing()
    states, n_params, collected_nodes = [], 0, []
    for index, node in enumerate(region.nodes):
        params_name = None
        has_params = getattr(node.op, "params_type", None) is not None
        entry = external.get(index)
        if entry is not None:
            states.append(dict(symbol=entry.symbol, value=n_params if has_params else None))
            nodes.append(_external_block(node, index, names, next(labels), entry, len(states) - 1))
            n_params += has_params
            continue
        if has_params:
            params_name = f"node_{index}_params"
            params.append(_params_block(node.op.params_type, params_name, n_params))
            n_params += 1
        nodes.append(_node_block(node, index, names, labels, collected, params_name, sharing))
        collected_nodes.append((nodes[-1], collected.applies[-1]))
        if params_name is not None:
            # After the op: its support code may define what the struct's fields use (CEnumType's constants).
            collected.add_type(node.op.params_type)
    for variable in names:
        collected.add_type(variable.type)
    sync_read_objects(region, names, nodes, helpers)
    placement = place_apply_code(collected, collected_nodes, params)
    # No user names, constant values or descriptions: those must not change what the module is.
    context = dict(
        description=f"{len(region.nodes)} node(s)",
        include_lines=[include_line(h) for h in unique(collected.headers)],
        support_code=unique(collected.support_code) + placement.support_code,
        struct_support=placement.struct_support, struct_init=collected.struct_init,
        struct_cleanup=list(reversed(collected.struct_cleanup)),
        init_code=unique(collected.init_code) + placement.init_code_apply,
        n_constants=len(region.constants), storage_count=sum(v["keep"] is not None for v in variables),
        variables=variables, nodes=nodes, outputs=[names[v] for v in region.outputs],
        n_inputs=len(region.inputs), params=params, n_params=n_params, n_shared=len(region.shared),
        updates=[dict(name=names[v], cell=k) for k, v in region.updates],
    )
    if placement.struct_bases:  # nodes whose apply code is in namespaces (another module and key)
        context["struct_bases"] = placement.struct_bases
    if len(region.nodes) > QUICK_RUN_ABOVE:  # another module (and key); small graphs are unchanged
        context["quick_run"] = True
    if region.preallocated:  # another module (and key): the runner takes each output's array too
        context["preallocated"] = True
    if config.profile:  # another module (and key); without it the context, so the source, is unchanged
        context["profile"] = True
    if states:  # an incremental build's glue: the node objects it calls, each node's state
        context["states"] = states
        context["externals"] = [dict(symbol=symbol) for symbol in {e.symbol: e for e in external.values()}]
        context["setups"] = list(setups)
        context["support_code"] = context["support_code"] + helpers.functions
    no_args = set(collected.no_compile_args)
    return ModuleParts(context, unique(collected.header_dirs), unique(collected.lib_dirs),
                       unique(collected.libraries),
                       [a for a in unique(collected.compile_args) if a not in no_args],
                       collected.versioned)


def render_parts(parts: ModuleParts) -> GeneratedModule:
    """Render collected parts into module source (module name left as a placeholder)."""
    source = restore_line_numbers(module_template().render(module_name=MODULE_NAME_PLACEHOLDER, **parts.context))
    return GeneratedModule(source, parts.include_dirs, parts.library_dirs, parts.libraries,
                           parts.compile_args, parts.versioned)


def render_module(region) -> GeneratedModule:
    """Return the GeneratedModule for `region` (module name left as a placeholder)."""
    return render_parts(collect_module(region))


def restore_line_numbers(source):
    """Replace each RESTORE_LINE_PRAGMA line by a `#line` naming the module's own next line.

    Without it, generated code after an op's `#line "user.c"` section would be
    reported as lines of user.c that do not exist.
    """
    if RESTORE_LINE_PRAGMA not in source:
        return source
    lines = source.split("\n")
    for number, line in enumerate(lines, start=1):
        if line.strip() == RESTORE_LINE_PRAGMA:
            lines[number - 1] = f'#line {number + 1} "{MODULE_NAME_PLACEHOLDER}.cpp"'
    return "\n".join(lines)


def ordered_variables(region):
    """Return the region's variables in the order they are named V0, V1, ... and labelled."""
    return region.inputs + region.shared + region.constants + [v for node in region.nodes for v in node.outputs]


def failure_notes(region):
    """Return the note for each failure label (index = label): which variable or node failed.

    Labels number the variables first, then the nodes (see render_module). The
    notes are passed to the module at run time, so user names never reach the source.
    """
    notes = [""]
    inputs = {id(v): k for k, v in enumerate(region.inputs)}
    shared = {id(v): k for k, v in enumerate(region.shared)}
    for variable in ordered_variables(region):
        if id(variable) in inputs:
            notes.append(f"while checking input {inputs[id(variable)]} ({variable}), expected {variable.type}")
        elif id(variable) in shared:
            notes.append(f"while reading shared variable {variable}, expected {variable.type}")
        elif variable.owner is None:
            notes.append(f"while reading a constant of type {variable.type}")
        else:
            notes.append(f"while preparing {variable}, output of {variable.owner}")
    for node in region.nodes:
        op = node.op
        types = ", ".join(str(v.type) for v in node.inputs)
        notes.append(f"Apply node that failed: {node}\nOp: {type(op).__module__}.{type(op).__qualname__}"
                     f"\nInput types: {types}")
    return tuple(notes)


def _checked_inputs(region):
    """Return the ids of the inputs C checks: those read by a node whose op keeps check_input (Theano's rule).

    An input that only ops with ``check_input = False`` read is extracted without its type's checks.
    """
    checked, read = set(), set()
    for node in region.nodes:
        for variable in node.inputs:
            read.add(id(variable))
            if getattr(node.op, "check_input", True):
                checked.add(id(variable))
    return checked | {id(v) for v in region.inputs + region.shared if id(v) not in read}


def _variable_blocks(region, names, labels, helpers=None):
    """Return each variable's block of the module (declare, fetch, sync, cleanup, where its value comes from).

    With `helpers` (a _VariableHelpers, in an incremental build's glue), the
    fetch, sync and cleanup of a variable whose type declares one C variable
    are calls of a function per distinct code, not that code again for every variable.
    """
    outputs = set(map(id, region.outputs)) | {id(v) for _, v in region.updates}
    inputs = {id(v): k for k, v in enumerate(region.inputs)}
    shared = {id(v): k for k, v in enumerate(region.shared)}
    constants = {id(v): k for k, v in enumerate(region.constants)}
    given = {id(v): len(inputs) + k for k, v in enumerate(region.outputs)} if region.preallocated else {}
    returned = {}
    for position, variable in enumerate(region.outputs):
        returned.setdefault(id(variable), position)
    checked = _checked_inputs(region)
    passed_in = set(inputs) | set(shared)
    blocks, keep = [], 0
    for variable, name in names.items():
        label = next(labels)
        sub = {"fail": _fail(label), "id": label}
        ctype = variable.type
        if id(variable) in inputs or id(variable) in shared:
            role = ("extract", id(variable) in checked)
        elif id(variable) in constants:
            role = ("extract", False)
        else:
            role = ("fetch_or_init", False)
        fetch, sync, cleanup = _variable_code(ctype, role, name, sub)
        if helpers is not None and helpers.accepts(ctype):
            fetch, sync, cleanup = helpers.calls(ctype, role, name, label)
        block = dict(name=name, label=label, keep=None, output=None, sync="",
                     declare=call(ctype, "c_declare", name, sub, check_input=True, default=""),
                     cleanup=cleanup, fetch=fetch)
        if id(variable) in inputs:
            block.update(source=f"args[{inputs[id(variable)]}]", comment=f"input {inputs[id(variable)]}: {ctype}")
        elif id(variable) in shared:
            # Read from the cell at every call: a value set between calls is seen, no old pointer is kept.
            block.update(source=f"opkit_shared_value(shared[{shared[id(variable)]}])",
                         comment=f"shared {shared[id(variable)]}: {ctype}")
        elif id(variable) in constants:
            block.update(source=f"constants[{constants[id(variable)]}]", comment=f"constant: {ctype}")
        else:
            block.update(sync=sync)
            if id(variable) in given:
                block.update(source=f"args[{given[id(variable)]}]", comment=f"output: {ctype}", output=True)
            elif id(variable) in returned and _keeps_buffer(ctype, variable, passed_in):
                # A result that a function's runner keeps for the next call (runner.keep_outputs, set by
                # opkit.link.c_linker for a function's own region; a run-time switch, so one module serves
                # a function and `opkit build`): its node reuses it if the caller dropped it
                # (opkit_take_output), or writes into the caller's array from out=.
                block.update(source=None, comment=f"output {returned[id(variable)]}: {ctype}", output=True,
                             keep=keep, position=returned[id(variable)])
                keep += 1
            elif id(variable) in outputs:
                block.update(source="Py_None", comment=f"output: {ctype}", output=True)
            elif any(id(root) in passed_in for root in view_roots(variable, passed_in)):
                # A view of an input or a shared value is not kept for the next call: it would keep
                # that value alive (a shared variable's old value, after its update) and is never reused.
                block.update(source="Py_None", comment=f"intermediate view: {ctype}")
            else:
                block.update(source=None, comment=f"intermediate: {ctype}", keep=keep)
                keep += 1
        blocks.append(block)
    return blocks


def _keeps_buffer(ctype, variable, passed_in):
    """True if a returned output of type `ctype` is kept for the next call: an array with memory of its
    own. A view of an input or a shared value would keep that value alive and is never reused; a view or
    an in-place update of an intermediate is reused through that intermediate's slot, which a second
    reference from the output's slot would keep from being reused at all."""
    if getattr(ctype, "dtype", None) is None or getattr(ctype, "ndim", None) is None:
        return False
    return view_roots(variable, passed_in) == [variable]


def _variable_code(ctype, role, name, sub):
    """Return a variable's (fetch, sync, cleanup) C: `role` is ("extract", check_input) or ("fetch_or_init", _)."""
    kind, check = role
    cleanup = call(ctype, "c_cleanup", name, sub, default="")
    if kind == "extract":
        return call(ctype, "c_extract", name, sub, check_input=check, default=""), "", cleanup
    extract = call(ctype, "c_extract", name, sub, check_input=False, default="")
    init = call(ctype, "c_init", name, sub, default="")
    return (f"if (py_{name} != Py_None) {{\n{extract}\n}} else {{\n{init}\n}}",
            call(ctype, "c_sync", name, sub, default=""), cleanup)


class _VariableHelpers:
    """The functions an incremental build's glue calls for its variables: one per distinct code.

    Each takes the variable's PyObject* and C value by address, runs the type's
    code on local copies named `v` and writes them back; 1 means it failed.
    """

    def __init__(self, declares):
        self._declares = declares
        self._index = {}
        self.functions = []

    def accepts(self, ctype) -> bool:
        return getattr(type(ctype), "c_declare", None) in self._declares

    def calls(self, ctype, role, name, label):
        fetch, sync, cleanup = _variable_code(ctype, role, "v", {"fail": "{ __failure = 1; goto __label_1; }",
                                                                   "id": 1})
        declare = call(ctype, "c_declare", "v", {"fail": "", "id": 1}, check_input=True, default="")
        args = f"&py_{name}, (void*)&{name}"
        failed = f"{{ __failure = {label}; goto __label_{label}; }}"
        return (f"if ({self._function(declare, fetch)}({args})) {failed}" if fetch.strip() else "",
                f"if ({self._function(declare, sync)}({args})) {failed}" if sync.strip() else "",
                f"{self._function(declare, cleanup)}({args});" if cleanup.strip() else "")

    def _function(self, declare, code) -> str:
        name = self._index.get((declare, code))
        if name is None:
            name = self._index[(declare, code)] = f"opkit_variable_{len(self.functions)}"
            self.functions.append(
                f"static int {name}(PyObject** py_slot, void* slot)\n{{\n    int __failure = 0;\n"
                f"    PyObject* py_v = *py_slot;\n{declare}\n    v = *(decltype(v)*)slot;\n    {{\n{code}\n    }}\n"
                f"    goto __label_1;\n__label_1:\n    *py_slot = py_v;\n    *(decltype(v)*)slot = v;\n"
                f"    return __failure;\n}}")
        return name


def region_params(region):
    """Return the params of each node of `region` that has a params_type, in node order (passed to make)."""
    return [node.op.node_params(node) for node in region.nodes if getattr(node.op, "params_type", None) is not None]


def _params_block(params_type, name, index=0):
    """Return the C of one node's params: a struct member, extracted once per function in init().

    `index` is its position among the params make() is given (see region_params).
    """
    sub = {"fail": "{ return -1; }"}
    return dict(name=name, index=index, declare=call(params_type, "c_declare", name, sub, check_input=True, default=""),
                init=call(params_type, "c_init", name, sub, default=""),
                extract=call(params_type, "c_extract", name, sub, check_input=True, default=""),
                cleanup=call(params_type, "c_cleanup", name, sub, default=""))


def _node_block(node, index, names, labels, collected, params_name=None, sharing=None):
    op, name = node.op, f"node_{index}"
    label = next(labels)
    sub = {"fail": _fail(label), "id": label}
    if params_name is not None:
        sub["params"] = params_name
    inputs = [names[v] for v in node.inputs]
    outputs = [names[v] for v in node.outputs]
    shared = sharing.lookup(node, params_name) if sharing is not None else None
    if shared is not None:
        code = node_c_code(op, node, shared.name, inputs, outputs, sub)
        cleanup = call(op, "c_code_cleanup", node, shared.name, inputs, outputs, sub, default="")
        if shared.accepts(collected.apply_texts(op, node, shared.name, target=collected.target), code, cleanup):
            collected.add_op(op, node, shared.name, params_name, apply_code=False)
            return _node_dict(op, name, label, inputs, outputs, code, cleanup)
    code = node_c_code(op, node, name, inputs, outputs, sub)
    cleanup = call(op, "c_code_cleanup", node, name, inputs, outputs, sub, default="")
    texts = collected.add_op(op, node, name, params_name)
    if sharing is not None:
        sharing.remember(node, params_name, name, texts)
    return _node_dict(op, name, label, inputs, outputs, code, cleanup)


def _external_block(node, index, names, label, entry, state):
    """Return the node entry of a node compiled on its own: a call of its object on the variables' addresses."""
    slots = "void* const slots[] = {" + ", ".join(f"(void*)&{names[v]}" for v in node.inputs + node.outputs) + "};"
    code = (f"{slots}\nif ({entry.symbol}_run(node_state[{state}], slots)) "
            f"{{ __failure = {label}; goto __label_{label}; }}")
    return dict(_node_dict(node.op, f"node_{index}", label, [names[v] for v in node.inputs],
                           [names[v] for v in node.outputs], code, ""), external=True)


def _node_dict(op, name, label, inputs, outputs, code, cleanup):
    # Comments name no constant values, user names or addresses: those must not change the cache key.
    comment = f"{type(op).__name__}({', '.join(inputs)}) -> {', '.join(outputs)}".replace("\n", " ")
    return dict(name=name, label=label, comment=comment[:160],
                code=code, cleanup=cleanup or "")


# A region of more nodes than this builds each node's code as a function of its own and its glue
# (extract, call each node, sync, clean up) at -O0 (see the template): g++'s time grows faster than
# linearly with one function's size, and the glue gains little from -O2.
QUICK_RUN_ABOVE = 24
