"""Which nodes may share one module's compiler flags, and which must not.

A module is compiled with the union of its nodes' flags (opkit.cop.generate.node_code.Collector). Theano's
default linker compiled each node on its own, and op packages rely on that: two nodes of one op with
``-DJ=1`` and ``-DJ=2`` in one module both compile with the last value, silently. `ModuleFlags` reads each
C node's flags (its op's, its params type's and its variables' types') and says where two nodes clash:

- a macro that both define with different values (or one defines and the other undefines);
- a macro one defines that the other's own C text names (``#ifdef J``) while it leaves it undefined;
- an option only one of them passes (``-ffast-math``, ``-O3``, ``-std=c++11``), or one passing ``-fX``
  and the other ``-fno-X``; the options every module has (BASE_COMPILE_ARGS), warnings and debug info
  are neutral, and so are ``-fopenmp``/``-fno-openmp`` alone (opkit's own OpenMP switch);
- a flag one node removes (c_no_compile_args) that the other passes;
- a header or library that one node's directories resolve to another file than the other node's
  (or that shadows a system header the other includes).

opkit.link.partition never puts clashing nodes in one region: a clash costs a module, never a value.
What this cannot see: a header that defines a macro another node reads, and two libraries that define
one symbol (the first in link order wins); docs/porting_theano_ops.md says so.
"""

from __future__ import annotations

import functools
import os
import re

from opkit.cop.generate.cinterface import as_list, call, node_c_code
from opkit.cop.generate.node_code import FLAG_METHODS, Collector, asked_flags
from opkit.core.type import Type

# Options that never change what another node's code computes (or that every module has anyway).
_NEUTRAL_PREFIXES = ("-W", "-g", "-fdiagnostics", "-fmessage-length")
_NEUTRAL = frozenset({"-w", "-pipe", "-fPIC", "-fpic", "-pthread", "-fopenmp", "-fno-openmp", "-fopenmp-simd",
                      "-ffp-contract=off"})
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_OWN_MACRO = "OPKIT_"  # opkit's own macros (the GPU interpreter's switch): one value per process, read by opkit's C


def _base_args():
    from opkit.cop.build.extension import BASE_COMPILE_ARGS, build_flags

    return frozenset(BASE_COMPILE_ARGS) | frozenset(build_flags()[0])


def _joined(args):
    """Return compile args with two-item forms (``-D NAME``, ``-I dir``, ``-include f``) joined into one."""
    args, result, k = [str(a) for a in args], [], 0
    while k < len(args):
        arg = args[k]
        if arg in ("-D", "-U", "-I", "-include", "-isystem", "-imacros") and k + 1 < len(args):
            result.append(arg + ("" if arg in ("-D", "-U", "-I") else " ") + args[k + 1])
            k += 2
        else:
            result.append(arg)
            k += 1
    return result


def _option_key(option):
    """Return (key, value) of an option: ``-fno-x`` and ``-fx`` share a key; ``-O2``/``-O3``, ``-std=a``/``-std=b``."""
    if option.startswith("-O"):
        return "-O", option[2:]
    if "=" in option:
        key, value = option.split("=", 1)
        return key, value
    for prefix in ("-f", "-m"):
        if option.startswith(prefix + "no-"):
            return prefix + option[len(prefix) + 3:], False
        if option.startswith(prefix):
            return option, True
    return option, True


class NodeFlags:
    """One C node's flags, read once: its defines, options, removed flags, directories and libraries."""

    def __init__(self, node, base_args, owner_flags):
        self.node = node
        parts = {name: [] for name, _ in FLAG_METHODS}
        owners = [node.op, getattr(node.op, "params_type", None), *(v.type for v in (*node.inputs, *node.outputs))]
        for owner in owners:
            if owner is not None:
                for name, values in owner_flags(owner).items():
                    parts[name].extend(values)
        self.defines, options, dirs = {}, set(), []
        for arg in _joined(parts["compile_args"]):
            if arg.startswith("-D"):
                name, _, value = arg[2:].partition("=")
                self.defines[name.strip()] = value if "=" in arg else "1"
            elif arg.startswith("-U"):
                self.defines[arg[2:].strip()] = None
            elif arg.startswith("-I"):
                dirs.append(arg[2:])
            else:
                options.add(arg)
        self.all_args = frozenset(_joined(parts["compile_args"]))
        self.options = frozenset(o for o in options if o not in _NEUTRAL and o not in base_args
                                 and not o.startswith(_NEUTRAL_PREFIXES))
        self.openmp = {o for o in options if o in ("-fopenmp", "-fno-openmp")}
        self.removed = frozenset(_joined(parts["no_compile_args"]))
        self.headers = tuple(h.strip().strip('<>"') for h in parts["headers"])
        self.header_dirs = tuple(dict.fromkeys([*dirs, *map(str, parts["header_dirs"])]))
        self.libraries = tuple(map(str, parts["libraries"]))
        self.lib_dirs = tuple(dict.fromkeys(map(str, parts["lib_dirs"])))

    def signature(self):
        """What two nodes must share to never clash; equal signatures never clash."""
        defines = ((k, v) for k, v in self.defines.items() if not k.startswith(_OWN_MACRO))
        return (tuple(sorted(defines, key=lambda kv: (kv[0], str(kv[1])))), self.options,
                tuple(sorted(self.openmp)), self.removed, self.header_dirs, self.lib_dirs)

    def own_macros(self):
        """opkit's own macros this node defines (left out of its signature: see ModuleFlags)."""
        return {(k, v) for k, v in self.defines.items() if k.startswith(_OWN_MACRO)}

    @functools.cached_property
    def identifiers(self):
        """The C identifiers of the node's own code (None where it cannot be rendered: it names them all)."""
        op, node = self.node.op, self.node
        inputs = [f"I{k}" for k in range(len(node.inputs))]
        outputs = [f"O{k}" for k in range(len(node.outputs))]
        sub = {"fail": "{ __failure = 1; goto __label_1; }", "id": 1, "params": "params"}
        try:
            texts = [node_c_code(op, node, "node", inputs, outputs, dict(sub)),
                     call(op, "c_code_cleanup", node, "node", inputs, outputs, dict(sub), default="") or ""]
            for group in Collector.apply_texts(op, node, "node", "params"):
                texts.extend(group)
            for owner in (op, getattr(op, "params_type", None), *(v.type for v in (*node.inputs, *node.outputs))):
                if owner is not None:
                    texts += as_list(call(owner, "c_support_code")) + as_list(call(owner, "c_init_code"))
        except Exception:  # noqa: BLE001  (what raises here raises again, named, when the module is made)
            return None
        return frozenset(_IDENTIFIER.findall("\n".join(map(str, texts))))

    def names(self, macro) -> bool:
        return self.identifiers is None or macro in self.identifiers


