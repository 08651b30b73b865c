"""Bridges from opkit to other graph libraries, each imported only when used.

``opkit.bridge.pytensor.as_pytensor_op(op)`` puts an opkit op into PyTensor
(and so PyMC) graphs; it needs the ``opkit-sdk[pytensor]`` extra.
``opkit.bridge.torch.as_torch_op(op)`` makes it a ``torch.library`` custom op (eager,
torch.compile, autograd); it needs the ``opkit-sdk[torch]`` extra.
``opkit.bridge.jax.as_jax_op(op)`` runs an opkit op under ``jax.jit`` (an XLA FFI
call to opkit's compiled handler), ``grad``, ``jvp`` and ``vmap``; it needs the
``opkit-sdk[jax]`` extra (see docs/bridge_jax.md).
"""
