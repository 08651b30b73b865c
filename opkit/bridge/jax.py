"""Use opkit ops in JAX: ``as_jax_op(op)`` gives a function usable under ``jax.jit``, ``grad``, ``jvp``, ``vmap``.

Under ``jit`` the op runs through an XLA FFI custom call to opkit's handler
(templates/jax_ffi.cpp, see opkit.bridge.jax_ffi), which wraps XLA's buffers
as numpy arrays without a copy and calls the op's compiled module: no Python
function runs. The op's C code gets XLA's output buffers as its outputs and
writes into them where it reuses its outputs; a result elsewhere is copied in.
Output shapes come from the op's ``infer_shape`` on the static input shapes.

Derivatives: a ``jax.custom_jvp`` whose tangent is a ``linear_call`` of the
op's JVP graph (from ``R_op``; without one, the transpose of its ``L_op``),
with the op's VJP graph (from ``grad``/``L_op``) as its transpose, so both
forward (``jvp``) and reverse (``grad``) modes work; each graph is compiled by
opkit and called through the same handler. Float inputs and outputs only
(complex ones are refused); integer and bool ones have no tangent.

``vmap``: an ``Elemwise`` op runs once on the batched arrays (its own
broadcasting; unbatched inputs broadcast to the batch first); any other op
runs once per batch element (``vmap_method="sequential"``). ``vmap`` of
``grad`` or ``jvp`` (so ``jacfwd``/``jacrev``) works through a batching rule
for ``linear_call`` (opkit.bridge.jax_batching); second derivatives do not.
See docs/bridge_jax.md.

Needs the ``opkit-sdk[jax]`` extra; only the CPU platform is registered.
"""

from __future__ import annotations

try:
    import jax
except ImportError as exc:  # pragma: no cover - exercised in a subprocess (tests/bridge/test_bridge_jax.py)
    raise ImportError("opkit.bridge.jax needs JAX: pip install 'opkit-sdk[jax]'") from exc
import jax.numpy as jnp
import numpy as np
from jax.custom_batching import custom_vmap
from jax.custom_derivatives import SymbolicZero, linear_call

from opkit.bridge.jax_batching import register as _register_batching
from opkit.bridge.jax_dtypes import DtypeNotMapped, jax_dtype, opkit_dtype
from opkit.bridge.jax_ffi import graph_target
from opkit.bridge.jax_graphs import compile_graph, jvp_graph, node_outputs, output_shapes, tensor_types, vjp_graph
from opkit.bridge.one_per_op import one_per_op
from opkit.bridge.weak_args import number_arrays, representative
from opkit.core.code_identity import python_identity
from opkit.core.op import Op
from opkit.core.tensor.elementwise.elemwise import Elemwise
from opkit.core.tensor.types.weak import is_weak_number
from opkit.link.node_runner import node_runner

__all__ = ["as_jax_op", "JaxOp", "DtypeNotMapped"]

_bridged = {}  # (op, its Python code identity) -> JaxOp
_register_batching()  # vmap of the derivatives' linear_call (jacfwd, jacrev, vmap of grad)


def as_jax_op(op: Op) -> JaxOp:
    """Return a JAX function computing the opkit op `op` (one per op: equal ops give the same one).

    Call it on JAX arrays: ``as_jax_op(VectorTimesVector())(x, y)``; several outputs come back as a list
    (an op with ``default_output`` gives that output, as calling the op does).
    """
    return one_per_op(_bridged, op, JaxOp, "as_jax_op")


def _first_derivative_only(call, op):
    """Return `call` (an FFI call of a derivative graph) as a custom_jvp whose own derivative raises a clear error,
    instead of JAX's "The FFI call to 'opkit_graph_4' cannot be differentiated"."""
    wrapped = jax.custom_jvp(call)

    def refuse(primals, tangents):
        raise NotImplementedError(
            f"as_jax_op({op}): a second derivative (jax.grad(jax.grad(f)), jax.hessian(f), jax.jacfwd(jax.grad(f)), "
            f"...) is not supported: opkit's JAX bridge differentiates an op once (jax.grad, jax.vjp, jax.jvp, "
            f"jax.jacfwd, jax.jacrev, under jax.jit and jax.vmap); take higher derivatives in opkit "
            f"(opkit.grad of opkit.grad, then opkit.function)")

    wrapped.defjvp(refuse)
    return wrapped


