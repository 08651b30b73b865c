"""Layer 5 of 7 of opkit.core.tensor, fused (its __init__ gives the order).

trees of elementwise nodes fused into one loop.
"""
