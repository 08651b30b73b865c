"""The tensor layer of the graph: n-d array types and the built-in tensor ops, in seven layers.

Read them in this order; each imports only the layers before it:

1. types        TensorType and its C interface, TensorVariable and TensorConstant, the constructors
                (matrix, vector, ...), Python scalars that adapt to the other operand (weak), and the
                shape checks (Assert, Depend) every later op states about its inputs.
2. scalars      the scalar functions (add, exp, minimum, comparisons, cast): numpy's result, a C expression;
                and the public ScalarOp API (user_scalar) users write their own with.
3. elementwise  Elemwise (a scalar function over broadcast arrays), its C loop, and the elementwise ops of
                opkit.tensor (add, exp, abs, lt, ...) with Dot.
4. fused        trees of elementwise nodes fused into one loop.
5. reductions   Sum, Prod, Max, Min, Mean, Argmax, Argmin, their C, and a reduction fused with its input.
6. shapes       views and shape and index ops: Alloc, Cast, DimShuffle, Reshape, Subtensor, Join,
                SpecifyShape, Fill, SumToShape, arange/zeros/ones.
7. gradients    the gradients of the elementwise ops and the reductions.

A function imports a later layer only where a graph it builds needs one (a gradient, a method of a
tensor variable such as x.sum()); each such import says so in a `# later layer:` comment.
tests/core/test_layering.py holds the code to this order.
"""

# (layer, its modules in reading order): the folder opkit/core/tensor/<layer>/ holds them.
LAYERS = (
    ("types", ("weak", "c_interface", "static_shape", "type", "variable", "constructors", "shape_checks")),
    ("scalars", ("scalar_ops", "scalar_math", "scalar_logic", "user_scalar")),
    ("elementwise", ("elemwise_c", "elemwise", "basic", "elemwise_math", "logic")),
    ("fused", ("fusion",)),
    ("reductions", ("reduction_c", "reduction_arg_c", "reduction", "reduce_fusion")),
    ("shapes", ("alloc", "fill", "shape_ops", "reshape", "specify_shape", "sum_to_shape",
                "subtensor", "inc_subtensor", "join",
                "creation")),
    ("gradients", ("elemwise_grad", "elemwise_math_grad", "reduce_grad")),
)
