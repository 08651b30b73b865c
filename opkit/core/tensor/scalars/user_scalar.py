"""Theano's and PyTensor's scalar op API: ScalarOp, UnaryScalarOp, BinaryScalarOp and output_types_preference.

A user writes a scalar op as in PyTensor's scalar/math.py: ``impl`` (numpy scalars in, a number out),
statement-style ``c_code(node, name, inp, out, sub)`` (C statements assigning the output; ``node`` is
an Apply of ScalarType variables), ``grad`` / ``L_op`` / ``pullback`` and ``output_types_preference``.
``Elemwise(scalar_op)`` applies it over arrays, fused with opkit's own elementwise ops in one C loop.

Gradients: Elemwise calls the op's gradient method with its tensor inputs, outputs and output
gradients (PyTensor calls it on scalar variables, then maps the scalar graph onto Elemwise nodes):
the functions a port imports from opkit.scalar (exp, switch, true_div, ...) and the op itself, called
on tensor variables, build the tensor graph directly. The methods below that Elemwise and fusion
call (nin, ufunc, output_dtype, operand_dtypes, has_c, c_step) are the protocol opkit's built-in
scalar functions (scalar_ops.ScalarOp) follow too.
"""

from __future__ import annotations

import functools

import numpy as np

from opkit.core.references import find_path
from opkit.core.graph import Apply, Variable
from opkit.core.op import Op
from opkit.core.scalar_type import SCALAR_TYPES, ScalarType, as_scalar
from opkit.core.tensor.scalars.compute_dtype import call_in, converted, target_dtype
from opkit.core.tensor.scalars.scalar_ops import has_c_dtype
from opkit.core.type import MethodNotDefined
from opkit.core.tensor.types.operators import find
from opkit.core.gradient_types import grad_not_implemented

bool_types = (SCALAR_TYPES["bool"],)
int_types = tuple(SCALAR_TYPES[d] for d in ("int8", "int16", "int32", "int64"))
uint_types = tuple(SCALAR_TYPES[d] for d in ("uint8", "uint16", "uint32", "uint64"))
float_types = tuple(SCALAR_TYPES[d] for d in ("float16", "float32", "float64"))
complex_types = (SCALAR_TYPES["complex64"], SCALAR_TYPES["complex128"])
integer_types = int_types + uint_types
discrete_types = bool_types + integer_types
continuous_types = float_types + complex_types
all_types = discrete_types + continuous_types
discrete_dtypes = tuple(t.dtype for t in discrete_types)
float_dtypes = tuple(t.dtype for t in float_types)

# Written into sub["fail"] for a scalar op's c_code: a loop element cannot raise a Python error
# (the loop may run on threads without the GIL), so a c_code that uses it runs impl instead.
_NO_FAIL = "OPKIT_SCALAR_OP_CANNOT_FAIL_IN_A_LOOP"


@functools.lru_cache(maxsize=None)
def function_from_path(path):
    """Return the function a dotted `path` names, as PyTensor reads nfunc_spec: a numpy name
    ("exp"), or the longest importable module prefix then attributes ("scipy.stats.chi2.sf": the module
    scipy.stats, then chi2, then sf); None when it names nothing."""
    found = getattr(np, path, None)
    return found if found is not None else find_path(path)


def get_scalar_type(dtype):
    """Return the ScalarType of `dtype` (one instance per dtype)."""
    return SCALAR_TYPES[np.dtype(dtype).name]


def _upcast(*types):
    return str(np.result_type(*[np.dtype(t.dtype) for t in types]))


def upcast_out(*types):
    return (get_scalar_type(_upcast(*types)),)


def upcast_out_nobool(*types):
    out = upcast_out(*types)
    if out[0] == SCALAR_TYPES["bool"]:
        raise TypeError("bool output not supported")
    return out


def upcast_out_min8(*types):
    out = upcast_out(*types)
    return (SCALAR_TYPES["int8"],) if out[0] == SCALAR_TYPES["bool"] else out


