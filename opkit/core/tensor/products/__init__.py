"""Layer 8 of 9 of opkit.core.tensor, products (its __init__ gives the order).

matmul (a batched Matmul beside Dot), outer, tensordot, batched_dot and trace.
"""