def clash(a: NodeFlags, b: NodeFlags) -> str | None:
    """Return why nodes `a` and `b` cannot share one module's flags, or None if they can."""
    if a.signature() == b.signature() and not _differ(a.own_macros(), b.own_macros()):
        return None
    for name in a.defines.keys() | b.defines.keys():
        if name in a.defines and name in b.defines:
            if a.defines[name] != b.defines[name]:
                return f"macro {name} is {_shown(a.defines[name])} for one and {_shown(b.defines[name])} for the other"
        elif not name.startswith(_OWN_MACRO):
            one, other = (a, b) if name in a.defines else (b, a)
            if other.names(name):
                return f"macro {name} is defined for one node and read, undefined, by the other"
    if a.options != b.options:
        return f"compile options differ: {sorted(a.options ^ b.options)}"
    if len(a.openmp | b.openmp) > 1:
        return "one node compiles with -fopenmp and the other with -fno-openmp"
    removed = (a.removed & b.all_args) | (b.removed & a.all_args)
    if removed:
        return f"one node removes {sorted(removed)}, which the other passes"
    return _found_apart(a.headers, a.header_dirs, b.headers, b.header_dirs, _header_file, "header") or \
        _found_apart(a.libraries, a.lib_dirs, b.libraries, b.lib_dirs, _library_file, "library")


def _differ(own_a, own_b):
    """True if two sets of (macro, value) give one macro two values."""
    values = dict(own_a)
    return any(name in values and values[name] != value for name, value in own_b)


def _shown(value):
    return "undefined" if value is None else repr(value)


def _found_apart(names_a, dirs_a, names_b, dirs_b, find, what):
    if dirs_a == dirs_b:
        return None
    for name in dict.fromkeys([*names_a, *names_b]):
        if find(name, dirs_a) != find(name, dirs_b):
            return f"{what} {name} is found at {find(name, dirs_a) or 'the system'} for one node and at " \
                   f"{find(name, dirs_b) or 'the system'} for the other"
    return None


def _header_file(name, dirs):
    for directory in dirs:
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            return os.path.realpath(path)
    return None


def _library_file(name, dirs):
    for directory in dirs:
        for file in (f"lib{name}.so", f"lib{name}.a", f"lib{name}.dylib"):
            path = os.path.join(directory, file)
            if os.path.isfile(path):
                return os.path.realpath(path)
    return None


def _hashable(owner):
    try:
        hash(owner)
    except TypeError:
        return False
    return not any(callable(v) for v in getattr(owner, "__dict__", {}).values())


class ModuleFlags:
    """The flags of a graph's C nodes; `joins` says whether a node may join a region of others."""

    def __init__(self, nodes):
        base, types = _base_args(), {}  # (the ids are of owners `nodes` keep alive)

        def asked(owner):
            """An op's flags, or a type's (asked once per equal type: a graph has few)."""
            key = ("eq", owner) if isinstance(owner, Type) and _hashable(owner) else ("id", id(owner))
            if key not in types:
                types[key] = asked_flags(owner)
            return types[key]

        self.asked = asked  # what the regions' modules collect again (Collector): asked once
        self._flags = {id(node): NodeFlags(node, base, asked) for node in nodes}
        signatures = {flags.signature() for flags in self._flags.values()}
        own = set().union(*(flags.own_macros() for flags in self._flags.values()))
        # False: no two nodes can clash (the common case, and a GPU graph's host and device nodes: no check)
        self.possible = len(signatures) > 1 or len({name for name, _ in own}) < len(own)

    def joins(self, members, node) -> bool:
        """True if `node` may be compiled in one module with `members` (C nodes of this graph)."""
        if not self.possible:
            return True
        mine = self._flags[id(node)]
        return all(clash(self._flags[id(member)], mine) is None for member in members)

    def why(self, members, node):
        """The first clash of `node` with `members` (for messages), or None."""
        mine = self._flags[id(node)]
        for member in members:
            reason = clash(self._flags[id(member)], mine)
            if reason is not None:
                return f"{member} and {node}: {reason}"
        return None
