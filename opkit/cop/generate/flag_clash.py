"""Which nodes may share one module's compiler flags, and which must not.

A module is compiled with the union of its nodes' flags (opkit.cop.generate.node_code.Collector). Theano's
default linker compiled each node on its own, and op packages rely on that: two nodes of one op with
``-DJ=1`` and ``-DJ=2`` in one module both compile with the last value, silently. `ModuleFlags` reads each
C node's flags (its op's, its params type's and its variables' types') and says where two clash:

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

Nodes with the same flags form a class; two classes are compared once, and a region's `Run` admits a
node by comparing its class with the few classes of the run, so cutting a graph stays linear.
"""

from __future__ import annotations

import functools
import os
import re

from opkit.cop.generate.cinterface import as_list, call, node_c_code
from opkit.cop.generate.node_code import FLAG_METHODS, Collector, asked_flags

# Options that never change what another node's code computes (or that every module has anyway).
_NEUTRAL_PREFIXES = ("-W", "-g", "-fdiagnostics", "-fmessage-length")
_NEUTRAL = frozenset({"-w", "-pipe", "-fPIC", "-fpic", "-pthread", "-fopenmp", "-fno-openmp", "-fopenmp-simd",
                      "-ffp-contract=off"})
_IDENTIFIER = r"[A-Za-z_]\w*"
_OWN_MACRO = "OPKIT_"  # opkit's own macros (the GPU interpreter's switch): one value per process, read by opkit's C


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


class FlagSet:
    """The flags of nodes whose ops and types asked for the same: defines, options, removed flags,
    headers, directories and libraries."""

    def __init__(self, parts, base_args):
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
        self.openmp = frozenset(o for o in options if o in ("-fopenmp", "-fno-openmp"))
        self.removed = frozenset(_joined(parts["no_compile_args"]))
        self.headers = tuple(dict.fromkeys(h.strip().strip('<>"') for h in parts["headers"]))
        self.header_dirs = tuple(dict.fromkeys([*dirs, *map(str, parts["header_dirs"])]))
        self.libraries = tuple(dict.fromkeys(map(str, parts["libraries"])))
        self.lib_dirs = tuple(dict.fromkeys(map(str, parts["lib_dirs"])))
        self.key = (tuple(sorted(self.defines.items(), key=lambda kv: (kv[0], str(kv[1])))), self.options,
                    self.openmp, self.removed, self.all_args, self.headers, self.header_dirs,
                    self.libraries, self.lib_dirs)
        self.foreign = frozenset(name for name in self.defines if not name.startswith(_OWN_MACRO))


class NodeFlags:
    """One C node's flags (a FlagSet, shared by nodes that asked for the same) and what its C text names."""

    def __init__(self, node, flag_set, target=None):
        self.node = node
        self.set = flag_set
        self.target = target  # the device its module is generated for: a GPU node's kernels are its text too
        self.named = frozenset()  # the macros other nodes define that this node's text names (ModuleFlags sets it)

    def __getattr__(self, name):  # defines, options, headers, key...: the flag set's
        return getattr(self.__dict__["set"], name)

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
            for group in Collector.apply_texts(op, node, "node", "params", self.target):
                texts.extend(group)
            for owner in (op, getattr(op, "params_type", None), *(v.type for v in (*node.inputs, *node.outputs))):
                if owner is not None:
                    texts += as_list(call(owner, "c_support_code")) + as_list(call(owner, "c_init_code"))
        except Exception:  # noqa: BLE001  (what raises here raises again, named, when the module is made)
            return None
        return frozenset(re.findall(_IDENTIFIER, "\n".join(map(str, texts))))

    def names_of(self, macros):
        """The macros of `macros` this node leaves undefined and its C text names."""
        macros = set(macros) - set(self.defines)
        if not macros:
            return frozenset()
        identifiers = self.identifiers
        return frozenset(macros if identifiers is None else macros & identifiers)


def class_clash(a: NodeFlags, b: NodeFlags) -> str | None:
    """Return why nodes of the flags of `a` and of `b` cannot share a module, whatever their texts."""
    if a.key == b.key:
        return None
    for name in a.defines.keys() & b.defines.keys():
        if a.defines[name] != b.defines[name]:
            return f"macro {name} is {_shown(a.defines[name])} for one and {_shown(b.defines[name])} for the other"
    if a.options != b.options:
        return f"compile options differ: {sorted(a.options ^ b.options)}"
    if len(a.openmp | b.openmp) > 1:
        return "one node compiles with -fopenmp and the other with -fno-openmp"
    removed = (a.removed & b.all_args) | (b.removed & a.all_args)
    if removed:
        return f"one node removes {sorted(removed)}, which the other passes"
    return _found_apart(a.headers, a.header_dirs, b.headers, b.header_dirs, _header_file, "header") or \
        _found_apart(a.libraries, a.lib_dirs, b.libraries, b.lib_dirs, _library_file, "library")


