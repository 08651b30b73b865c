"""The symbolic graph: Variables produced by Apply nodes of Ops, and how to walk it."""

from __future__ import annotations

import weakref
from collections import deque
from collections.abc import Sequence
from typing import Any
from itertools import count
from opkit.printing import debugprint

_evaluator = None


class Scratchpad:
    """Free-form notes on a Variable or Apply (``x.tag.test_value = ...``), as PyTensor's ``tag``.

    Notes are attributes; the mapping methods (``tag["k"]``, ``get``, ``setdefault``,
    ``items``) read and write the same notes. Names starting with ``_`` are opkit's
    private caches: a clone or a pickle leaves them behind.
    """

    def __getitem__(self, key):
        try:
            return self.__dict__[key]
        except KeyError:
            raise KeyError(key) from None

    def __setitem__(self, key, value):
        self.__dict__[key] = value

    def __delitem__(self, key):
        del self.__dict__[key]

    def __contains__(self, key):
        return key in self.__dict__

    def __iter__(self):
        return iter(self.__dict__)

    def __len__(self):
        return len(self.__dict__)

    def get(self, key, default=None):
        return self.__dict__.get(key, default)

    def setdefault(self, key, default=None):
        return self.__dict__.setdefault(key, default)

    def items(self):
        return self.__dict__.items()

    def public(self):
        """Return a new Scratchpad with the notes that are not opkit's private caches."""
        copy = Scratchpad()
        copy.__dict__.update((k, v) for k, v in self.__dict__.items() if not k.startswith("_"))
        return copy

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        return f"scratchpad{self.__dict__}"


def set_evaluator(evaluate):
    """Register `evaluate(variable, inputs_to_values)`, what `Variable.eval` runs (opkit.link fills it)."""
    global _evaluator
    _evaluator = evaluate


class Variable:
    """A symbolic value of some Type, the output `index` of `owner` (or a graph input).

    Each variable made gets the next ``auto_name`` (``auto_<n>``, from the counter ``Variable.__count__``).
    """

    __count__ = count(0)
    # The auto name counts the variables this process made before: no part of a code identity (core.code_identity).
    _not_identity = frozenset({"auto_name"})

    def __init__(self, type, owner=None, index=None, name=None):
        self.type = type
        self.owner = owner
        self.index = index
        self.name = name
        self.tag = Scratchpad()
        self.auto_name = f"auto_{next(Variable.__count__)}"

    def clone(self, name=None):
        """Return a new Variable of the same type with no owner."""
        return type(self)(self.type, None, None, self.name if name is None else name)

    def get_parents(self):
        return [self.owner] if self.owner is not None else []

    def eval(self, inputs_to_values=None, **kwargs):
        """Compile (once per set of keys and `kwargs`) and run a function computing this variable.

        Keys of `inputs_to_values` are variables of the graph, or their names: free
        inputs, shared variables, and intermediate results (the graph that computes
        one is replaced by the value given, as ``givens`` does). `kwargs` go to
        ``opkit.function`` (``mode=...``).
        """
        if _evaluator is None:
            raise RuntimeError("Variable.eval needs a way to run graphs: `import opkit.link` first "
                               "(importing opkit.tensor or using opkit.function does it)")
        ignore_missing = kwargs.get("on_unused_input") in ("ignore", "warn")
        return _evaluator(self, _variables_by_key(self, inputs_to_values or {}, ignore_missing), kwargs)

    @property
    def _fn_cache(self):
        """PyTensor's name of eval's compiled functions; they live in the tag, so a pickle or clone drops them."""
        try:
            return self.tag._eval_functions
        except AttributeError:
            raise AttributeError(f"{self} has no _fn_cache: eval has not compiled a function for it") from None

    def dprint(self, **kwargs):
        """Print this variable's graph: ``opkit.debugprint(self, **kwargs)`` (``file="str"`` returns the text)."""
        return debugprint(self, **kwargs)

    def __str__(self):
        if self.name is not None:
            return self.name
        if self.owner is not None:
            op = str(self.owner.op)
            return f"{op}.out" if len(self.owner.outputs) == 1 else f"{op}.{self.index}"
        return f"<{self.type}>"

    def __repr__(self):
        return str(self)


