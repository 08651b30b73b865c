"""The tensor layer of the graph: n-d array types and the built-in tensor ops, in eight layers.

Read them in this order; each imports only the layers before it, at module level and inside functions:

1. types        TensorType and its C interface, TensorVariable and TensorConstant, the constructors
                (matrix, vector, ...), Python scalars that adapt to the other operand (weak), the
                shape checks (Assert, Depend) every later op states about its inputs, and operators,
                the one upward edge (below).
2. scalars      the scalar functions (add, exp, minimum, comparisons, cast): numpy's result, a C expression;
                and the public ScalarOp API (user_scalar) users write their own with.
3. elementwise  Elemwise (a scalar function over broadcast arrays), its C loop, and the elementwise ops of
                opkit.tensor (add, exp, abs, lt, ...) with Dot.
4. shapes       views and shape and index ops: Alloc, Cast, DimShuffle, Reshape, Subtensor, Join,
                SpecifyShape, Fill, SumToShape, arange/zeros/ones.
5. fused        trees of elementwise nodes fused into one loop.
6. reductions   Sum, Prod, Max, Min, Mean, Argmax, Argmin, their C, a reduction fused with its input, and
                the reductions built of them (var, std, logsumexp, any, all, ptp: statistics).
   sorting      sort, argsort and the scans cumsum, cumprod, with C (their gradients are their own methods);
                topk and interp, graphs of argsort, searchsorted and indexing.
   products     matmul, outer, tensordot, batched_dot: graphs of Dot, a batched Matmul op and sums; einsum;
                linalg: numpy.linalg in perform ops (inv, det, solve, cholesky, eigh, svd) and norm.
7. gradients    the gradient rules of the elementwise ops, Dot, the reductions and the broadcasting shape
                ops; each registers itself (opkit.core.gradient_registry) and the op's grad looks it up.
8. language     the table of the tensor functions (a Row each: reference, dtype rule, gradient, C), read by
                the tests and the reference page (docs/tensor_functions.md), never by a graph.

No module imports a later layer. A tensor's operators and methods (x + y, x.sum(), x[0], x.reshape(...)),
a type's filter_variable (SpecifyShape), a scalar op applied to arrays (Elemwise) and core's ScalarType and
Shape ops build ops of later layers through types/operators.py's `find(name)`; a built-in op's gradient is
found in opkit.core.gradient_registry. This package, which Python imports before any of its modules, tells
both where the later layers are (LATE, GRADIENTS below) before anything else runs, and loads a layer's
module on first use: `import opkit.tensor` stays as quick as building `x * y` needs.
tests/core/test_layering.py holds the code to this order and finds no import circle in opkit.
"""

import importlib

from opkit.core import gradient_registry as _gradient_registry
from opkit.core.tensor.types import operators as _operators

# (layer, its modules in reading order): the folder opkit/core/tensor/<layer>/ holds them.
LAYERS = (
    ("types", ("weak", "operators", "c_interface", "static_shape", "symbolic", "type", "variable",
               "constructors", "shape_checks", "constant_value")),
    ("scalars", ("scalar_ops", "scalar_math", "scalar_logic", "scalar_elementary", "scalar_special", "builtins",
                 "compute_dtype", "user_scalar")),
    ("elementwise", ("elemwise_c", "elemwise", "basic", "elemwise_math", "logic", "elemwise_elementary",
                     "elemwise_special")),
    ("shapes", ("scalar_tensor", "index_values", "alloc", "fill", "shape_ops", "reshape", "specify_shape", "sum_to_shape",
                "subtensor", "write_values", "advanced_subtensor", "advanced_inc_subtensor", "mask_index",
                "inc_subtensor", "advanced_index", "join", "creation", "take_along_axis", "axes", "diagonal",
                "repeat_take", "filled", "closeness", "split", "nonzero", "unravel", "check_rewrites",
                "proven_sum_to_shape", "extra_shapes", "reshape_dims", "vectorize")),
    ("fused", ("fusion",)),
    ("reductions", ("reduction_c", "reduction_arg_c", "reduction", "reduce_fusion", "scalar_reduce", "statistics")),
    ("sorting", ("sort", "cumulative", "searching", "topk", "interpolate")),
    ("products", ("matmul", "vector_products", "einsum", "linalg")),
    ("gradients", ("elemwise_grad", "elemwise_math_grad", "elemwise_elementary_grad", "elemwise_special_grad",
                   "reduce_grad", "shape_grad", "advanced_grad", "fused_grad")),
    ("language", ("row", "example_inputs", "shape_examples", "elementwise_rows", "special_rows", "reduction_rows",
                  "product_rows", "shape_rows", "indexing_rows", "sort_rows", "porting_rows", "linalg_rows", "render",
                  "__main__")),
)