def clash(a: NodeFlags, b: NodeFlags) -> str | None:
    """Return why nodes `a` and `b` cannot share one module's flags, or None if they can."""
    reason = class_clash(a, b)
    if reason is not None:
        return reason
    for one, other in ((a, b), (b, a)):
        read = other.names_of(one.foreign)
        if read:
            return f"macro {sorted(read)[0]} is defined for one node and read, undefined, by the other"
    return None


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


def _plain(owner):
    """False for an op or type with methods assigned on the instance (equal ones may carry other methods)."""
    return not any(callable(v) for v in getattr(owner, "__dict__", {}).values())


class ModuleFlags:
    """The flags of a graph's C nodes; `run()` gives the state of a region being cut, which admits nodes.

    `base_args` are the flags every module is built with (neutral: a node asking for one asks for nothing);
    `target` the device the graph's modules are generated for (opkit.cop.generate.target).
    """

    def __init__(self, nodes, base_args=frozenset(), target=None):
        base, memo, sets = frozenset(base_args), {}, {}  # (the ids are of owners `nodes` keep alive)

        def asked(owner):
            """An op's or a type's flags, asked once per equal op or type (as node_code.Sharing assumes)."""
            key = ("id", id(owner))
            if _plain(owner):
                try:
                    key = ("eq", type(owner), owner)
                    return memo[key]
                except TypeError:  # unhashable
                    key = ("id", id(owner))
                except KeyError:
                    pass
            if key not in memo:
                memo[key] = asked_flags(owner)
            return memo[key]

        def flag_set(node):
            owners = (node.op, getattr(node.op, "params_type", None), *(v.type for v in (*node.inputs, *node.outputs)))
            answers = [asked(owner) for owner in owners if owner is not None]
            key = tuple(map(id, answers))  # (the answers live in `memo`)
            if key not in sets:
                sets[key] = FlagSet({name: [x for answer in answers for x in answer[name]] for name, _ in FLAG_METHODS},
                                    base)
            return sets[key]

        self.asked = asked  # what the regions' modules collect again (Collector): asked once
        self._flags = {id(node): NodeFlags(node, flag_set(node), target) for node in nodes}
        self._classes = {flag_set.key: flag_set for flag_set in sets.values()}
        defined = set().union(*(flag_set.foreign for flag_set in sets.values()))
        if defined:
            for flags in self._flags.values():
                flags.named = flags.names_of(defined)
        self._clashes = {}
        classes = list(self._classes.values())
        # False: no two nodes can clash (the common case: regions are cut as before, with no check)
        self.possible = any(flags.named for flags in self._flags.values()) or any(
            self._class_clash(a, b) for k, a in enumerate(classes) for b in classes[k + 1:])

    def _class_clash(self, a, b):
        pair = (a.key, b.key)
        if pair not in self._clashes:
            self._clashes[pair] = self._clashes[(b.key, a.key)] = class_clash(a, b)
        return self._clashes[pair]

    def run(self):
        return Run(self)

    def flags(self, node) -> NodeFlags:
        return self._flags[id(node)]


class Run:
    """The C nodes of a region being cut: `admits(node)` if it may share their module; `add(node)`."""

    def __init__(self, module: ModuleFlags):
        self._module = module
        self.nodes = []
        self._classes = {}
        self._defined = set()  # the foreign macros its nodes define
        self._named = set()  # the macros its nodes name while leaving them undefined

    @property
    def checks(self) -> bool:
        """False when no two nodes of the graph can clash: every node is admitted."""
        return self._module.possible

    def admits(self, node) -> bool:
        module = self._module
        if not module.possible or not self.nodes:
            return True
        flags = module.flags(node)
        if flags.foreign & self._named or flags.named & self._defined:
            return False
        return all(module._class_clash(flags, other) is None for other in self._classes.values())

    def add(self, node):
        flags = self._module.flags(node)
        self.nodes.append(node)
        self._classes.setdefault(flags.key, flags)
        self._defined |= flags.foreign
        self._named |= flags.named

    def clear(self):
        self.__init__(self._module)
