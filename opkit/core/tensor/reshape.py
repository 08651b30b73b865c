"""reshape and flatten: a view of the input where numpy can make one (numpy.reshape's rule), else a copy."""

from __future__ import annotations

import numpy as np

from opkit.core.graph import Apply, Constant, Variable
from opkit.core.op import Op
from opkit.core.tensor.type import TensorType
from opkit.core.tensor.variable import as_tensor_variable, constant


def resolve_shape(size, shape, source_shape):
    """Return numpy's target shape for reshaping `size` elements (one -1 allowed), or raise ValueError."""
    shape = tuple(int(s) for s in shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    wrong = [s for s in shape if s < -1]
    known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
    if len(unknown) > 1 or wrong or (unknown and known == 0) or (not unknown and known != size) \
            or (unknown and size % known):
        raise ValueError(f"reshape: cannot reshape an array of shape {tuple(source_shape)} ({size} elements) "
                         f"into shape {shape}: the new shape must hold the same number of elements, with at "
                         "most one -1 for a length to deduce")
    if unknown:
        shape = shape[:unknown[0]] + (size // known,) + shape[unknown[0] + 1:]
    return shape


def _shape_vector(shape):
    """Return `shape` (ints, int scalar variables, or an int vector) as an int64 vector variable."""
    from opkit.core.tensor.alloc import cast
    from opkit.core.tensor.shape_ops import make_vector

    if isinstance(shape, (int, np.integer)) or (isinstance(shape, Variable) and shape.ndim == 0):
        shape = [shape]
    if isinstance(shape, (list, tuple)):
        if all(isinstance(s, (int, np.integer)) for s in shape):
            return constant(np.asarray(shape, dtype="int64").reshape(len(shape)))
        return make_vector(*[cast(as_tensor_variable(s), "int64") for s in shape])
    vector = as_tensor_variable(shape)
    if vector.ndim != 1 or np.dtype(vector.dtype).kind not in "iu":
        raise TypeError(f"reshape: the shape must be integers or an integer vector, got {vector} of type "
                        f"{vector.type}")
    return cast(vector, "int64")


class Reshape(Op):
    """x reshaped to the int64 vector `shape` (one -1 allowed), as numpy.reshape in C order."""

    __props__ = ("ndim",)
    view_map = {0: [0]}

    def __init__(self, ndim):
        self.ndim = int(ndim)

    def make_node(self, x, shape):
        x, shape = as_tensor_variable(x), as_tensor_variable(shape)
        static = [None] * self.ndim
        if isinstance(shape, Constant):
            values = [int(s) for s in shape.data]
            if None not in x.type.shape:
                values = resolve_shape(int(np.prod(x.type.shape, dtype=np.int64)), values, x.type.shape)
            static = [s if s >= 0 else None for s in values]
        return Apply(self, [x, shape], [TensorType(x.dtype, tuple(static))()])

    def perform(self, node, inputs, output_storage):
        x, shape = inputs
        output_storage[0][0] = np.reshape(x, resolve_shape(x.size, shape, x.shape))

    def c_support_code(self):
        return RESHAPE_SUPPORT_CODE

    def c_code(self, node, name, inputs, outputs, sub):
        (x, shape), (z,) = inputs, outputs
        return f"""
{{
    npy_intp dims[{max(self.ndim, 1)}];
    if (opkit_reshape_dims({x}, {shape}, {self.ndim}, dims)) {sub['fail']}
    PyArray_Dims newshape = {{dims, {self.ndim}}};
    PyArrayObject* reshaped = (PyArrayObject*)PyArray_Newshape({x}, &newshape, NPY_CORDER);
    if (!reshaped) {sub['fail']}
    Py_XDECREF({z});
    {z} = reshaped;
}}
"""

    def c_code_cache_version(self):
        return (2,)

    def infer_shape(self, node, input_shapes):
        from opkit.core.tensor.shape_ops import getitem

        x, shape = node.inputs
        static = node.outputs[0].type.shape
        if None not in static:
            return [static]
        if isinstance(shape, Constant) and -1 not in [int(s) for s in shape.data]:
            return [tuple(int(s) for s in shape.data)]
        resolved = ResolvedShape(x.ndim)(shape, *input_shapes[0])
        return [tuple(s if s is not None else getitem(resolved, i) for i, s in enumerate(static))]

    def shape_checks(self, node, input_shapes):
        x, shape = node.inputs
        if isinstance(shape, Constant) and None not in x.type.shape:
            return []  # make_node resolved it
        return [ResolvedShape(x.ndim)(shape, *input_shapes[0])]  # raises resolve_shape's error

    def connection_pattern(self, node):
        return [[True], [False]]

    def grad(self, inputs, output_grads):
        from opkit.core.gradient import disconnected_type
        from opkit.core.tensor.shape_ops import shape as shape_of

        x, _ = inputs
        return [reshape(output_grads[0], shape_of(x), ndim=x.ndim), disconnected_type()]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], inputs[1])]

    def __str__(self):
        return f"Reshape{{{self.ndim}}}"


