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

One module imports later layers: types/operators.py, the late-bound facade through which a tensor's
operators and methods (x + y, x.sum(), x[0], x.reshape(...)), a type's filter_variable (SpecifyShape),
a scalar op applied to arrays (Elemwise) and the gradient registry (loading this last layer) reach them.
Each of its imports is inside a function and marked `# later layer:`.
tests/core/test_layering.py holds the code to this order and finds no import circle in opkit.
"""

# (layer, its modules in reading order): the folder opkit/core/tensor/<layer>/ holds them.
LAYERS = (
    ("types", ("weak", "operators", "c_interface", "static_shape", "symbolic", "type", "variable",
               "constructors", "shape_checks")),
    ("scalars", ("scalar_ops", "scalar_math", "scalar_logic", "scalar_elementary", "scalar_special", "compute_dtype",
                 "user_scalar")),
    ("elementwise", ("elemwise_c", "elemwise", "basic", "elemwise_math", "logic", "elemwise_elementary",
                     "elemwise_special")),
    ("shapes", ("index_values", "alloc", "fill", "shape_ops", "reshape", "specify_shape", "sum_to_shape",
                "subtensor", "write_values", "advanced_subtensor", "advanced_inc_subtensor", "mask_index",
                "advanced_index", "inc_subtensor", "take_along_axis", "join",
                "creation", "axes", "diagonal", "repeat_take", "filled", "closeness", "split", "nonzero", "unravel",
                "check_rewrites", "proven_sum_to_shape", "extra_shapes", "reshape_dims", "vectorize")),
    ("fused", ("fusion",)),
    ("reductions", ("reduction_c", "reduction_arg_c", "reduction", "reduce_fusion", "scalar_reduce", "statistics")),
    ("sorting", ("sort", "cumulative", "searching", "topk", "interpolate")),
    ("products", ("matmul", "vector_products", "einsum", "linalg")),
    ("gradients", ("elemwise_grad", "elemwise_math_grad", "elemwise_elementary_grad", "elemwise_special_grad",
                   "reduce_grad", "shape_grad", "advanced_grad")),
    ("language", ("row", "example_inputs", "shape_examples", "elementwise_rows", "special_rows", "reduction_rows",
                  "product_rows", "shape_rows", "indexing_rows", "sort_rows", "porting_rows", "linalg_rows", "render",
                  "__main__")),
)
