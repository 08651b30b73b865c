"""PyTensor's JAX backend runs a bridged op through opkit's JAX bridge (``as_pytensor_op`` -> ``as_jax_op``).

`jax_funcify` of a `PyTensorOp` node returns a function of JAX arrays calling
``as_jax_op(op)``: under ``jax.jit`` the op's compiled C runs through opkit's XLA
FFI handler, and ``jax.grad`` differentiates it with the op's own JVP and VJP
graphs. So PyMC's JAX samplers (``pm.sample(nuts_sampler="numpyro")`` or
``"blackjax"``) run a model with a bridged op. Registered when PyTensor's JAX
dispatch is imported (opkit.bridge.pytensor loads this module then); needs JAX (``opkit-sdk[jax]``).
"""

from __future__ import annotations

from opkit.bridge.jax import as_jax_op


def register(bridged_op_class):
    """Register the JAX implementation of `bridged_op_class`'s nodes (opkit.bridge.pytensor's PyTensorOp) with
    PyTensor's JAX dispatch (imported by now)."""
    from pytensor.link.jax.dispatch.basic import jax_funcify

    jax_funcify.register(bridged_op_class)(funcify)


def funcify(op, node=None, **kwargs):
    """Return a function of JAX arrays computing every output of the bridged node (a tuple where several)."""
    from pytensor.tensor.type import TensorType

    for kind, variables in (("input", node.inputs), ("output", node.outputs)):
        for i, v in enumerate(variables):
            if not isinstance(v.type, TensorType):
                raise NotImplementedError(f"PyTensor's JAX backend cannot run {op}: its {kind} {i} is of type "
                                          f"{v.type}, and opkit's JAX bridge passes only tensors")
    jax_op = as_jax_op(op.opkit_op)
    single = len(node.outputs) == 1

    def opkit_op(*inputs):
        outputs = jax_op._call(*jax_op._arrays(inputs))  # every output, whatever the op's default_output
        return outputs[0] if single else tuple(outputs)

    return opkit_op
