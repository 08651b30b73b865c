"""The Op contract: make_node builds an Apply node, perform (or C code) computes it."""

from __future__ import annotations

import sys
from itertools import chain
from typing import Any

from opkit.core.references import attribute_path, load_reference
from opkit.core.clinker import CLinkerObject
from opkit.core.graph import Apply, Variable
from opkit.core.type import MethodNotDefined
from opkit.core.code_identity import describe_as


def _props_eq(self, other):
    return type(self) is type(other) and self._props() == other._props()


def _props_hash(self):
    return hash((type(self), self._props()))


def _props_str(self):
    props = self._props_dict()
    if not props:
        return type(self).__name__
    body = ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in props.items())
    return f"{type(self).__name__}{{{body}}}"


_c_thunk_maker = None
_eager_runner = None
# Op.compute's warm path in Python: id(op) -> (op, {(dtype, ndim, dtype, ndim, ...): compiled function}).
# opkit.link fills it (and the C dispatcher it installs as Op.compute, which serves exact native arrays
# before this); holding the op keeps its id from being reused while the entry lives.
EAGER_MEMO: dict = {}


def set_c_thunk_maker(maker):
    """Install `maker(node, storage_map, compute_map)`: a C thunk for the node, or None (opkit.link sets it)."""
    global _c_thunk_maker
    _c_thunk_maker = maker


def set_eager_runner(run):
    """Install `run(op, values)`, what `Op.compute` calls (opkit.link sets it: core does not compile)."""
    global _eager_runner
    _eager_runner = run


def install_compute_dispatcher(dispatcher_type):
    """Make ``Op.compute`` a `dispatcher_type` over the Python compute, and return it.

    opkit.link.eager installs its C method descriptor once a C call path exists: it
    serves warm calls (an op and argument types it was given) without a Python frame
    and calls the Python ``Op.compute`` below for everything else.
    """
    current = Op.__dict__["compute"]
    if isinstance(current, dispatcher_type):
        return current
    dispatcher = dispatcher_type(python_compute)
    describe_as(dispatcher, python_compute)  # an op's code identity is the same with or without it
    Op.compute = dispatcher
    return dispatcher


