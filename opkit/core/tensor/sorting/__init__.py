"""Layer 7 of 9 of opkit.core.tensor, sorting (its __init__ gives the order).

sort, argsort (Sort, Argsort and the gradient's TakeAlongAxis) and the scans cumsum, cumprod (CumOp), with C.
"""