class JaxOp:
    """A JAX function running the opkit op `op` (made by `as_jax_op`)."""

    def __init__(self, op):
        self.op = op
        try:
            hash(op)
            self._key = (op, python_identity(op))
        except TypeError:
            self._key = ("unhashable", id(op))  # the compiled graphs hold the op: its id stays its own
        primal = self._primal
        if isinstance(op, Elemwise):
            primal = custom_vmap(self._primal)
            primal.def_vmap(self._elementwise_vmap)
        self._run = primal
        self._call = jax.custom_jvp(primal)
        self._call.defjvp(self._jvp, symbolic_zeros=True)

    def __repr__(self):
        return f"as_jax_op({self.op})"

    def __call__(self, *args):
        outputs = self._call(*self._arrays(args))
        chosen = getattr(self.op, "default_output", None)
        if chosen is not None:
            return outputs[chosen]
        return outputs[0] if len(outputs) == 1 else list(outputs)

    # ---- the op's node ----

    def _arrays(self, args):
        """Return the call's arguments as JAX arrays, Python numbers as opkit's weak constants of them.

        A Python number becomes the constant the op's make_node makes of it (opkit's weak rules:
        float32 beside a float32 array, whatever jax_enable_x64 says), and a weak JAX value that
        jit traces (a Python number passed to a jitted function) takes that constant's dtype.
        """
        operands, weak = [], {}
        for i, a in enumerate(args):
            if is_weak_number(a):
                operands.append(a)
                continue
            a = jnp.asarray(a)
            if np.ndim(a) == 0 and getattr(a, "weak_type", False) and np.dtype(a.dtype).kind in "biufc":
                weak[i] = a
                operands.append(representative(np.dtype(a.dtype).kind))
            else:
                operands.append((opkit_dtype(a.dtype, f"input {i} of {self.op}"), np.ndim(a)))
        numbers = [i for i, o in enumerate(operands) if is_weak_number(o)]
        if not numbers:
            return [jnp.asarray(a) for a in args]
        constants = number_arrays(self.op, operands, repr(self))
        return [(weak[i].astype(constants[i].dtype) if i in weak else jnp.asarray(constants[i], constants[i].dtype))
                if i in constants else jnp.asarray(a) for i, a in enumerate(args)]

    def _signature(self, args):
        return tuple((opkit_dtype(a.dtype, f"input {i} of {self.op}"), np.ndim(a)) for i, a in enumerate(args))

    def _primal(self, *args):
        signature = self._signature(args)
        _, outs = node_outputs(self.op, signature)
        shapes = output_shapes(self.op, signature, [tuple(np.shape(a)) for a in args])
        specs = [jax.ShapeDtypeStruct(shape, self._jax_dtype(o.type.dtype, f"output {j} of {self.op}"))
                 for j, (o, shape) in enumerate(zip(outs, shapes))]
        return tuple(self._ffi(("node", signature), lambda: self._node_runner(signature), str(self.op), args, specs))

    def _node_runner(self, signature):
        """Return (runner, takes_outputs) of the op's node from link's one node runner: its module, which also
        takes XLA's output buffers, or (no compiler, no C code, ...) its function, which falls back as link does."""
        return node_runner(self.op, tensor_types(signature), preallocated=True, trusted=True,
                           name=f"opkit.bridge.jax {self.op}")

    def _elementwise_vmap(self, axis_size, in_batched, *args):
        # Every input gets the batch axis first, after numpy's alignment of the example's axes on the right
        # (an example of rank 1 beside one of rank 2 gets a length-1 axis before its own); an unbatched input
        # gets a length-1 batch axis, which opkit's Elemwise broadcasts: the batch is computed in one call.
        ranks = [np.ndim(a) - 1 if b else np.ndim(a) for a, b in zip(args, in_batched)]
        rank = max(ranks, default=0)
        batched = [jnp.reshape(a, (axis_size if b else 1,) + (1,) * (rank - r) + tuple(np.shape(a))[1 if b else 0:])
                   for a, b, r in zip(args, in_batched, ranks)]
        outputs = self._primal(*batched)
        return outputs, (True,) * len(outputs)

    def _ffi(self, key, make_function, label, args, specs):
        name, attributes = graph_target((self._key,) + key, make_function, label)
        call = jax.ffi.ffi_call(name, specs, vmap_method="sequential")
        if key[0] in ("jvp", "vjp"):  # a derivative's graph: differentiating it again is refused by name
            return _first_derivative_only(lambda *a: call(*a, **attributes), self.op)(*args)
        return call(*args, **attributes)

    @staticmethod
    def _jax_dtype(dtype, where):
        return jax_dtype(dtype, where, jax.config.jax_enable_x64)

    # ---- derivatives: JVP from R_op, its transpose from L_op ----

    def _jvp(self, primals, tangents):
        signature = self._signature(primals)
        _, outs = node_outputs(self.op, signature)
        dtypes = [d for d, _ in signature] + [o.type.dtype for o in outs]
        if any(np.dtype(d).kind == "c" for d in dtypes):
            raise NotImplementedError(f"{self.op} has complex inputs or outputs; opkit's JAX bridge does not "
                                      "differentiate complex functions (JAX and opkit differ in their conventions)")
        # a zero tangent (an input JAX does not differentiate) is left out: a linear argument must be unknown
        # when JAX transposes the tangent for grad, and a known zero is not
        wrt = tuple(i for i, (d, _) in enumerate(signature)
                    if np.dtype(d).kind == "f" and not isinstance(tangents[i], SymbolicZero))
        out_positions = tuple(j for j, o in enumerate(outs) if np.dtype(o.type.dtype).kind == "f")
        primals_out = _first_derivative_only(self._run, self.op)(*primals)  # not differentiated again
        tangents_out = [np.zeros(np.shape(p), dtype=jax.dtypes.float0) for p in primals_out]
        if out_positions:
            if wrt:
                linear = linear_call(self._tangent_fn(signature, wrt, out_positions, primals_out),
                                     self._cotangent_fn(signature, wrt, out_positions),
                                     tuple(primals), tuple(tangents[i] for i in wrt))
            else:
                linear = [jnp.zeros_like(primals_out[j]) for j in out_positions]
            for j, tangent in zip(out_positions, linear):
                tangents_out[j] = tangent.astype(primals_out[j].dtype)
        return primals_out, tuple(tangents_out)

    def _tangent_fn(self, signature, wrt, out_positions, primals_out):
        label = f"the JVP of {self.op}"

        def tangent(primals, tangents):
            inputs, outputs, givens = jvp_graph(self.op, signature, wrt, out_positions)
            specs = [jax.ShapeDtypeStruct(np.shape(primals_out[j]), self._jax_dtype(o.type.dtype, label))
                     for j, o in zip(out_positions, outputs)]
            args = list(primals) + [t.astype(primals[i].dtype) for i, t in zip(wrt, tangents)]
            results = self._ffi(("jvp", signature, wrt, out_positions),
                                lambda: compile_graph(inputs, outputs, f"opkit.bridge.jax JVP of {self.op}", givens),
                                label, args, specs)
            return tuple(r.astype(primals_out[j].dtype) for j, r in zip(out_positions, results))

        return tangent

    def _cotangent_fn(self, signature, wrt, out_positions):
        label = f"the VJP of {self.op}"

        def cotangent(primals, cotangents):
            inputs, outputs = vjp_graph(self.op, signature, wrt, out_positions)
            specs = [jax.ShapeDtypeStruct(np.shape(primals[i]), self._jax_dtype(o.type.dtype, label))
                     for i, o in zip(wrt, outputs)]
            args = list(primals) + list(cotangents)
            results = self._ffi(("vjp", signature, wrt, out_positions),
                                lambda: compile_graph(inputs, outputs, f"opkit.bridge.jax VJP of {self.op}"),
                                label, args, specs)
            return tuple(r.astype(primals[i].dtype) for i, r in zip(wrt, results))

        return cotangent
