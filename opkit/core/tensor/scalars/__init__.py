"""Layer 2 of 7 of opkit.core.tensor, scalars (its __init__ gives the order).

the scalar functions (add, exp, minimum, comparisons, cast): numpy's result, a C expression.
"""
