"""Layer 7 of 7 of opkit.core.tensor, gradients (its __init__ gives the order).

the gradients of the elementwise ops, the reductions, Dot and the shape ops that broadcast (Alloc, Fill,
DimShuffle, IncSubtensor). Each rule registers itself (opkit.core.gradient_registry) for its op class, whose
grad method looks it up; the registry loads this layer on a lookup that finds nothing.
"""