class Constant(Variable):
    """A Variable whose value is known when the graph is built."""

    def __init__(self, type, data, name=None):
        super().__init__(type, None, None, name)
        self.data = type.filter(data)

    @property
    def value(self):
        return self.data

    def signature(self):
        """Return a hashable description of (type, value) used to merge equal constants."""
        data = self.data
        tobytes = getattr(data, "tobytes", None)
        if tobytes is not None:
            payload = (str(getattr(data, "dtype", "")), getattr(data, "shape", ()), tobytes())
        else:
            try:
                hash(data)
                payload = data
            except TypeError:
                payload = id(data)
        return (self.type, type(data).__name__, payload)

    def clone(self, name=None):
        new = object.__new__(type(self))
        Variable.__init__(new, self.type, None, None, self.name if name is None else name)
        new.data = self.data
        new.tag = self.tag.public()
        return new

    def equals(self, other):
        """Return True if `other` is a constant of the same type and value (Variables compare by identity)."""
        return isinstance(other, Constant) and self.signature() == other.signature()

    def __str__(self):
        if self.name is not None:
            return self.name
        text = str(self.data)
        return text if len(text) < 20 else text[:17] + "..."


class NominalVariable(Variable):
    """A graph input named by its position `id` and `type` alone: one object per (type, id) in a process.

    Two graphs built on ``NominalVariable(0, t)`` share that input, so they compare equal
    up to it (a function's inner graph, a cache key). Each is of the class
    ``Nominal<type's variable class>`` (a tensor's has the tensor methods); a clone or a
    pickle gives the same object back. It never has an owner.
    """

    _instances: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
    _classes: dict = {}

    def __new__(cls, id, typ, name=None):
        found = NominalVariable._instances.get((typ, id))
        if found is None:
            variable_type = typ.variable_type
            made = NominalVariable._classes.get(variable_type)
            if made is None:
                made = type(f"Nominal{variable_type.__name__}", (NominalVariable, variable_type), {})
                NominalVariable._classes[variable_type] = made
            found = object.__new__(made)
            NominalVariable._instances[(typ, id)] = found
        return found

    def __init__(self, id, typ, name=None):
        self.id = id
        super().__init__(typ, None, None, name)

    @property
    def owner(self):
        return None

    @owner.setter
    def owner(self, value):
        if value is not None:
            raise ValueError(f"{self!r} is a NominalVariable: it cannot be the output of {value}")

    def clone(self, name=None):
        return NominalVariable(self.id, self.type, self.name if name is None else name)

    def signature(self):
        return (self.type, self.id)

    def equals(self, other):
        return isinstance(other, NominalVariable) and self.signature() == other.signature()

    def __eq__(self, other):
        return self is other or (type(self) is type(other) and self.signature() == other.signature())

    def __hash__(self):
        return hash((type(self), self.id, self.type))

    def __reduce__(self):
        return NominalVariable, (self.id, self.type)

    def __repr__(self):
        return f"{type(self).__name__}({self.id!r}, {self.type!r})"


class Apply:
    """The application of an Op to input Variables, producing output Variables."""

    def __init__(self, op: Any, inputs: Sequence[Variable], outputs: Sequence[Variable]) -> None:
        self.op = op
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.tag = Scratchpad()
        for position, variable in enumerate(self.inputs):
            if not isinstance(variable, Variable):
                raise TypeError(
                    f"input {position} of {op} is {variable!r} ({type(variable).__name__}), not a Variable.\n"
                    "Hint: wrap Python values with opkit.Constant(type, value) or "
                    "opkit.tensor.as_tensor_variable(value) in make_node.")
        for index, variable in enumerate(self.outputs):
            if not isinstance(variable, Variable):
                raise TypeError(f"output {index} of {op} is {variable!r}, not a Variable")
            if variable.owner is not None and (variable.owner is not self or variable.index != index):
                raise ValueError(f"output {index} of {op} already belongs to another Apply node")
            variable.owner = self
            variable.index = index

    @property
    def out(self):
        """The default output (the only one, or op.default_output)."""
        default = getattr(self.op, "default_output", None)
        if default is not None:
            return self.outputs[default]
        if len(self.outputs) != 1:
            raise AttributeError(f"{self.op} has {len(self.outputs)} outputs and no default_output")
        return self.outputs[0]

    @property
    def nin(self):
        return len(self.inputs)

    @property
    def nout(self):
        return len(self.outputs)

    def clone(self):
        """Return a copy of this node: the same op and inputs, fresh outputs."""
        return self._copy_on(self.inputs)

    def clone_with_new_inputs(self, inputs, strict=True):
        """Return a copy of this node on other inputs (same op, fresh outputs).

        An input of another type than the one it replaces is converted to that type
        (``type.filter_variable``: a more specific type stays, a less specific one gets
        a SpecifyShape) if `strict`, else taken as it is. If the inputs' types still
        differ, the op makes the node again (``make_node``), so the outputs' types follow.
        """
        inputs = list(inputs)
        remake = False
        for position, (current, new) in enumerate(zip(self.inputs, inputs)):
            if current.type != new.type:
                if strict:
                    inputs[position] = new = current.type.filter_variable(new)
                remake = remake or current.type != new.type
        return self.op.make_node(*inputs) if remake else self._copy_on(inputs)

    def _copy_on(self, inputs):
        outputs = [o.clone() for o in self.outputs]
        for new, old in zip(outputs, self.outputs):
            new.tag = old.tag.public()
        return Apply(self.op, inputs, outputs)

    def dprint(self, **kwargs):
        """Print the graph of this node's outputs: ``opkit.debugprint(self, **kwargs)``."""
        return debugprint(self, **kwargs)

    def __str__(self):
        return f"{self.op}({', '.join(map(str, self.inputs))})"

    __repr__ = __str__