class ResolvedShape(Op):
    """The target shape of a reshape with its -1 resolved, from the source dims (shape inference)."""

    __props__ = ("source_ndim",)

    def __init__(self, source_ndim):
        self.source_ndim = int(source_ndim)

    def make_node(self, shape, *dims):
        shape = as_tensor_variable(shape)
        dims = [as_tensor_variable(d) for d in dims]
        return Apply(self, [shape, *dims], [TensorType("int64", shape.type.shape)()])

    def perform(self, node, inputs, output_storage):
        shape, *dims = inputs
        size = int(np.prod([int(d) for d in dims], dtype=np.int64))
        output_storage[0][0] = np.asarray(resolve_shape(size, shape, [int(d) for d in dims]), dtype="int64")

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        return [node.outputs[0]]  # it raises where the reshape would

    def has_c_code(self, node):
        return all(v.dtype == "int64" for v in node.inputs)

    def c_support_code(self):
        return RESHAPE_SUPPORT_CODE

    def c_code(self, node, name, inputs, outputs, sub):
        (shape, *dims), (out,) = inputs, outputs
        source = ", ".join(f"(npy_intp)((npy_int64*)PyArray_DATA({d}))[0]" for d in dims) or "0"
        return f"""
{{
    const npy_intp source[{max(len(dims), 1)}] = {{{source}}};
    npy_intp nd = PyArray_DIMS({shape})[0];
    npy_intp* dims = (npy_intp*)PyMem_Malloc((size_t)(nd > 0 ? nd : 1) * sizeof(npy_intp));
    if (!dims) {{ PyErr_NoMemory(); {sub['fail']} }}
    if (opkit_resolve_shape({len(dims)}, source, {shape}, (int)nd, dims)) {{ PyMem_Free(dims); {sub['fail']} }}
    if (!{out} || PyArray_DIMS({out})[0] != nd) {{
        Py_XDECREF({out});
        {out} = (PyArrayObject*)PyArray_EMPTY(1, &nd, NPY_INT64, 0);
        if (!{out}) {{ PyMem_Free(dims); {sub['fail']} }}
    }}
    for (npy_intp d = 0; d < nd; ++d) ((npy_int64*)PyArray_DATA({out}))[d] = (npy_int64)dims[d];
    PyMem_Free(dims);
}}
"""

    def c_code_cache_version(self):
        return (2,)


def reshape(x, shape, ndim=None):
    """Return `x` with a new shape (ints, int scalars or an int vector; one -1 deduces a length)."""
    x = as_tensor_variable(x)
    vector = _shape_vector(shape)
    length = len(vector.data) if isinstance(vector, Constant) else vector.type.shape[0]
    if ndim is None:
        if length is None:
            raise ValueError(f"reshape: the length of the shape vector {vector} is not known when the graph is "
                             "built; pass ndim=")
        ndim = length
    return Reshape(ndim)(x, vector)


