"""The GPU version of an elementwise expression: one generated CUDA kernel per fused program.

A `GpuElemwise` node computes the program of a FusedElemwise (or of one Elemwise) over GpuArrayType inputs.
Its kernel (opkit/templates/gpu_ops/elemwise.cu.j2) is a grid-stride loop over the output's elements with any
byte strides (negative ones too, zero on broadcast axes); its steps are the CPU loop's (program_statements),
so the GPU rounds as the CPU path and numpy do. What runs on the GPU (`gpu_program_ok`): bool, integers,
float32 and float64, every built-in scalar function but integer power (numpy raises on a negative exponent,
which a kernel cannot report) and a user's scalar ops. float16 stays on the host: CUDA's half arithmetic is
not numpy's (numpy computes each step in float32 and rounds to half), so no float16 node moves.
"""

from __future__ import annotations

import numpy as np

from opkit.core.c_source import SectionOp, render
from opkit.core.graph import Apply

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


def gpu_program_ok(program, input_dtypes):
    """Return True if every step of `program` (see fusion) has a GPU kernel computing numpy's result."""
    from opkit.core.tensor.scalars.scalar_ops import program_operand_dtypes
    from opkit.core.tensor.scalars.user_scalar import is_user_scalar_op

    if not all(str(np.dtype(d)) in GPU_DTYPES for d in input_dtypes):
        return False
    for (op, _, out_dtype), loop in zip(program, program_operand_dtypes(program, input_dtypes)):
        if is_user_scalar_op(op) or op.c_macro is None or not op.has_c(out_dtype, loop):
            return False
        if str(out_dtype) not in GPU_DTYPES or not all(str(d) in GPU_DTYPES for d in loop):
            return False
        if op.c_macro == "pow" and np.dtype(out_dtype).kind in "iu":
            return False
    return True


def gpu_input(value, op):
    """Return `value`, a GPU array variable, or raise TypeError naming `op`."""
    from opkit.gpu.transfers import GpuArrayType

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
        from opkit.core.tensor.elementwise.elemwise import broadcast_shape
        from opkit.gpu.transfers import GpuArrayType

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
        from opkit.core.tensor.elementwise.elemwise import broadcast_shape
        from opkit.core.tensor.scalars.scalar_ops import program_operand_dtypes

        xp = array_module(inputs)
        broadcast_shape([i.shape for i in inputs], f"the inputs of {self}")
        values = list(inputs)
        with np.errstate(all="ignore"):
            for (op, refs, out_dtype), loop in zip(self.program, program_operand_dtypes(
                    self.program, [v.type.dtype for v in node.inputs])):
                operands = [xp.asarray(values[r]).astype(d, copy=False) for r, d in zip(refs, loop)]
                values.append(xp.asarray(op.ufunc(*operands), dtype=out_dtype))
        output_storage[0][0] = xp.ascontiguousarray(values[-1])

    def infer_shape(self, node, input_shapes):
        from opkit.core.tensor.elementwise.elemwise import Elemwise

        return Elemwise.infer_shape(self, node, input_shapes)

    def grad(self, inputs, output_grads):
        """The gradient of the host expression this node stands for, moved to the GPU."""
        from opkit.core.gradient import Lop
        from opkit.gpu.transfers import to_gpu, to_host

        host = [to_host(i) for i in inputs]
        grads = Lop(self.expand(host), host, to_host(output_grads[0]))
        return [to_gpu(g) for g in grads]

    def expand(self, inputs):
        """The unfused host graph of Elemwise nodes computing this program on host `inputs`."""
        from opkit.core.tensor.elementwise.elemwise import Elemwise

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
        from opkit.core.tensor.types.c_interface import c_typenum

        out = node.outputs[0]
        return render(TEMPLATE, "host", name=name, inputs=list(inputs), out=outputs[0], nd=len(out.type.shape),
                      typenum=c_typenum(out.type.dtype), what=f"the inputs of {self}", fail=sub["fail"])

    def c_kernels(self, node, name):
        """The CUDA C++ of this node's kernel `APPLY_SPECIFIC(ew)` (named ew_<name>)."""
        from opkit.core.tensor.elementwise.elemwise_c import program_statements
        from opkit.core.tensor.types.c_interface import c_dtype

        dtypes = [v.type.dtype for v in node.inputs]
        scalar = [all(s == 1 for s in v.type.shape) for v in node.inputs]
        one = [True if len(v.type.shape) == 0 else f"opkit_one{k}" for k, v in enumerate(node.inputs)]
        steps = program_statements(self.program, dtypes, scalar, name, one)
        return render(TEMPLATE, "kernels", kernel="ew", in_types=[c_dtype(d) for d in dtypes],
                      out_type=c_dtype(node.outputs[0].type.dtype), steps=steps)

    def c_kernel_options(self, node):
        return list(KERNEL_OPTIONS)

    def c_code_cache_version(self):
        return (1,)

    def __str__(self):
        return "GpuElemwise{" + ",".join(str(step[0]) for step in self.program) + "}"


def _list(value):
    return [value] if isinstance(value, str) else list(value or ())