def upcast_out_no_complex(*types):
    if any(t in complex_types for t in types):
        raise TypeError("complex type are not supported")
    return upcast_out(*types)


_TO_FLOAT = {"bool": "float32", "int8": "float32", "int16": "float32", "int32": "float64", "int64": "float64",
             "uint8": "float32", "uint16": "float32", "uint32": "float64", "uint64": "float64"}


def upgrade_to_float(*types):
    """Integers become float32 (8 and 16 bits, bool) or float64 (32 and 64 bits), as in Theano."""
    return (get_scalar_type(_upcast(*[get_scalar_type(_TO_FLOAT.get(t.dtype, t.dtype)) for t in types])),)


def upgrade_to_float64(*types):
    return (SCALAR_TYPES["float64"],)


def upgrade_to_float_no_complex(*types):
    if any(t in complex_types for t in types):
        raise TypeError("complex argument not supported")
    return upgrade_to_float(*types)


def same_out(type):
    return (type,)


def same_out_nobool(type):
    if type == SCALAR_TYPES["bool"]:
        raise TypeError("bool input not supported")
    return (type,)


def same_out_min8(type):
    return (SCALAR_TYPES["int8"],) if type == SCALAR_TYPES["bool"] else (type,)


def same_out_nocomplex(type):
    if type in complex_types:
        raise TypeError("complex argument not supported")
    return (type,)


def same_out_float_only(type):
    if type not in float_types:
        raise TypeError("only float type are supported")
    return (type,)


def real_out(type):
    return {"complex64": (SCALAR_TYPES["float32"],), "complex128": (SCALAR_TYPES["float64"],)}.get(type.dtype, (type,))


def int_out(*types):
    return (SCALAR_TYPES["int64"],)


def float_out(*types):
    return (SCALAR_TYPES["float64"],)


class transfer_type:
    """output_types_preference giving output k the type of input `transfer[k]` (None: upcast of all)."""

    def __init__(self, *transfer):
        if not all(t is None or isinstance(t, int) for t in transfer):
            raise TypeError(f"transfer_type takes input positions or None, got {transfer!r}")
        self.transfer = transfer

    def __call__(self, *types):
        return tuple(upcast_out(*types)[0] if i is None else types[i] for i in self.transfer)

    def __eq__(self, other):
        return type(self) is type(other) and self.transfer == other.transfer

    def __hash__(self):
        return hash((type(self), self.transfer))


class specific_out:
    """output_types_preference giving the outputs the types `spec`, whatever the inputs."""

    def __init__(self, *spec):
        self.spec = spec

    def __call__(self, *types):
        return self.spec

    def __eq__(self, other):
        return type(self) is type(other) and self.spec == other.spec

    def __hash__(self):
        return hash((type(self), self.spec))


