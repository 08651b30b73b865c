"""The GPU version of an elementwise expression: one generated CUDA kernel per fused program.

A `GpuElemwise` node computes the program of a FusedElemwise (or of one Elemwise) over GpuArrayType inputs.
Its kernel (opkit/templates/gpu_ops/elemwise.cu.j2) is a grid-stride loop over the output's elements with any
byte strides (negative ones too, zero on broadcast axes); its steps are the CPU loop's (program_statements),
so the GPU rounds as the CPU path and numpy do. What runs on the GPU (`gpu_program_ok`): bool, integers,
float32 and float64, every built-in scalar function but integer power (numpy raises on a negative exponent,
which a kernel cannot report) and a user's scalar ops. float16 as numpy computes it (HALF_OPS: each step in
float32, rounded to half, numpy's conversion bit for bit; not CUDA's __half arithmetic); a float16 step of
another function keeps the node on the host.
"""

from __future__ import annotations

import numpy as np

from opkit.core.c_source import SectionOp, render
from opkit.core.gradient import Lop
from opkit.core.graph import Apply
from opkit.core.tensor.elementwise.elemwise import Elemwise, broadcast_shape
from opkit.core.tensor.elementwise.elemwise_c import program_statements
from opkit.core.tensor.scalars.scalar_ops import ScalarOp, program_operand_dtypes
from opkit.core.tensor.scalars.user_scalar import is_user_scalar_op
from opkit.core.tensor.types.c_interface import c_dtype, c_typenum
from opkit.gpu.transfers import GpuArrayType, to_gpu, to_host

