"""opkit.function: compile a graph into a callable."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from typing import Any

from opkit.core.aliasing import protect_destroyed_inputs, protect_outputs
from opkit.core.fgraph import FunctionGraph
from opkit.core.graph import Constant, Variable, graph_inputs
from opkit.link.mode import Mode, get_mode
from opkit.core.rewrites import rewrite
from opkit.config import config
from opkit.errors import CompileError
from opkit.cop.generate.target import using_target
from opkit.decision import decide
from opkit.gpu.device import on_device, using_device as device_scope
from opkit.gpu.placement import place_on_device
from opkit.link.code_identity import code_flags
from opkit.link.fastcall import function_base, input_signature
from opkit.link.out_buffers import call_with_out, split_out
from opkit.link.pickling import graph_recipe, graph_token, node_identities, rebuild_function
from opkit.link.profiling import ProfileStats, collecting
from opkit.link.updates import SharedPlan, plan_shared, python_update_runner
from opkit.errors import ValueOverflowError
from opkit.compile.io import NO_DEFAULT, expand_inputs


class UnusedInputError(ValueError):
    """An input the outputs do not use, or one listed twice (PyTensor's and Theano's name; a ValueError)."""


class MissingInputError(ValueError):
    """The outputs depend on a variable that is neither an input nor shared (PyTensor's and Theano's name)."""


def function(inputs: Sequence[Variable], outputs: Variable | Sequence[Variable] | None = None,
             mode: str | Mode | None = None, name: str | None = None, on_unused_input: str = "raise",
             profile: bool | None = None, updates: Any = None, givens: Any = None,
             allow_input_downcast: bool | None = None, no_default_updates: bool | list = False) -> FunctionAPI:
    """Compile a function computing `outputs` from `inputs` and return it.

    Shared variables the outputs use are read at each call without being
    listed. `updates` ({shared: expression} or a list of pairs) gives shared
    variables new values, all stored once every output is computed; `givens`
    ({variable: expression} or pairs) replaces variables of the graph before
    compiling. A shared variable's ``default_update`` is its update when
    `updates` has none for it, unless `no_default_updates` is True or lists
    it. Calls of a function with updates run one at a time (a lock per
    function), so calls from several threads lose no update. With
    `profile=True` (default: config.profile) the function times every node;
    see `f.profile`. An input may be an ``opkit.compile.In`` (strict,
    allow_downcast, implicit with a container and an update);
    `allow_input_downcast` is the default of each input's allow_downcast.
    """
    spec = expand_inputs(inputs, allow_input_downcast)
    inputs = _check_inputs(spec.variables)
    single = outputs is not None and not isinstance(outputs, (list, tuple))
    outputs = [] if outputs is None else [outputs] if single else list(outputs)
    for position, output in enumerate(outputs):
        if not isinstance(output, Variable):
            raise TypeError(f"output {position} of {_function_label(name)} is {output!r}, not an opkit Variable")
    if spec.givens or spec.updates:
        givens = [*_as_pairs(givens), *spec.givens]
        updates = [*_as_pairs(updates), *spec.updates]
    plan = plan_shared(inputs, outputs, updates, givens, _function_label(name), no_default_updates)
    _check_reachable(inputs, plan.outputs + plan.update_values, on_unused_input, name, plan.placeholders)
    maker = FunctionMaker(inputs, plan.outputs, get_mode(mode), name, plan)
    maker.input_options = spec.options
    try:
        return maker.create(single, config.profile if profile is None else bool(profile))
    except CompileError as exc:
        # The message is the whole story (file:line: error, the node, the kept source): drop
        # opkit's own frames, so the traceback goes from the user's call straight to it.
        raise exc.with_traceback(None) from None


def _as_pairs(items):
    return [] if items is None else list(items.items()) if isinstance(items, dict) else list(items)


def _check_inputs(inputs):
    if isinstance(inputs, Variable):
        raise TypeError("function inputs must be a list of Variables, e.g. function([x], y)")
    inputs = list(inputs)
    for position, variable in enumerate(inputs):
        if not isinstance(variable, Variable):
            raise TypeError(f"input {position} is {variable!r}, not an opkit Variable")
        if isinstance(variable, Constant):
            raise TypeError(f"input {position} ({variable}) is a Constant; constants cannot be function inputs")
        if variable.owner is not None:
            raise TypeError(f"input {position} ({variable}) is computed by {variable.owner.op}; "
                            "function inputs must be free variables.\nHint: to set its value, make a new "
                            f"variable of its type (v = {variable}.type()), list v among the inputs and pass "
                            f"givens={{{variable}: v}}.")
    first = {}
    for position, variable in enumerate(inputs):
        if first.setdefault(id(variable), position) != position:
            raise UnusedInputError(f"input {position} ({variable}) is used twice in inputs (also at position "
                                   f"{first[id(variable)]}): each variable may appear once among the function's "
                                   "inputs")
    return inputs


def _check_reachable(inputs, outputs, on_unused_input, name, implicit=()):
    if on_unused_input not in ("raise", "warn", "ignore"):
        raise ValueError(f"on_unused_input must be 'raise', 'warn' or 'ignore', not {on_unused_input!r}")
    _check_placeholders(outputs)
    given = set(map(id, [*inputs, *implicit]))
    needed = graph_inputs(outputs)
    missing = [v for v in needed if not isinstance(v, Constant) and id(v) not in given]
    if missing:
        names = ", ".join(str(v) for v in missing)
        raise MissingInputError(f"{_function_label(name)}: the outputs depend on {names}, which is not among the "
                                "inputs.\nHint: add it to the inputs list.")
    used = set(map(id, needed))
    unused = [(i, v) for i, v in enumerate(inputs) if id(v) not in used]
    if unused and on_unused_input != "ignore":
        text = ", ".join(f"{v} (position {i})" for i, v in unused)
        message = (f"{_function_label(name)}: input {text} is not used to compute the outputs.\n"
                   "Hint: pass on_unused_input='warn' or 'ignore' to allow it.")
        if on_unused_input == "raise":
            raise UnusedInputError(message)
        warnings.warn(message, stacklevel=3)


def _check_placeholders(outputs):
    """Raise TypeError if an output depends on an undefined (NullType) or disconnected gradient placeholder."""
    placeholders = sys.modules.get("opkit.core.gradient_types")
    if placeholders is None:  # no placeholder can exist before its module is imported: a fresh process skips it
        return
    DisconnectedType, NullType = placeholders.DisconnectedType, placeholders.NullType
    NullTypeGradError = placeholders.NullTypeGradError

    kinds = (NullType, DisconnectedType)
    if not any(isinstance(v.type, kinds) for v in graph_inputs(outputs)):
        return
    for position, output in enumerate(outputs):
        found = next((v for v in graph_inputs([output]) if isinstance(v.type, kinds)), None)
        if found is None:
            continue
        if isinstance(found.type, NullType):
            raise NullTypeGradError(output, position, found.type, compiling=True)
        what = "is" if found is output else f"({output}) depends on"
        raise TypeError(f"function: output {position} {what} a DisconnectedType placeholder (the gradient of a "
                        "cost that does not depend on that variable), which holds no value.\n"
                        "Hint: ask grad for return_disconnected='zero' to get zeros instead.")


def _function_label(name):
    return f"function {name!r}" if name else "function"


class FunctionMaker:
    """Rewrite a private copy of the graph and link it; kept as ``f.maker``.

    The graph's inputs are `inputs`, then a placeholder per shared variable;
    its outputs are `outputs`, then the updates (see `plan`, a SharedPlan).
    """

    def __init__(self, inputs, outputs, mode, name=None, plan=None):
        self.inputs = inputs
        self.outputs = outputs
        self.mode = mode
        self.name = name
        self.plan = SharedPlan(list(outputs)) if plan is None else plan
        self.fgraph = FunctionGraph(list(inputs) + self.plan.placeholders, list(outputs) + self.plan.update_values)
        self.device = mode.resolved_device() if hasattr(mode, "resolved_device") else config.device
        # The one decision (compile, shipped or python, and the device's target): passed to the linker, which
        # gives the target to every region it cuts (code generation reads it there), and to the function class.
        self.backend = decide(self.device)
        self.target = self.backend.target
        with using_target(self.target):  # the graph's own phase: GPU values and the plugins' GPU versions
            rewrite(self.fgraph, mode.rewrites())
            place_on_device(self.fgraph, self.device)
        protect_destroyed_inputs(self.fgraph)
        protect_outputs(self.fgraph)  # after the returned outputs: an update that aliases one is a copy
        self.linker = mode.make_linker()
        self.build_flags = code_flags()  # what a token says the modules were built with

    def create(self, single, profile=False):
        stats = ProfileStats(self.name) if profile else None
        with config.change_flags(profile=profile), collecting(stats):
            runner = on_device(self._make_runner(), self.target)
        made = function_class(self.backend)(self, runner, single)
        made.profile = stats  # None unless profiled
        return made

    def _make_runner(self):
        """Return the runner of the explicit inputs; it reads the shared variables and stores the updates."""
        plan, backend = self.plan, self.backend
        if not plan.shared:
            return self.linker.make_runner(self.fgraph, backend)
        # The whole-graph C linker keeps shared values and updates in its module: no Python per call.
        with_shared = getattr(self.linker, "make_runner_with_shared", None)
        runner = with_shared(self.fgraph, plan, len(self.inputs), backend) if with_shared is not None else None
        if runner is None:
            runner = python_update_runner(self.linker.make_runner(self.fgraph, backend), plan,
                                          len(self.fgraph.outputs))
        return runner


class FunctionAPI:
    """What every compiled function offers; ``_slow_call`` filters arguments in Python.

    The class users get, ``Function``, puts this on top of the C base in
    ``templates/fastcall.cpp`` so that a call reaches the compiled graph with no
    Python frame; ``_slow_call`` runs only for conversions, keywords and errors.
    """

    maker: FunctionMaker
    name: str | None
    profile: ProfileStats | None  # per-node times with function(..., profile=True), else None
    trust_input: bool

    TYPE_CHECKING = False
    if TYPE_CHECKING:  # the C base class (templates/fastcall.cpp) implements the call
        def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

    def __init__(self, maker, runner, single):
        self.maker = maker
        self.name = maker.name
        self._types = [v.type for v in maker.inputs]
        self._names = [v.name for v in maker.inputs]
        self._wrap = not single and len(maker.outputs) == 1
        self._single = single
        self._token = None
        self._configure(runner, type(self)._slow_call, self._wrap, input_signature(self._types))

    def _slow_call(self, *args, **kwargs):
        out = None
        if "out" in kwargs:  # f(..., out=buf): the outputs written into the caller's arrays (link/out_buffers.py)
            out, kwargs = split_out(kwargs, self._names)
        if kwargs or len(args) != len(self._types):
            args = self._bind(args, kwargs)
        if not self.trust_input:
            args = [self._filter(position, value) for position, value in enumerate(args)]
        if out is not None:
            outputs = call_with_out(self, self._runner, args, out)
        else:
            outputs = self._runner(*args)
        return [outputs] if self._wrap else outputs

    def _bind(self, args, kwargs):
        values = list(args) + [None] * (len(self._types) - len(args))
        if len(args) > len(self._types):
            raise TypeError(f"{self._label()} takes {len(self._types)} arguments ({self._signature()}), "
                            f"got {len(args)}")
        filled = [True] * len(args) + [False] * (len(self._types) - len(args))
        for key, value in kwargs.items():
            if key not in self._names:
                raise TypeError(f"{self._label()} has no input named {key!r}; inputs: {self._signature()}")
            position = self._names.index(key)
            if filled[position]:
                raise TypeError(f"{self._label()} got input {key!r} twice")
            values[position], filled[position] = value, True
        options = getattr(self.maker, "input_options", None) or ()
        for position, option in enumerate(options):  # In(x, value=default): a default for what is not passed
            if not filled[position] and option[3] is not NO_DEFAULT:
                values[position], filled[position] = option[3], True
        if not all(filled):
            missing = [self._arg_label(i) for i, ok in enumerate(filled) if not ok]
            raise TypeError(f"{self._label()} is missing {', '.join(missing)}; inputs: {self._signature()}")
        return values

    def _filter(self, position, value):
        options = getattr(self.maker, "input_options", None)  # (strict, allow_downcast, mutable) of In
        strict, allow_downcast = options[position][:2] if options else (False, None)
        try:
            device = getattr(self.maker, "device", "cpu")
            if device != "cpu":  # a GPU type's values depend on the device (CuPy, or numpy when interpreted)
                with device_scope(device):
                    return self._types[position].filter(value, strict=strict, allow_downcast=allow_downcast)
            return self._types[position].filter(value, strict=strict, allow_downcast=allow_downcast)
        except (TypeError, ValueError) as exc:
            error = ValueOverflowError if isinstance(exc, OverflowError) else TypeError
            raise error(f"bad argument {self._arg_label(position)} to {self._label()}: {exc}") from None

    def _arg_label(self, position):
        name = self._names[position]
        return f"{name!r} (position {position})" if name else f"at position {position}"

    def _label(self):
        return f"function {self.name!r}" if self.name else "compiled function"

    def _signature(self):
        return ", ".join(n or f"<input {i}>" for i, n in enumerate(self._names))

    def __reduce__(self):
        """Pickle the graph and mode; unpickling rebuilds the function (modules from the cache)."""
        recipe = self._recipe()
        return (rebuild_function, (recipe, self.maker.mode, self.name, self._single, bool(self.trust_input),
                                   self.__dask_tokenize__()))

    def __dask_tokenize__(self):
        """Return a digest of the graph and mode: the same in every process, equal for equal graphs."""
        if self._token is None:
            recipe = self._recipe()
            self._token = graph_token(recipe, self.maker.mode, self._single,
                                      node_identities(self.maker.inputs, self.maker.outputs),
                                      getattr(self.maker, "build_flags", None))
        return self._token

    def _recipe(self):
        if self.maker.plan.shared:
            import pickle

            names = ", ".join(str(v) for v in self.maker.plan.shared)
            raise pickle.PicklingError(
                f"{self._label()} reads or updates shared variables ({names}): their values live in this "
                "process, so the function cannot be pickled or tokenized.\nHint: make them explicit inputs "
                "(and return the updated values) to send the function to another process.")
        return graph_recipe(self.maker.inputs, self.maker.outputs)

    def __repr__(self):
        return f"<opkit.Function {self.name or ''} ({self._signature()})>"


class PyFunction(FunctionAPI):
    """A compiled function called through Python (used when no C call path can be built)."""

    trust_input = False

    def _configure(self, runner, slow_call, wrap, signature):
        self._runner = runner

    __call__ = FunctionAPI._slow_call


_function_class = None


def function_class(backend):
    """Return the Function class for `backend` (its function's): FunctionAPI over the C FunctionBase.

    Only the COMPILE backend builds (or loads) the call-path module; without a
    compiler the class is PyFunction and nothing is compiled for it. A call path
    that fails to build gives PyFunction where the backend says python_fallback, else its error.
    """
    global _function_class
    if _function_class is None:
        if not backend.compiles:  # graphs run from shipped modules: only the call path is Python
            return PyFunction
        try:
            base, enable_vectorcall = function_base()
        except CompileError:
            if not backend.python_fallback:
                raise
            return PyFunction
        _function_class = type("Function", (FunctionAPI, base), {"__module__": __name__, "__doc__":
                               "A compiled graph: call it with values for its inputs."})
        enable_vectorcall(_function_class)
    return _function_class
