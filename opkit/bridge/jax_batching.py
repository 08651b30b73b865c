"""A vmap rule for JAX's ``linear_call``, which the bridge's derivatives use (JAX ships none).

Without it ``vmap`` of a bridged op's ``jvp`` or ``grad`` (so ``jax.jacfwd``,
``jax.jacrev``) raises "Batching rule for 'linear_call' not implemented". The
rule batches the linear function and, for a later transpose, its transpose:
residual arguments keep their batching, linear ones are all batched (an
unbatched one is broadcast), every output is batched. It is registered only
where JAX has no rule of its own, through JAX's internal batching table (the
bridge is tested with the JAX version pyproject.toml names).
"""

from __future__ import annotations


def register():
    """Install the rule unless JAX already batches linear_call; return True if a rule is in place."""
    try:
        from jax._src.custom_derivatives import linear_call_p
        from jax._src.interpreters import batching
    except ImportError:  # another JAX layout: vmap of derivatives stays unsupported
        return False
    if linear_call_p in batching.fancy_primitive_batchers:
        return True
    batching.fancy_primitive_batchers[linear_call_p] = _linear_call_batcher
    return True


def _linear_call_batcher(axis_data, args, dims, *, callee, transpose_thunk, num_callee_consts, num_res):
    import jax.numpy as jnp
    from jax._src.custom_derivatives import linear_call_p
    from jax._src.interpreters import batching

    size = axis_data.size
    n_lead = num_callee_consts + num_res
    moved, in_batched = [], []
    for position, (value, dim) in enumerate(zip(args, dims)):
        if dim is not None:  # JAX marks an unbatched argument with None
            moved.append(jnp.moveaxis(value, dim, 0))
            in_batched.append(True)
        elif position >= n_lead:  # a linear argument: batched, so the transpose's outputs all are
            moved.append(jnp.broadcast_to(value, (size,) + tuple(jnp.shape(value))))
            in_batched.append(True)
        else:
            moved.append(value)
            in_batched.append(False)
    lead_batched = in_batched[:n_lead]
    res_batched = lead_batched[num_callee_consts:]
    batched_callee, _ = batching.batch_jaxpr(callee, axis_data, in_batched, instantiate=True)

    def batched_transpose_thunk():
        transpose, t_consts = transpose_thunk()
        n_cts = len(transpose.in_avals) - len(t_consts) - num_res
        batched, _ = batching.batch_jaxpr(transpose, axis_data, [False] * len(t_consts) + res_batched
                                          + [True] * n_cts, instantiate=True)
        return batched, t_consts

    outputs = linear_call_p.bind(*moved, callee=batched_callee, transpose_thunk=batched_transpose_thunk,
                                 num_callee_consts=num_callee_consts, num_res=num_res)
    return outputs, [0] * len(outputs)
