"""What each node adds to a generated module: its sections collected once, and apply code shared by equal nodes."""

from __future__ import annotations

import functools
import re

from opkit.cop.generate import node_glue
from opkit.cop.generate.cinterface import as_list, call
from opkit.cop.source import RESTORE_LINE_PRAGMA  # noqa: F401  (codegen and apply_support use it from here)
from opkit.core.record import Record


def unique(items):
    """Return `items` without repeats, in first-seen order."""
    seen, result = set(), []
    for item in items:
        if item not in seen:
            seen.add(item)
            result.append(item)
    return result


_APPLY_LABEL = r"APPLY_SPECIFIC\s*\([^()]*\)\s*:(?!:)"


class _Shared(Record):
    """The first node of an op on given types: later identical nodes call its apply code."""

    _FIELDS = ("name", "texts")

    def __init__(self, name, texts):
        self.name = name
        self.texts = texts

    def accepts(self, texts, code, cleanup) -> bool:
        """Return True if a later node renders the same apply code, and its code defines nothing by name.

        Names made from the node's name (APPLY_SPECIFIC) are shared, so a node
        with struct members, or a `code` that defines a label from its name
        (labels are per function), keeps its own name.
        """
        if texts != self.texts or any(self.texts[2:]):
            return False
        body = f"{code}\n{cleanup}".replace(f"APPLY_SPECIFIC(str) str##_{self.name}", "")  # the macro's own line
        return self.name not in body and not re.search(_APPLY_LABEL, body)


class Sharing:
    """Nodes of one op on the same types generate their apply-specific C once (the first node's name).

    200 nodes of one COp then compile one copy of its support functions, not 200.
    """

    def __init__(self):
        self._first = {}

    @staticmethod
    def _key(node, params_name):
        if params_name is not None:
            return None
        key = (node.op, tuple(v.type for v in node.inputs), tuple(v.type for v in node.outputs))
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def lookup(self, node, params_name):
        key = self._key(node, params_name)
        return None if key is None else self._first.get(key)

    def remember(self, node, params_name, name, texts):
        key = self._key(node, params_name)
        if key is not None and key not in self._first:
            self._first[key] = _Shared(name, texts)


def _kernels(op, node, name, target):
    """Return a GPU node's kernels as its host module holds them for `target` (opkit.cop.generate.node_glue),
    [] for other nodes: a CPU module's text is unchanged."""
    if not node_glue.is_gpu_node(op, node):
        return []
    return [node_glue.kernels_in_host_module(node, name, _required(target, node))]


def _required(target, what):
    """Return `target`; a region holding GPU values is generated for a device, never for a guessed one."""
    if target is None:
        raise LookupError(f"{what} holds GPU values, and its region names no target: the linker gives each region "
                          "the target its backend carries (opkit.decision.decide(device))")
    return target


FLAG_METHODS = (("headers", "c_headers"), ("header_dirs", "c_header_dirs"), ("libraries", "c_libraries"),
                ("lib_dirs", "c_lib_dirs"), ("compile_args", "c_compile_args"), ("no_compile_args", "c_no_compile_args"))


def asked_flags(obj) -> dict:
    """Return what an op or type asks of the compiler: its headers, directories, libraries and flags."""
    return {attribute: as_list(call(obj, method, c_compiler=None)) for attribute, method in FLAG_METHODS}


