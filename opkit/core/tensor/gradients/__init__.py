"""Layer 7 of 7 of opkit.core.tensor, gradients (its __init__ gives the order).

the gradients of the elementwise ops and the reductions.
"""
