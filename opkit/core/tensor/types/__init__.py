"""Layer 1 of 7 of opkit.core.tensor, types (its __init__ gives the order).

TensorType and its C interface, TensorVariable and TensorConstant, the constructors (matrix, vector, ...),
Python scalars that adapt to the other operand (weak), and the shape checks (Assert, Depend) every later op
states about its inputs; operators: the layers' one upward edge (a tensor's operators build later ops).
"""