def _variables_by_key(output, inputs_to_values, ignore_missing=False):
    """Return `inputs_to_values` of ``output.eval`` with each string key replaced by the variable of that name.

    A name no variable of the graph has is an error, unless `ignore_missing` (eval's
    ``on_unused_input="ignore"`` or ``"warn"``, as PyTensor's): then its value is unused.
    """
    resolved = {}
    for key, value in dict(inputs_to_values).items():
        if isinstance(key, str):
            named = [v for v in ancestors([output]) if v.name == key]
            if not named and ignore_missing:
                continue
            if not named:
                raise ValueError(f"eval: {key} not found in graph of {output}: no variable has that name.\n"
                                 "Hint: pass the variable itself as the key, or check its .name.")
            if len(named) > 1:
                raise ValueError(f"eval: Found multiple variables with name {key} ({len(named)}) in the graph of "
                                 f"{output}, so the name does not say which one to set.\n"
                                 "Hint: pass the variable itself as the key.")
            key = named[0]
        elif not isinstance(key, Variable):
            raise TypeError(f"eval: the key {key!r:.60} is neither a Variable nor the name of one")
        if key in resolved:
            raise ValueError(f"eval: {key} is given twice (once by name, once as a variable)")
        resolved[key] = value
    return resolved


def graph_inputs(outputs):
    """Return the owner-less variables (inputs and constants) that `outputs` depend on."""
    seen, found = set(), []
    for variable in ancestors(outputs):
        if variable.owner is None and id(variable) not in seen:
            seen.add(id(variable))
            found.append(variable)
    return found


def ancestors(outputs, blockers=()):
    """Yield every variable that `outputs` depend on, outputs first, each once."""
    blocked = set(map(id, blockers))
    seen = set()
    queue = deque(outputs)
    while queue:
        variable = queue.popleft()
        if id(variable) in seen:
            continue
        seen.add(id(variable))
        yield variable
        if variable.owner is not None and id(variable) not in blocked:
            queue.extend(variable.owner.inputs)


def io_toposort(inputs, outputs):
    """Return the Apply nodes between `inputs` and `outputs` in an order that runs."""
    stop = set(map(id, inputs))

    def parents(node):
        return [v.owner for v in node.inputs if v.owner is not None and id(v) not in stop]

    order, seen = [], set()
    for root in outputs:
        if root.owner is None or id(root) in stop or id(root.owner) in seen:
            continue
        seen.add(id(root.owner))
        stack = [(root.owner, iter(parents(root.owner)))]
        while stack:
            node, pending = stack[-1]
            for parent in pending:
                if id(parent) not in seen:
                    seen.add(id(parent))
                    stack.append((parent, iter(parents(parent))))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


def clone_graph(inputs, outputs, copy_inputs=True):
    """Copy the graph between inputs and outputs; return (inputs, outputs, memo)."""
    memo = {}
    for variable in inputs:
        memo[variable] = variable.clone() if copy_inputs else variable
    for variable in graph_inputs(outputs):
        if variable not in memo:
            memo[variable] = variable.clone() if copy_inputs else variable
    for node in io_toposort(inputs, outputs):
        new_node = node.clone_with_new_inputs([memo[v] for v in node.inputs])
        for old, new in zip(node.outputs, new_node.outputs):
            memo[old] = new
    return [memo[v] for v in inputs], [memo[v] for v in outputs], memo
