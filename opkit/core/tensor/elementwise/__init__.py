"""Layer 3 of 7 of opkit.core.tensor, elementwise (its __init__ gives the order).

Elemwise (a scalar function over broadcast arrays), its C loop, and the elementwise ops of opkit.tensor (add,
exp, abs, lt, ...) with Dot.
"""