class Op(CLinkerObject):
    """An operation: ``make_node`` makes the Apply node, ``perform`` computes it in Python.

    Setting ``__props__`` (a tuple of attribute names) generates ``__eq__``,
    ``__hash__`` and ``__str__``. A bare ``Op()`` works: methods assigned on
    the instance (``mul.make_node = make_node``, without ``self``) are honoured.
    """

    __props__: tuple[str, ...]
    default_output: int | None = None
    check_input = True
    params_type = None
    destroy_map: dict[int, list[int]] = {}
    view_map: dict[int, list[int]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__props__" not in cls.__dict__:
            return
        props = cls.__dict__["__props__"]
        if not isinstance(props, tuple) or not all(isinstance(p, str) for p in props):
            raise TypeError(f"{cls.__name__}.__props__ must be a tuple of attribute names, got {props!r}")
        for name, method in (("__eq__", _props_eq), ("__hash__", _props_hash), ("__str__", _props_str)):
            if name not in cls.__dict__:
                setattr(cls, name, method)

    def _props(self):
        """Return the values of the attributes listed in ``__props__``."""
        return tuple(getattr(self, name) for name in self.__props__)

    def _props_dict(self):
        return {name: getattr(self, name) for name in self.__props__}

    def make_node(self, *inputs: Any, **kwargs: Any) -> Apply:
        """Return the Apply node of this op on `inputs`; by default built from ``itypes`` and ``otypes``.

        An op that sets the class (or instance) attributes ``itypes`` and
        ``otypes`` (lists of Type instances) needs no make_node of its own.
        """
        itypes, otypes = getattr(self, "itypes", None), getattr(self, "otypes", None)
        if itypes is None or otypes is None:
            raise NotImplementedError(f"{self} does not define make_node.\n"
                                      "Hint: define make_node(self, *inputs), or set the attributes itypes and "
                                      "otypes (lists of types, e.g. [opkit.tensor.dvector]).")
        if kwargs:
            raise TypeError(f"{self}: an op made from itypes/otypes takes no keyword arguments, got {sorted(kwargs)}")
        return Apply(self, typed_inputs(self, inputs, itypes), [t() for t in otypes])

    def __call__(self, *inputs: Any, name: str | None = None, return_list: bool = False, **kwargs: Any) -> Any:
        """Apply the op symbolically and return its output(s).

        `name` names the returned output (several outputs: ``name_0``, ``name_1``, ...);
        `return_list=True` returns a list even for one output. Other keywords go to make_node.
        """
        node = self.make_node(*inputs, **kwargs)
        if not isinstance(node, Apply):
            raise TypeError(f"{self}.make_node returned {node!r}, not an opkit.Apply")
        if name is not None:
            _name_outputs(node, self.default_output, name)
        if self.default_output is not None:
            chosen = node.outputs[self.default_output]
            return [chosen] if return_list else chosen
        if len(node.outputs) == 1 and not return_list:
            return node.outputs[0]
        return list(node.outputs)

    def compute(self, *values: Any) -> Any:
        """Run the op on numpy values now: an array, or a list of arrays for several outputs.

        The node is compiled once per (op, input types) and kept in memory (and in
        the compile cache on disk), so later calls cost about a compiled function's call.
        """
        entry = EAGER_MEMO.get(id(self))
        if entry is not None:
            try:  # warm: arrays (or numpy scalars) of types seen before, looked up without hashing the op
                if len(values) == 2:  # the common case, spelled out
                    x, y = values
                    function = entry[1][x.dtype, x.ndim, y.dtype, y.ndim]
                else:
                    function = entry[1][tuple(chain.from_iterable((v.dtype, v.ndim) for v in values))]
            except (KeyError, AttributeError):
                pass
            else:
                return function(*values)
        if _eager_runner is None:
            raise RuntimeError("Op.compute needs a way to run ops: `import opkit.link` first "
                               "(importing opkit.tensor or using opkit.function does it)")
        return _eager_runner(self, values)

    def perform(self, node: Apply, inputs: list[Any], output_storage: list[list[Any]]) -> None:
        raise MethodNotDefined("perform", type(self).__name__)

    def has_perform(self):
        """Return True if this op has a Python implementation (perform or its own thunk)."""
        return _overrides(self, "perform") or _overrides(self, "make_thunk")

    def get_params(self, node):
        """Return the node's params: by default the op's attributes named like params_type's fields."""
        if self.params_type is None:
            raise MethodNotDefined("get_params", f"{type(self).__name__} has no params_type")
        from_op = getattr(self.params_type, "get_params", None)
        if from_op is None:
            raise MethodNotDefined("get_params", f"{type(self).__name__}: params_type {self.params_type} is not a "
                                   "ParamsType; define get_params(node) to return its value")
        return from_op(self)

    def node_params(self, node):
        """Return get_params(node) filtered by params_type: the value perform and the C code receive."""
        return self.params_type.filter(self.get_params(node))

    def perform_function(self, node):
        """Return f(inputs, output_storage) running perform, with the node's params if the op has any."""
        perform = self.perform
        if self.params_type is None or not _takes_params(perform):
            return lambda inputs, outputs: perform(node, inputs, outputs)
        params = self.node_params(node)
        return lambda inputs, outputs: perform(node, inputs, outputs, params)

    def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
        """Return a zero-argument callable computing `node` from `storage_map` cells.

        As Theano's: the node's C code when it has some (compiled into its own
        module) unless ``impl="py"``, else perform.
        """
        if impl != "py" and _c_thunk_maker is not None:
            thunk = _c_thunk_maker(node, storage_map, compute_map)
            if thunk is not None:
                return thunk
        return self.make_py_thunk(node, storage_map, compute_map, no_recycling)

    def make_py_thunk(self, node, storage_map, compute_map, no_recycling):
        """Return a thunk computing `node` through perform."""
        inputs = [storage_map[v] for v in node.inputs]
        outputs = [storage_map[v] for v in node.outputs]
        computed = [compute_map[v] for v in node.outputs] if compute_map is not None else []
        perform = self.perform_function(node)

        def thunk():
            perform([cell[0] for cell in inputs], outputs)
            for flag in computed:
                flag[0] = True

        thunk.inputs, thunk.outputs, thunk.perform = inputs, outputs, perform
        return thunk

    def do_constant_folding(self, node):
        """Return False to keep this node when all its inputs are constant."""
        return True

    def L_op(self, inputs, outputs, output_grads):
        pullback = getattr(self, "pullback", None)  # PyTensor's current name for L_op
        if pullback is not None:
            return pullback(inputs, outputs, output_grads)
        return self.grad(inputs, output_grads)

    # ---- the C interface of an op (headers, flags and the like come from CLinkerObject) ----

    def c_code(self, node, name, inputs, outputs, sub):
        raise MethodNotDefined("c_code", type(self).__name__)

    def c_code_cleanup(self, node, name, inputs, outputs, sub):
        return ""

    def c_support_code_apply(self, node, name):
        return ""

    def c_support_code_struct(self, node, name):
        return ""

    def c_init_code_apply(self, node, name):
        return ""

    def c_init_code_struct(self, node, name, sub):
        return ""

    def c_cleanup_code_struct(self, node, name):
        return ""

    def c_code_cache_version_apply(self, node):
        return self.c_code_cache_version()

    def __str__(self):
        return getattr(self, "name", None) or type(self).__name__

    def __repr__(self):
        return str(self)


python_compute = Op.compute  # what a C dispatcher installed as Op.compute falls back to


def _name_outputs(node, default_output, name):
    if len(node.outputs) == 1:
        node.outputs[0].name = name
    elif default_output is not None:
        node.outputs[default_output].name = name
    else:
        for position, output in enumerate(node.outputs):
            output.name = f"{name}_{position}"


def typed_inputs(op, inputs, itypes):
    """Return `inputs` as Variables of `itypes` (plain values become constants), or raise TypeError.

    A variable of a more specific type (``itype.is_super(variable.type)``: a static
    shape where the itype has None) is accepted as is.
    """
    if len(inputs) != len(itypes):
        raise TypeError(f"{op} takes {len(itypes)} inputs, got {len(inputs)}")
    converted = []
    for position, (value, itype) in enumerate(zip(inputs, itypes)):
        variable = value if isinstance(value, Variable) else itype.make_constant(value)
        if variable.type != itype and not itype.is_super(variable.type):
            raise TypeError(f"Invalid input types for Op {op}:\ninput {position} of {op}: expected {itype}, "
                            f"got {variable.type}")
        converted.append(variable)
    return converted


def _overrides(op, name):
    """Return True if `op` provides `name` itself (class override or instance attribute)."""
    if name in getattr(op, "__dict__", {}):
        return True
    return getattr(type(op), name, None) is not getattr(Op, name, None)


class FromFunctionOp(Op):
    """An Op made by :func:`as_op` from a Python function."""

    __props__ = ("fn", "itypes", "otypes", "infer_shape_fn")

    def __init__(self, fn, itypes, otypes, infer_shape=None):
        self.fn = fn
        self.itypes = tuple(itypes)
        self.otypes = tuple(otypes)
        self.infer_shape_fn = infer_shape
        self.__name__ = getattr(fn, "__name__", "as_op")
        self.__doc__ = getattr(fn, "__doc__", None)
        if infer_shape is not None:
            self.infer_shape = self._infer_shape

    def perform(self, node, inputs, output_storage):
        results = self.fn(*inputs)
        if len(self.otypes) == 1:
            results = [results]
        for cell, otype, value in zip(output_storage, self.otypes, results):
            cell[0] = otype.filter(value, allow_downcast=True)

    def _infer_shape(self, node, input_shapes):
        return self.infer_shape_fn(node, input_shapes)

    def __str__(self):
        return self.__name__

    def __reduce__(self):
        """Pickle a module-level ``@as_op`` function by reference (its module and name), else by its parts.

        The decorated name holds the op, not the function, so the function alone
        cannot be pickled by reference: the op is looked up where it was defined.
        """
        module, qualname = getattr(self.fn, "__module__", None), getattr(self.fn, "__qualname__", None)
        if module and qualname and attribute_path(sys.modules.get(module), qualname) is self:
            return (load_as_op, (module, qualname))
        return (FromFunctionOp, (self.fn, self.itypes, self.otypes, self.infer_shape_fn))


def load_as_op(module, qualname):
    """Return the ``@as_op`` op named `qualname` in `module` (what a pickled as_op op refers to)."""
    op = load_reference(module, qualname)
    if not isinstance(op, FromFunctionOp):
        raise AttributeError(f"cannot unpickle the as_op op {module}.{qualname}: that name is now {op!r}, "
                             "not an op made by opkit.as_op")
    return op


def as_op(itypes, otypes, infer_shape=None):
    """Decorate a Python function to make it an Op from `itypes` to `otypes`."""
    itypes = list(itypes) if isinstance(itypes, (list, tuple)) else [itypes]
    otypes = list(otypes) if isinstance(otypes, (list, tuple)) else [otypes]
    for t in itypes + otypes:
        if not hasattr(t, "filter") or isinstance(t, type):
            raise TypeError(f"as_op types must be Type instances (e.g. opkit.tensor.dmatrix), got {t!r}")

    def decorator(fn):
        return FromFunctionOp(fn, itypes, otypes, infer_shape)

    return decorator


def _takes_params(perform):
    """Theano passes params to perform(node, inputs, outputs, params); PyTensor's perform takes three arguments."""
    import inspect

    try:
        parameters = list(inspect.signature(perform).parameters.values())
    except (TypeError, ValueError):
        return True
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return True
    return len([p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]) >= 4