def flatten(x, ndim=1):
    """Return `x` with its trailing axes merged so that it has `ndim` dimensions (numpy's C order)."""
    from opkit.core.tensor.alloc import shape_dims

    x = as_tensor_variable(x)
    if not 1 <= ndim <= max(x.ndim, 1):
        raise ValueError(f"flatten: ndim={ndim} must be between 1 and the {x.ndim} dimensions of {x}")
    dims = shape_dims(x)
    last = constant(np.int64(1))
    for d in dims[ndim - 1:]:
        last = last * d
    return reshape(x, [*dims[:ndim - 1], last])


RESHAPE_SUPPORT_CODE = r"""
#ifndef OPKIT_RESHAPE_SUPPORT
#define OPKIT_RESHAPE_SUPPORT
/* Append a shape as Python prints a tuple: (2, 3), (4,), (). */
static size_t opkit_format_shape(char* msg, size_t len, size_t cap, int nd, const npy_intp* dims)
{
    if (len < cap) len += snprintf(msg + len, cap - len, "(");
    for (int d = 0; d < nd; ++d)
        if (len < cap) len += snprintf(msg + len, cap - len, "%s%lld", d ? ", " : "", (long long)dims[d]);
    if (len < cap) len += snprintf(msg + len, cap - len, "%s)", nd == 1 ? "," : "");
    return len;
}

/* Read the int64 vector `shape` into dims[0..nd) with its -1 resolved for a source of shape
   source_dims[0..source_nd), as resolve_shape in reshape.py does (same ValueError text). */
static int opkit_resolve_shape(int source_nd, const npy_intp* source_dims, PyArrayObject* shape, int nd,
                               npy_intp* dims)
{
    npy_intp size = 1, known = 1;
    for (int d = 0; d < source_nd; ++d) size *= source_dims[d];
    int unknown = -1, bad = 0;
    for (int d = 0; d < nd; ++d) {
        dims[d] = (npy_intp)*(npy_int64*)PyArray_GETPTR1(shape, d);
        if (dims[d] == -1) { bad |= unknown >= 0; unknown = d; }
        else if (dims[d] < -1) bad = 1;
        else known *= dims[d];
    }
    bad |= unknown >= 0 ? (known == 0 || size % known != 0) : known != size;
    if (bad) {
        char msg[1024];
        size_t len = snprintf(msg, sizeof msg, "reshape: cannot reshape an array of shape ");
        len = opkit_format_shape(msg, len, sizeof msg, source_nd, source_dims);
        if (len < sizeof msg) len += snprintf(msg + len, sizeof msg - len, " (%lld elements) into shape ",
                                              (long long)size);
        len = opkit_format_shape(msg, len, sizeof msg, nd, dims);
        if (len < sizeof msg) snprintf(msg + len, sizeof msg - len, ": the new shape must hold the same number "
                                       "of elements, with at most one -1 for a length to deduce");
        PyErr_SetString(PyExc_ValueError, msg);
        return -1;
    }
    if (unknown >= 0) dims[unknown] = size / known;
    return 0;
}

/* The dims of `x` reshaped to the int64 vector `shape` of nd entries (opkit_resolve_shape's errors). */
static int opkit_reshape_dims(PyArrayObject* x, PyArrayObject* shape, int nd, npy_intp* dims)
{
    if (PyArray_DIMS(shape)[0] != nd) {
        PyErr_Format(PyExc_ValueError, "reshape: the shape vector has %lld entries, the op was built for %d",
                     (long long)PyArray_DIMS(shape)[0], nd);
        return -1;
    }
    return opkit_resolve_shape(PyArray_NDIM(x), PyArray_DIMS(x), shape, nd, dims);
}
#endif
"""