TEMPLATE = "gpu_ops/elemwise.cu.j2"
MAX_NDIM = 8  # the axes a kernel walks (OPKIT_GPU_EW_MAXDIMS); the host merges the axes it can
# A kernel's parameters (a pointer and a row of strides per array) stay well within CUDA's 4 KB: a program with
# more inputs stays on the host.
MAX_INPUTS = 40
GPU_DTYPES = frozenset(["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                        "float32", "float64"])
# NVRTC must not contract a multiply and an add into one rounding (numpy rounds every operation): the CPU
# loops' -ffp-contract=off.
KERNEL_OPTIONS = ("--fmad=false",)


# The functions whose float16 result numpy computes in float32 and rounds to half once, so that a kernel doing
# the same gives numpy's bits (float32 holds every half's sum, product, quotient and root correctly rounded
# before the one rounding to half). Others (transcendental functions, maximum/minimum/clip, whose half loops
# treat ties and NaN their own way, casts) leave a float16 node on the host.
HALF_OPS = frozenset(["add", "sub", "mul", "true_div", "neg", "sqr", "sqrt", "abs", "floor", "ceil",
                      "lt", "gt", "le", "ge", "eq", "neq", "switch"])


# The built-in functions whose device side scalar_device.cu.j2 writes; the others (the elementary functions
# beyond these and the special functions of issue 48, scalar_elementary and scalar_special) keep their node on the host.
DEVICE_OPS = frozenset(["add", "sub", "mul", "true_div", "neg", "exp", "log", "sqr", "sqrt", "maximum", "pow",
                        "abs", "sign", "tanh", "sin", "cos", "log1p", "expm1", "sigmoid", "softplus", "floor", "ceil",
                        "round", "minimum", "clip", "int_div", "mod", "lt", "gt", "le", "ge", "eq", "neq", "and_",
                        "or_", "xor", "invert", "switch", "cast", "ge_mask"])


def _single(dtype):
    return "float32" if str(dtype) == "float16" else str(dtype)


def gpu_program_ok(program, input_dtypes):
    """Return True if every step of `program` (see fusion) has a GPU kernel computing numpy's result."""
    if not all(str(np.dtype(d)) in GPU_DTYPES | {"float16"} for d in input_dtypes):
        return False
    for (op, _, out_dtype), loop in zip(program, program_operand_dtypes(program, input_dtypes)):
        half = "float16" in (str(out_dtype), *map(str, loop))
        if is_user_scalar_op(op) or op.c_macro not in DEVICE_OPS or (half and op.c_macro not in HALF_OPS):
            return False
        if not op.has_c(_single(out_dtype), [_single(d) for d in loop]):
            return False
        if _single(out_dtype) not in GPU_DTYPES or not all(_single(d) in GPU_DTYPES for d in loop):
            return False
        if op.c_macro == "pow" and np.dtype(out_dtype).kind in "iu":
            return False
    return True


# Rounds a float32 to the nearest float16 and back (scalar_device.cu.j2): after each float16 step.
ROUND_HALF = ScalarOp("round_half", 1, None, c_expr="opkit_round_half({0})", c_kinds="f")


def single_program(program, n_inputs):
    """Return `program` computing float16 steps in float32, each followed by its rounding to half (ROUND_HALF)."""
    where = list(range(n_inputs))  # the ref of each original value in the new program
    steps = []
    for op, refs, out_dtype in program:
        steps.append((op, tuple(where[r] for r in refs), _single(out_dtype)))
        if str(out_dtype) == "float16":
            steps.append((ROUND_HALF, (n_inputs + len(steps) - 1,), "float32"))
        where.append(n_inputs + len(steps) - 1)
    return tuple(steps)


def gpu_input(value, op):
    """Return `value`, a GPU array variable, or raise TypeError naming `op`."""
    if not isinstance(getattr(value, "type", None), GpuArrayType):
        raise TypeError(f"{op} takes GPU arrays (GpuArrayType: move a host value with opkit.gpu.to_gpu), "
                        f"got {value!r} of type {getattr(value, 'type', type(value).__name__)}")
    return value


def array_module(values):
    """numpy, or cupy when one of `values` is a CuPy array (device="cuda")."""
    for v in values:
        if type(v).__module__.split(".")[0] == "cupy":
            import cupy

            return cupy
    return np


class GpuElemwise(SectionOp):
    """An elementwise `program` (steps (scalar_op, refs, out_dtype), see fusion) of `n_inputs` GPU arrays."""

    section_files = ("../../core/tensor/elementwise/broadcast.c", "gpu_walk.c")

    __props__ = ("program", "n_inputs")

    def __init__(self, program, n_inputs):
        self.program = tuple((op, tuple(refs), str(dtype)) for op, refs, dtype in program)
        self.n_inputs = int(n_inputs)

    def make_node(self, *inputs):
        if len(inputs) != self.n_inputs:
            raise TypeError(f"{self} takes {self.n_inputs} inputs, got {len(inputs)}")
        inputs = [gpu_input(i, self) for i in inputs]
        if not gpu_program_ok(self.program, [i.type.dtype for i in inputs]):
            raise TypeError(f"{self} has no GPU kernel for inputs of dtype "
                            f"{', '.join(i.type.dtype for i in inputs)}")
        if len(inputs) > MAX_INPUTS:
            raise TypeError(f"{self}: a GPU elementwise kernel takes at most {MAX_INPUTS} inputs, got {len(inputs)}")
        shape = broadcast_shape([i.type.shape for i in inputs], f"the inputs of {self}")
        if len(shape) > MAX_NDIM:
            raise TypeError(f"{self}: a GPU elementwise kernel walks at most {MAX_NDIM} axes, the output has "
                            f"{len(shape)}")
        return Apply(self, inputs, [GpuArrayType(self.program[-1][2], shape)()])

    def perform(self, node, inputs, output_storage):
        xp = array_module(inputs)
        if xp is not np:  # the reference is numpy's (some scalar functions are numpy code, not ufuncs): on the host
            result = [None]
            self.perform(node, [xp.asnumpy(v) for v in inputs], [result])
            output_storage[0][0] = xp.asarray(result[0])
            return
        broadcast_shape([i.shape for i in inputs], f"the inputs of {self}")
        values = list(inputs)
        with np.errstate(all="ignore"):
            for (op, refs, out_dtype), loop in zip(self.program, program_operand_dtypes(
                    self.program, [v.type.dtype for v in node.inputs])):
                operands = [xp.asarray(values[r]).astype(d, copy=False) for r, d in zip(refs, loop)]
                values.append(xp.asarray(op.ufunc(*operands), dtype=out_dtype))
        output_storage[0][0] = xp.ascontiguousarray(values[-1])

    def infer_shape(self, node, input_shapes):
        return Elemwise.infer_shape(self, node, input_shapes)

    def grad(self, inputs, output_grads):
        """The gradient of the host expression this node stands for, moved to the GPU."""
        host = [to_host(i) for i in inputs]
        grads = Lop(self.expand(host), host, to_host(output_grads[0]))
        return [to_gpu(g) for g in grads]

    def expand(self, inputs):
        """The unfused host graph of Elemwise nodes computing this program on host `inputs`."""
        values = list(inputs)
        for op, refs, _ in self.program:
            values.append(Elemwise(op)(*[values[r] for r in refs]))
        return values[-1]

    # ---- C: host code (the node's code) and kernels (NVRTC, or the interpreter) ----

    def has_c_code(self, node):
        return True

    def c_support_code(self):
        return [render(TEMPLATE, "indexer"), *_list(super().c_support_code())]

    def c_code(self, node, name, inputs, outputs, sub):
        out = node.outputs[0]
        return render(TEMPLATE, "host", name=name, inputs=list(inputs), out=outputs[0], nd=len(out.type.shape),
                      typenum=c_typenum(out.type.dtype), what=f"the inputs of {self}", fail=sub["fail"])

    def c_kernels(self, node, name):
        """The CUDA C++ of this node's kernel `APPLY_SPECIFIC(ew)` (named ew_<name>)."""
        dtypes = [str(v.type.dtype) for v in node.inputs]
        scalar = [all(s == 1 for s in v.type.shape) for v in node.inputs]
        one = [True if len(v.type.shape) == 0 else f"opkit_one{k}" for k, v in enumerate(node.inputs)]
        program = single_program(self.program, len(dtypes))
        steps = program_statements(program, [_single(d) for d in dtypes], scalar, name, one)
        out = str(node.outputs[0].type.dtype)
        return render(TEMPLATE, "kernels", kernel="ew", in_types=[c_dtype(_single(d)) for d in dtypes],
                      out_type=c_dtype(_single(out)), steps=steps, half_in=[d == "float16" for d in dtypes],
                      half_out=out == "float16")

    def c_kernel_options(self, node):
        return list(KERNEL_OPTIONS)

    def c_code_cache_version(self):
        return (2,)

    def __str__(self):
        return "GpuElemwise{" + ",".join(str(step[0]) for step in self.program) + "}"


def _list(value):
    return [value] if isinstance(value, str) else list(value or ())