class Collector:
    """Gather support code, headers and flags from every op and type of a module.

    `asked(obj)` gives an op's or type's flags (asked_flags; opkit.link.partition's memo of what it
    asked already, when it cut the region). `target` is the device the module is generated for
    (opkit.cop.generate.target, the region's): what its GPU nodes hold of their kernels, and the flags a module
    holding GPU values is compiled with; None for a region without GPU values.
    """

    def __init__(self, asked=None, target=None):
        self._asked = asked or asked_flags
        self.target = target
        self.headers, self.header_dirs, self.libraries, self.lib_dirs = [], [], [], []
        self.compile_args, self.no_compile_args = [], []
        self.support_code, self.support_code_apply, self.init_code, self.init_code_apply = [], [], [], []
        self.struct_support, self.struct_init, self.struct_cleanup = [], [], []
        self.applies = []  # each node's apply-level code, for opkit.cop.generate.apply_support (see add_op)
        self.versioned = True
        self._types_seen = set()
        self._device_args = False  # the target's compile_args, added with the first GPU value

    def _flags(self, obj):
        for attribute, values in self._asked(obj).items():
            getattr(self, attribute).extend(values)
        self.support_code.extend(as_list(call(obj, "c_support_code")))
        self.init_code.extend(as_list(call(obj, "c_init_code")))

    def add_type(self, ctype):
        # A type seen before gives the same code again; one with methods assigned on the instance counts
        # by identity only (equal instances may carry other methods).
        seen = ("id", id(ctype)) if any(callable(v) for v in getattr(ctype, "__dict__", {}).values()) \
            else ("eq", ctype)
        try:
            if seen in self._types_seen:
                return
            self._types_seen.add(seen)
        except TypeError:  # an unhashable type: ask it every time
            pass
        self._flags(ctype)
        if not self._device_args and callable(getattr(ctype, "host_type", None)):  # a GPU type: values on a device
            self._device_args = True
            self.compile_args.extend(_required(self.target, ctype).compile_args)
        if not call(ctype, "c_code_cache_version", default=()):
            self.versioned = False

    @staticmethod
    def apply_texts(op, node, name, params_name=None, target=None):
        """Return the node's apply-level code under `name`: support, init, struct support, init, cleanup.

        A GPU node's support code holds its kernels for `target` (a LookupError without one)."""
        struct_sub = {"fail": "{ return -1; }"}
        if params_name is not None:
            struct_sub["params"] = params_name
        # `sub` only for methods that take it: the tutorials' c_support_code_struct(node, name) does not.
        return (as_list(call(op, "c_support_code_apply", node, name)) + _kernels(op, node, name, target),
                as_list(call(op, "c_init_code_apply", node, name)),
                as_list(call(op, "c_support_code_struct", node, name, sub=dict(struct_sub))),
                as_list(call(op, "c_init_code_struct", node, name, struct_sub)),
                as_list(call(op, "c_cleanup_code_struct", node, name, sub=dict(struct_sub))))

    def add_op(self, op, node, name, params_name=None, apply_code=True):
        """Collect an op's flags and code; `apply_code=False` for a node sharing an earlier node's code.

        A sharing node's op equals the earlier node's, on the same types: its
        flags, support code and version are the ones already collected.
        """
        if not apply_code:
            self.applies.append(dict(node=node, owner=name, struct_index=len(self.struct_init)))
            self.struct_init.append("")
            self.struct_cleanup.append("")
            return None
        self._flags(op)
        texts = self.apply_texts(op, node, name, params_name, self.target)
        support_apply, init_apply, struct_support, init, cleanup = texts
        self.applies.append(dict(node=node, owner=name, struct_index=len(self.struct_init), support=support_apply,
                                 init_apply=init_apply, struct_support=struct_support, params=params_name))
        self.support_code_apply.extend(support_apply)
        self.init_code_apply.extend(init_apply)
        self.struct_support.extend(struct_support)
        self.struct_init.append("\n".join(init))
        self.struct_cleanup.append("\n".join(cleanup))
        version = call(op, "c_code_cache_version_apply", node, default=None)
        if version is None:
            version = call(op, "c_code_cache_version", default=())
        if not version:
            self.versioned = False
        return texts


_READS_PY_OBJECT = re.compile(r"\bpy_(V\d+)\b")


@functools.lru_cache(maxsize=256)
def _py_objects_read(text):
    """Return the names whose `py_<name>` `text` reads (keyed by the text itself: a recompile scans it once)."""
    return frozenset(_READS_PY_OBJECT.findall(text))


def sync_read_objects(region, names, nodes, helpers=None):
    """Sync, right after the node computing it, each variable whose `py_<name>` a node's C reads.

    `nodes` are the module's node entries (opkit.cop.generate.codegen), one per node of
    `region`; `helpers` the incremental glue's variable functions, if any.

    Theano's CLinker keeps every variable's PyObject in step with its C value, and
    ported C reads it (``PyArray_TYPE(py_%(x)s)``); without this, `py_<name>` of a
    value another node computed would be None or the last call's object until the
    final sync. Only the names some node's text reads get the extra sync: a module
    whose C reads none is unchanged.
    """
    read = set()
    for node in nodes:
        if not node.get("external"):
            read.update(_py_objects_read(node["code"]))
            read.update(_py_objects_read(node["cleanup"]))
    if not read:
        return
    for apply, block in zip(region.nodes, nodes):
        label, syncs = block["label"], []
        for variable in apply.outputs:
            name = names[variable]
            if name not in read:
                continue
            if helpers is not None and helpers.accepts(variable.type):
                syncs.append(helpers.calls(variable.type, ("fetch_or_init", False), name, label)[1])
            else:
                fail = f"{{ __failure = {label}; goto __label_{label}; }}"
                syncs.append(call(variable.type, "c_sync", name, {"fail": fail, "id": label}, default=""))
        if any(text.strip() for text in syncs):
            block["sync"] = "\n".join(syncs)