class ScalarOp(Op):
    """A function of numbers (Theano's and PyTensor's ScalarOp): subclass it, wrap it in Elemwise.

    ``ScalarOp(output_types_preference=upgrade_to_float, name="f")``. Equal ops are of the same
    class with the same output_types_preference (and ``__props__``, where a subclass sets them).
    """

    nin = -1
    nout = 1

    def __init__(self, output_types_preference=None, name=None):
        self.name = name
        if output_types_preference is not None:
            if not callable(output_types_preference):
                raise TypeError(f"Expected a callable for the 'output_types_preference' argument to "
                                f"{type(self).__name__}, got {output_types_preference!r}")
            self.output_types_preference = output_types_preference
        elif not hasattr(self, "output_types_preference"):
            self.output_types_preference = None

    # ---- the scalar graph: Apply nodes of ScalarType variables (what c_code's `node` is) ----

    def __call__(self, *inputs, **kwargs):
        """On scalars, the scalar output; on tensors (or arrays), ``Elemwise(self)`` applied to them."""
        if any(isinstance(i, Variable) and not isinstance(i.type, ScalarType) or isinstance(i, np.ndarray)
               and i.ndim for i in inputs):
            return find("Elemwise")(self)(*inputs, **kwargs)
        return super().__call__(*inputs, **kwargs)

    def make_node(self, *inputs):
        if self.nin >= 0 and len(inputs) != self.nin:
            raise TypeError(f"Wrong number of inputs for {self}.make_node (got {len(inputs)}, expected {self.nin})")
        inputs = [as_scalar(i) for i in inputs]
        outputs = [t() for t in self.output_types([i.type for i in inputs])]
        if len(outputs) != self.nout:
            raise TypeError(f"{self} produced {len(outputs)} outputs, expected {self.nout}")
        return Apply(self, inputs, outputs)

    def output_types(self, types):
        preference = self.output_types_preference
        if preference is None:
            raise NotImplementedError(f"Cannot calculate the output types for {self}: give it an "
                                      "output_types_preference (upgrade_to_float, same_out, upcast_out, ...)")
        variables = preference(*types)
        if not isinstance(variables, (list, tuple)) or not all(isinstance(t, ScalarType) for t in variables):
            raise TypeError(f"{self}: output_types_preference {preference} should return a list or a tuple of "
                            f"ScalarTypes, got {variables!r}")
        if len(variables) != self.nout:
            raise TypeError(f"{self}: output_types_preference {preference} gave {len(variables)} types, "
                            f"expected {self.nout}")
        return variables

    def perform(self, node, inputs, output_storage):
        """impl computed in the outputs' dtypes, not in a narrower one numpy would pick for the inputs (compute_dtype)."""
        results = call_in(self.impl, inputs, [out.type.dtype for out in node.outputs])
        if self.nout == 1:
            results = [results]
        for storage, out, value in zip(output_storage, node.outputs, results):
            storage[0] = np.asarray(value).astype(out.type.dtype)[()]

    def impl(self, *inputs):
        raise MethodNotDefined("impl", type(self), type(self).__name__)

    def grad(self, inputs, output_gradients):
        raise MethodNotDefined("grad", type(self), type(self).__name__)

    def L_op(self, inputs, outputs, output_gradients):
        """PyTensor's pullback or L_op, else Theano's grad; no gradient method: not implemented."""
        cls = type(self)
        if getattr(cls, "pullback", None) is not None:
            return self.pullback(inputs, outputs, output_gradients)
        if cls.grad is not ScalarOp.grad:
            return self.grad(inputs, output_gradients)

        return [grad_not_implemented(self, i, x, f"{type(self).__name__} defines no grad, L_op or pullback")
                for i, x in enumerate(inputs)]

    def c_code_cache_version(self):
        return (4,)

    def __eq__(self, other):
        if type(self) is not type(other):
            return False
        props = getattr(type(self), "__props__", ())
        return (getattr(self, "output_types_preference", None) == getattr(other, "output_types_preference", None)
                and all(getattr(self, p) == getattr(other, p) for p in props))

    def __hash__(self):
        props = getattr(type(self), "__props__", ())
        return hash((type(self), getattr(self, "output_types_preference", None),
                     *(getattr(self, p) for p in props)))

    def __str__(self):
        return self.name or type(self).__name__

    # ---- the protocol of Elemwise and fusion (shared with opkit's built-in scalar functions) ----

    def ufunc(self, *arrays):
        """impl over arrays: the function named by nfunc_spec where there is one, else impl per element.

        Computed in the output dtypes output_types_preference gives the arrays' dtypes, never in the
        narrower one numpy would pick (np.sqrt of int8: float16): see compute_dtype.
        """
        out_dtypes = [t.dtype for t in self.output_types([get_scalar_type(np.asarray(a).dtype) for a in arrays])]
        spec = getattr(self, "nfunc_spec", None)
        function = None
        if spec and spec[1] == len(arrays) and spec[2] == self.nout:
            function = function_from_path(spec[0])
        if function is None:
            return self._impl_over(converted(arrays, target_dtype(out_dtypes)), out_dtypes)
        return call_in(function, arrays, out_dtypes)

    def _impl_over(self, arrays, out_dtypes):
        """impl element by element: each element a numpy scalar of its array's dtype (np.frompyfunc alone hands
        impl Python numbers: int8 * int8 would not wrap, float32 would compute in double), each result cast
        to its output dtype as an array cast does (wrapping an integer, as C does)."""
        scalar_types = [np.asarray(a).dtype.type for a in arrays]
        out_types = [np.dtype(d) for d in out_dtypes]

        def element(*values):
            results = self.impl(*[kind(value) for kind, value in zip(scalar_types, values)])
            if self.nout == 1:
                return np.asarray(results).astype(out_types[0])[()]
            return tuple(np.asarray(r).astype(t)[()] for r, t in zip(results, out_types))

        return np.frompyfunc(element, len(arrays), self.nout)(*arrays)

    def weak_operands(self, operands):
        return list(operands)

    def operand_dtypes(self, operands, out_dtype=None):
        """Each operand keeps its dtype (Theano's Elemwise casts nothing); a Python number takes numpy's."""
        strong = [np.dtype(o) for o in operands if isinstance(o, str)]
        return [o if isinstance(o, str) else str(np.result_type(*strong, o) if strong else np.asarray(o).dtype)
                for o in operands]

    def output_dtype(self, operands):
        """Return the output dtype output_types_preference gives the operands' scalar types."""
        dtypes = self.operand_dtypes(operands)
        if self.nout != 1:
            raise TypeError(f"Elemwise({self}): opkit's Elemwise takes scalar ops with one output, "
                            f"this one has {self.nout}")
        try:
            (out,) = self.output_types([get_scalar_type(d) for d in dtypes])
        except TypeError as exc:
            raise TypeError(f"{self} is not defined for inputs of dtype {', '.join(dtypes)}: {exc}") from None
        return out.dtype

    def has_c(self, out_dtype, operand_dtypes=()):
        """True if c_code gives code for these dtypes (no float16 or complex: C cannot compute as numpy)."""
        dtypes = tuple(str(np.dtype(d)) for d in operand_dtypes)
        if not (has_c_dtype(out_dtype) and all(has_c_dtype(d) for d in dtypes)) or len(dtypes) != self.nin:
            return False
        return self._c_text(dtypes, str(np.dtype(out_dtype))) is not None

    def c_step(self, operand_dtypes, out_dtype, inputs, output, name):
        """Return the c_code statements assigning `output` from the C names `inputs` (see has_c)."""
        code = self._c_text(tuple(operand_dtypes), out_dtype, tuple(inputs), output, name)
        if code is None:
            raise MethodNotDefined("c_code", type(self), f"{self} has no C code for dtypes {operand_dtypes}")
        return code

    def _c_text(self, dtypes, out_dtype, inputs=None, output="z", name="opkit_scalar"):
        inputs = inputs or tuple(f"x{k}" for k in range(len(dtypes)))
        return _c_text(id(self), self, dtypes, out_dtype, inputs, output, name)


def scalar_node(op, dtypes):
    """Return the Apply node of `op` on new scalar variables of `dtypes` (what its C methods take)."""
    return op.make_node(*[get_scalar_type(d)() for d in dtypes])


# Keyed by the op's identity too: equal ops (same class and output_types_preference) may hold other
# attributes their c_code reads.
@functools.lru_cache(maxsize=4096)
def _c_text(identity, op, dtypes, out_dtype, inputs, output, name):
    node = scalar_node(op, dtypes)
    if node.outputs[0].type.dtype != out_dtype:
        return None
    try:
        code = op.c_code(node, name, list(inputs), [output], {"fail": _NO_FAIL})
    except (NotImplementedError, MethodNotDefined):
        return None
    if not isinstance(code, str) or _NO_FAIL in code:
        return None
    return code


class UnaryScalarOp(ScalarOp):
    nin = 1


class BinaryScalarOp(ScalarOp):
    nin = 2
    commutative = None
    associative = None
    identity = None


def is_user_scalar_op(scalar_op):
    """True for a scalar op written with this API (c_code statements, grad of its own)."""
    return isinstance(scalar_op, ScalarOp)