# The module of a later layer (or below the tensor layers) that defines each name types/operators.py finds.
LATE = {
    "opkit.core.tensor.elementwise.basic": ("add", "sub", "mul", "true_div", "pow", "neg", "dot", "exp", "log",
                                            "sqrt"),
    "opkit.core.tensor.elementwise.elemwise_math": ("int_div", "mod", "abs", "ceil", "clip", "cos", "expm1", "floor",
                                                    "log1p", "round", "sin", "tanh"),
    "opkit.core.tensor.elementwise.elemwise_elementary": (
        "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "conj", "cosh", "deg2rad", "exp2", "log10",
        "log2", "rad2deg", "round_half_away_from_zero", "round_half_to_even", "sinh", "tan", "trunc"),
    "opkit.core.tensor.elementwise.logic": ("lt", "le", "gt", "ge", "eq", "neq", "and_", "or_", "xor", "invert"),
    "opkit.core.tensor.elementwise.elemwise": ("Elemwise",),
    "opkit.core.tensor.shapes.alloc": ("DimShuffle", "transpose", "cast", "zeros_like", "ones_like"),
    "opkit.core.tensor.shapes.shape_ops": ("shape",),
    "opkit.core.tensor.shapes.advanced_index": ("getitem",),
    "opkit.core.tensor.shapes.reshape": ("reshape", "flatten"),
    "opkit.core.tensor.shapes.inc_subtensor": ("set_subtensor", "inc_subtensor"),
    "opkit.core.tensor.shapes.specify_shape": ("specify_shape",),
    "opkit.core.tensor.shapes.axes": ("squeeze", "ravel", "swapaxes", "matrix_transpose"),
    "opkit.core.tensor.shapes.diagonal": ("diagonal", "trace"),
    "opkit.core.tensor.shapes.repeat_take": ("repeat", "take", "choose"),
    "opkit.core.tensor.shapes.fill": ("fill",),
    "opkit.core.tensor.shapes.nonzero": ("nonzero", "nonzero_values", "compress"),
    "opkit.core.tensor.shapes.scalar_tensor": ("apply_operator", "scalar_from_tensor", "tensor_from_scalar"),
    "opkit.core.tensor.types.constant_value": ("get_scalar_constant_value",),
    "opkit.core.tensor.reductions.reduction": ("sum", "prod", "max", "min", "mean", "argmax", "argmin"),
    "opkit.core.tensor.reductions.statistics": ("std", "var", "ptp"),
    "opkit.core.tensor.sorting.sort": ("sort", "argsort"),
    "opkit.core.tensor.sorting.cumulative": ("cumsum", "cumprod"),
    "opkit.core.tensor.sorting.searching": ("searchsorted",),
    "opkit.core.tensor.products.matmul": ("matmul",),
    "opkit.core.tensor.types.type": ("TensorType",),  # for core's modules below the tensor layers
}
# The gradient layer: its modules register the built-in ops' gradient rules when imported.
GRADIENTS = ("opkit.core.tensor.gradients.elemwise_grad", "opkit.core.tensor.gradients.elemwise_math_grad",
             "opkit.core.tensor.gradients.elemwise_elementary_grad", "opkit.core.tensor.gradients.elemwise_special_grad",
             "opkit.core.tensor.gradients.reduce_grad", "opkit.core.tensor.gradients.shape_grad",
             "opkit.core.tensor.gradients.advanced_grad", "opkit.core.tensor.gradients.fused_grad")


def _load(module):
    """Import `module`, a later layer's, on first use (see the module doc)."""
    return importlib.import_module(module)  # lazy: a later layer loads when a tensor's operator first needs it


_operators.install(LATE, _load)
_gradient_registry.install_loader(lambda: [_load(module) for module in GRADIENTS])
