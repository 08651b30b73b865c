"""Use opkit ops in PyTensor (and PyMC) graphs: ``as_pytensor_op(op)``.

The PyTensor op made here mirrors its inputs as opkit variables and asks the
opkit op for everything: ``make_node`` decides the output types, ``perform``
runs opkit's compiled module for the node (so PyTensor's numba backend runs it
in C through object mode), the ``c_*`` methods hand PyTensor's C linker
opkit's own C for the node (its ``#section`` macros expanded for PyTensor's
names), and ``infer_shape``, ``pullback`` (PyTensor's L_op/grad) and ``pushforward``
(its R_op) translate opkit's graphs.
Needs the ``opkit-sdk[pytensor]`` extra.
"""

from __future__ import annotations

import re

import pytensor.tensor as pt
from pytensor.gradient import DisconnectedType as PtDisconnectedType
from pytensor.graph.basic import Apply as PtApply
from pytensor.graph.basic import Variable as PtVariable
from pytensor.link.c.op import COp as PtCOp
from pytensor.link.c.params_type import ParamsType as PtParamsType
from pytensor.tensor.exceptions import ShapeError
from pytensor.tensor.type import TensorType as PtTensorType
from pytensor.graph.utils import MethodNotDefined as PtMethodNotDefined

from opkit.bridge.after_import import after_import
from opkit.bridge.pytensor_graph import mirror_variable, set_op_bridge, to_pytensor_graph
from opkit.bridge.pytensor_types import TypeNotMapped, to_pytensor_params, to_pytensor_type
from opkit.bridge.weak_args import refused
from opkit.bridge.one_per_op import one_per_op
from opkit.core.c_source import render
from opkit.core.gradient import _has_grad as has_grad
from opkit.core.gradient_types import disconnected_type
from opkit.core.graph import Variable
from opkit.core.memo import BoundedMemo
from opkit.core.op import Op
from opkit.core.params_type import ParamsType
from opkit.core.type import MethodNotDefined
from opkit.cop.generate.cinterface import as_list, call, op_has_c
from opkit.lazy import load
from opkit.link.node_runner import run_node as run_op

__all__ = ["as_pytensor_op", "PyTensorOp", "TypeNotMapped"]

_BRIDGE_VERSION = 1
# What opkit's generated module includes for every op (templates/module.cpp.j2) and its types' headers:
# an op's C may rely on them, and PyTensor's module includes only Python and numpy.
_DEFAULT_HEADERS = ["<new>", "<cstddef>", "<cmath>", "<cstring>"]
# (op, its Python code identity) -> PyTensorOp: an op created again after its .c file was edited is equal
# by its props, not by its identity (which holds its parsed sections). Bounded: ops made with a new
# parameter value each time do not pile up.
_bridged = BoundedMemo(256)
_PARAMS_WORD = re.compile(r"\bPARAMS\b")
_C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
_HASH_PLACEHOLDER = "<<<<HASH_PLACEHOLDER>>>>"  # pytensor.link.c.basic puts the module hash here
_STAND_IN = "opkitBridgeHashPlaceholder"


def as_pytensor_op(op: Op) -> PyTensorOp:
    """Return a PyTensor Op that computes the opkit op `op` (one per op: equal ops give the same one).

    Call it on PyTensor variables: ``as_pytensor_op(VectorTimesVector())(x, y)``.
    """
    return one_per_op(_bridged, op, PyTensorOp, "as_pytensor_op")


set_op_bridge(as_pytensor_op)  # the graph translator bridges an op with no PyTensor counterpart through it


