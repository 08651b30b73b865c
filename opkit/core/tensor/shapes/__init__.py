"""Layer 4 of 7 of opkit.core.tensor, shapes (its __init__ gives the order).

views and shape and index ops: Alloc, Cast, DimShuffle, Reshape, Subtensor, Join, SpecifyShape, Fill,
SumToShape, arange/zeros/ones. Below fused, the reductions and the gradients: they build Alloc, Cast and
DimShuffle.
"""
