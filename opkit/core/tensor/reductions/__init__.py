"""Layer 6 of 7 of opkit.core.tensor, reductions (its __init__ gives the order).

Sum, Prod, Max, Min, Mean, Argmax, Argmin, their C, and a reduction fused with its input.
"""