class PyTensorOp(PtCOp):
    """A PyTensor op running the opkit op `opkit_op` (made by `as_pytensor_op`)."""

    __props__ = ("opkit_op",)

    def __init__(self, opkit_op):
        self.opkit_op = opkit_op
        self.destroy_map = dict(getattr(opkit_op, "destroy_map", {}))
        self.view_map = dict(getattr(opkit_op, "view_map", {}))
        self.default_output = getattr(opkit_op, "default_output", None)
        self._struct_params = {}
        opkit_params = getattr(opkit_op, "params_type", None)
        self.params_type = None if opkit_params is None else to_pytensor_type(
            opkit_params, f"the params_type of {opkit_op}")

    def __str__(self):
        return str(self.opkit_op)

    # ---- the node: opkit's make_node on mirrored variables ----

    def make_node(self, *inputs):
        """Return the Apply node opkit's make_node makes, with the PyTensor types of its outputs."""
        pt_inputs = [v if isinstance(v, PtVariable) else pt.as_tensor_variable(v) for v in inputs]
        where = f"the inputs of {self.opkit_op}"
        mirrored = [mirror_variable(v, where) for v in pt_inputs]
        try:
            opkit_node = self.opkit_op.make_node(*mirrored)
        except (TypeError, ValueError, OverflowError) as exc:
            operands = [(getattr(v.type, "dtype", v.type), getattr(v.type, "ndim", 0)) for v in pt_inputs]
            raise refused(self.opkit_op, operands, f"as_pytensor_op({self.opkit_op})", exc) from exc
        node_inputs = to_pytensor_graph(opkit_node.inputs, list(zip(mirrored, pt_inputs)),
                                        f"the inputs {self.opkit_op}.make_node makes")
        outputs = [to_pytensor_type(o.type, f"output {i} of {self.opkit_op}")()
                   for i, o in enumerate(opkit_node.outputs)]
        return PtApply(self, node_inputs, outputs)

    def opkit_node(self, node):
        """Return the opkit Apply node mirroring the PyTensor node `node` (kept in its tag)."""
        key = tuple(v.type for v in node.inputs)
        cached = getattr(node.tag, "opkit_node", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        where = f"the inputs of {self.opkit_op}"
        opkit_node = self.opkit_op.make_node(*[mirror_variable(v, where) for v in node.inputs])
        node.tag.opkit_node = (key, opkit_node)
        return opkit_node

    def get_params(self, node):
        """Return the node's params (opkit's get_params) as a value of the PyTensor params type."""
        if self.params_type is None:
            raise PtMethodNotDefined("get_params")
        value = self.opkit_op.node_params(self.opkit_node(node))
        if isinstance(self.params_type, PtParamsType):
            return to_pytensor_params(value, self.params_type)
        return self.params_type.filter(value)

    # ---- Python: opkit's compiled module for the node ----

    def perform(self, node, inputs, output_storage):
        """Compute the node with link's one node runner (opkit's compiled function of the op, once per input types)."""
        opkit_node = self.opkit_node(node)
        results = run_op(self.opkit_op, [v.type for v in opkit_node.inputs], inputs)
        for storage, variable, value in zip(output_storage, node.outputs, results):
            storage[0] = value if isinstance(variable.type, PtTensorType) else variable.type.filter(value)

    # ---- C: opkit's code for the node, in PyTensor's module ----

    def _c_node(self, node):
        opkit_node = self.opkit_node(node)
        if not op_has_c(opkit_node):
            raise PtMethodNotDefined("c_code", type(self), self.__class__.__name__,
                                     f"{self.opkit_op} has no C code for this node; PyTensor runs perform")
        return opkit_node

    def c_code(self, node, name, inputs, outputs, sub):
        try:
            return _named(name, lambda n: self.opkit_op.c_code(self._c_node(node), n, inputs, outputs, sub))
        except MethodNotDefined as exc:
            raise PtMethodNotDefined("c_code", type(self), str(exc)) from exc

    def c_code_cleanup(self, node, name, inputs, outputs, sub):
        return _named(name, lambda n: call(self.opkit_op, "c_code_cleanup", self._c_node(node), n, inputs, outputs,
                                           sub, default=""))

    def c_support_code(self, **kwargs):
        codes = as_list(call(self.opkit_op, "c_support_code"))
        return "\n".join(codes + [self._params_typedef()])

    def _params_typedef(self):
        """Name PyTensor's params struct as opkit's, so PARAMS_TYPE in the op's C names the real struct."""
        opkit_params = self.opkit_op.params_type
        if not isinstance(opkit_params, ParamsType):
            return ""
        return render("bridge_pytensor.c.j2", "params_typedef", pytensor_struct=self.params_type.name,
                      alias=opkit_params.struct_name())

    def c_support_code_apply(self, node, name):
        return self._node_code("c_support_code_apply", node, name)

    def c_init_code(self, **kwargs):
        return as_list(call(self.opkit_op, "c_init_code"))

    def c_init_code_apply(self, node, name):
        return self._node_code("c_init_code_apply", node, name)

    # PyTensor gives the params' C name to c_init_code_struct only and asks for the node's struct
    # support code right after: opkit's sections may read PARAMS there (in struct methods). Not in
    # cleanup_code_struct: PyTensor frees the params before that code runs.
    def c_init_code_struct(self, node, name, sub):
        if "params" in sub:
            self._struct_params[name] = sub["params"]
        return self._node_code("c_init_code_struct", node, name, sub)

    def c_support_code_struct(self, node, name):
        return self._node_code("c_support_code_struct", node, name, sub=self._struct_sub(name))

    def c_cleanup_code_struct(self, node, name):
        sections = getattr(self.opkit_op, "code_sections", {}).get("cleanup_code_struct", ())
        if any(_PARAMS_WORD.search(_C_COMMENT.sub(" ", section.text)) for section in sections):
            raise NotImplementedError(f"{self.opkit_op}: its cleanup_code_struct section reads PARAMS, which PyTensor "
                                      "frees before that code runs; PyTensor runs the op's perform instead (under "
                                      "Mode(linker='c'), move that code out of cleanup_code_struct)")
        return self._node_code("c_cleanup_code_struct", node, name)

    def _struct_sub(self, name):
        params = self._struct_params.get(name)
        return {} if params is None else {"params": params}

    def _node_code(self, method, node, name, *args, **optional):
        """Return the text of one of the op's per-node C methods (its sections, macros expanded)."""
        opkit_node = self._c_node(node)
        return _named(name, lambda n: "\n".join(as_list(call(self.opkit_op, method, opkit_node, n, *args,
                                                             **optional))))

    def _gather(self, method):
        return as_list(call(self.opkit_op, method, c_compiler=None))

    def c_headers(self, **kwargs):
        return _DEFAULT_HEADERS + [h for h in self._gather("c_headers") if h not in _DEFAULT_HEADERS]

    def c_header_dirs(self, **kwargs):
        return self._gather("c_header_dirs")

    def c_libraries(self, **kwargs):
        return self._gather("c_libraries")

    def c_lib_dirs(self, **kwargs):
        return self._gather("c_lib_dirs")

    def c_compile_args(self, **kwargs):
        return self._gather("c_compile_args")

    def c_no_compile_args(self, **kwargs):
        return self._gather("c_no_compile_args")

    def c_code_cache_version(self):
        if not _compares_by_value(self.opkit_op):
            return ()
        return _versioned(call(self.opkit_op, "c_code_cache_version", default=()))

    def c_code_cache_version_apply(self, node):
        if not _compares_by_value(self.opkit_op):
            return ()
        version = call(self.opkit_op, "c_code_cache_version_apply", self.opkit_node(node), default=None)
        if version is None:
            version = call(self.opkit_op, "c_code_cache_version", default=())
        return _versioned(version)

    # ---- shapes and gradients: opkit's graphs, translated ----

    def infer_shape(self, *args):
        """Translate opkit's infer_shape; without one (or one that does not map) PyTensor asks at run time.

        PyTensor 3.0 passes (fgraph, node, input_shapes), later versions (node, input_shapes).
        """
        node, input_shapes = args[-2:]
        method = getattr(self.opkit_op, "infer_shape", None)
        if method is None:
            raise ShapeError(f"{self.opkit_op} has no infer_shape")
        opkit_node, givens = self._mirror_node(node.inputs)
        opkit_shapes = []
        for shape in input_shapes:
            mirrored = [mirror_variable(pt.as_tensor_variable(d), "an input shape") for d in shape]
            givens += [(m, pt.as_tensor_variable(d)) for m, d in zip(mirrored, shape)]
            opkit_shapes.append(tuple(mirrored))
        shapes = method(opkit_node, opkit_shapes)
        where = f"the infer_shape of {self.opkit_op}"
        try:
            return [tuple(_dims(shape, givens, where)) for shape in shapes]
        except NotImplementedError as exc:
            raise ShapeError(str(exc)) from exc

    def pullback(self, inputs, outputs, cotangents):
        """Return opkit's L_op of the op as a PyTensor graph (NotImplementedError naming what does not map)."""
        where = f"the gradient of {self.opkit_op}"
        if not has_grad(self.opkit_op):  # opkit.grad's own test: grad, pullback or an L_op of its own
            raise NotImplementedError(f"{where}: the opkit op defines neither grad nor L_op, so PyTensor cannot "
                                      "differentiate through it; define grad(inputs, output_grads) on the op")
        opkit_node, givens = self._mirror_node(inputs)
        givens += list(zip(opkit_node.outputs, outputs))
        opkit_cotangents = self._mirror_points(cotangents, givens, f"an output gradient of {self.opkit_op}")
        opkit_cotangents = [disconnected_type() if c is None else c for c in opkit_cotangents]
        grads = self.opkit_op.L_op(opkit_node.inputs, opkit_node.outputs, opkit_cotangents)
        return to_pytensor_graph(list(grads), givens, where)

    def pushforward(self, inputs, outputs, tangents):
        """Return opkit's R_op of the op as a PyTensor graph (NotImplementedError naming what does not map)."""
        where = f"the R_op of {self.opkit_op}"
        if not hasattr(self.opkit_op, "R_op"):
            raise NotImplementedError(f"{where}: the opkit op defines no R_op; define R_op(inputs, eval_points) "
                                      "on the op, or let PyTensor build the pushforward from the gradient")
        opkit_node, givens = self._mirror_node(inputs)
        opkit_points = self._mirror_points(tangents, givens, f"an eval point of {self.opkit_op}")
        results = to_pytensor_graph(list(self.opkit_op.R_op(opkit_node.inputs, opkit_points)), givens, where)
        return [PtDisconnectedType()() if r is None else r for r in results]

    @staticmethod
    def _mirror_points(points, givens, what):
        """Mirror gradients or tangents (None for PyTensor's disconnected ones), recording them in givens."""
        mirrored = []
        for point in points:
            if point is None or isinstance(point.type, PtDisconnectedType):
                mirrored.append(None)
            else:
                mirrored.append(mirror_variable(point, what))
                givens.append((mirrored[-1], point))
        return mirrored

    def connection_pattern(self, node):
        method = getattr(self.opkit_op, "connection_pattern", None)
        if method is None:
            return [[True] * len(node.outputs) for _ in node.inputs]
        return method(self.opkit_node(node))

    def _mirror_node(self, pt_inputs):
        """Return an opkit node on variables mirroring `pt_inputs`, and the (opkit, PyTensor) pairs known."""
        mirrored = [mirror_variable(v, f"the inputs of {self.opkit_op}") for v in pt_inputs]
        return self.opkit_op.make_node(*mirrored), list(zip(mirrored, pt_inputs))


# PyTensor's dispatch module of a backend -> opkit's module whose register(PyTensorOp) adds bridged ops to it.
# numba: the op's C called from nopython code; JAX: opkit's JAX bridge. Each needs its backend (numba, JAX).
_BACKENDS = {"pytensor.link.numba.dispatch.basic": "opkit.bridge.pytensor_numba",
             "pytensor.link.jax.dispatch.basic": "opkit.bridge.pytensor_jax"}


def _register_backends():
    """Register bridged ops with PyTensor's numba and JAX backends once their dispatch modules are imported.

    Neither backend is imported here, nor opkit's module for it until then.
    """
    for dispatch, bridge in _BACKENDS.items():
        # lazy: opkit's module for a backend imports that backend: it loads once PyTensor's dispatch for it is
        after_import(dispatch, lambda bridge=bridge: load(bridge, "register")(PyTensorOp))


def _named(name, produce):
    """Return produce(name) for a PyTensor node name, which may hold its hash placeholder.

    PyTensor names nodes ``node_<<<<HASH_PLACEHOLDER>>>>_0`` and puts the module's
    hash in later; opkit's APPLY_SPECIFIC wants an identifier, so opkit sees a
    stand-in that is swapped back in the text it returns.
    """
    if _HASH_PLACEHOLDER not in name:
        return produce(name)
    return produce(name.replace(_HASH_PLACEHOLDER, _STAND_IN)).replace(_STAND_IN, _HASH_PLACEHOLDER)


def _compares_by_value(op):
    """Return True if an unpickled copy of `op` equals it, as PyTensor's module cache requires of a versioned op.

    An op class without __props__ compares by identity: its modules stay in this process.
    """
    return type(op).__eq__ is not object.__eq__


def _versioned(version):
    """Return a PyTensor cache version for opkit's (empty, meaning never reuse, stays empty)."""
    return (_BRIDGE_VERSION, tuple(version)) if version else ()


def _dims(shape, givens, where):
    """Translate one output shape: numbers stay numbers, opkit variables become PyTensor ones."""
    symbolic = [d for d in shape if isinstance(d, Variable)]
    translated = iter(to_pytensor_graph(symbolic, givens, where))
    return [next(translated) if isinstance(d, Variable) else d for d in shape]


_register_backends()
