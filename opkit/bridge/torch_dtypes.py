"""Map dtypes between opkit (numpy's names) and PyTorch, and tensors to numpy arrays and back without copies.

Every opkit dtype has a torch dtype of the same name (torch has uint16/32/64 since
2.3); a torch dtype numpy has no counterpart for (bfloat16, complex32, the
float8 kinds, quantized types) raises `DtypeNotMapped`, naming the dtype and the op.
"""

from __future__ import annotations

import numpy as np
import torch

from opkit.core.scalar_type import DTYPES

TO_TORCH = {name: getattr(torch, name) for name in DTYPES if isinstance(getattr(torch, name, None), torch.dtype)}
FROM_TORCH = {dtype: name for name, dtype in TO_TORCH.items()}


class DtypeNotMapped(TypeError):
    """A dtype, opkit's or PyTorch's, that has no counterpart on the other side."""


def to_torch_dtype(dtype, where) -> torch.dtype:
    """Return the torch dtype of the opkit (numpy) dtype `dtype` (DtypeNotMapped if it has none)."""
    found = TO_TORCH.get(str(dtype))
    if found is None:
        raise DtypeNotMapped(f"{where}: the opkit dtype {dtype} has no torch dtype; the torch bridge maps "
                             f"{', '.join(TO_TORCH)}")
    return found


def to_opkit_dtype(dtype, where) -> str:
    """Return the opkit (numpy) dtype name of the torch dtype `dtype` (DtypeNotMapped if it has none)."""
    found = FROM_TORCH.get(dtype)
    if found is None:
        raise DtypeNotMapped(f"{where}: the torch dtype {dtype} has no opkit (numpy) dtype; the torch bridge maps "
                             f"{', '.join(str(d) for d in FROM_TORCH)}")
    return found


def check_cpu(tensor, where):
    """Raise NotImplementedError unless `tensor` is on the CPU: opkit ops have no GPU kernels yet."""
    if tensor.device.type != "cpu":
        raise NotImplementedError(f"{where} has no GPU kernel: opkit runs it on CPU tensors only, and this input is "
                                  f"on {tensor.device}; move the inputs with .cpu() (GPU ops are not built yet)")


def as_array(tensor, where) -> np.ndarray:
    """Return a numpy array sharing `tensor`'s memory (strides kept): what opkit's compiled module reads."""
    if tensor.is_cpu:
        try:  # the common case in one call: torch refuses what it cannot share (below, each case said)
            return tensor.numpy()
        except (RuntimeError, TypeError):
            pass
    check_cpu(tensor, where)
    if tensor.dtype not in FROM_TORCH:
        to_opkit_dtype(tensor.dtype, where)  # raises, naming the dtype
    if tensor.requires_grad:
        tensor = tensor.detach()
    if tensor.is_conj() or tensor.is_neg():  # lazy conjugate/negative views: numpy cannot see those bits
        tensor = tensor.resolve_conj().resolve_neg()
    return tensor.numpy()


def as_tensor(array, inputs=(), copy_if_shared=False) -> torch.Tensor:
    """Return a torch tensor of `array` (an opkit output), sharing its memory where torch can.

    A C-contiguous, writable array is shared as it is; any other layout is copied into a
    contiguous one (the op's fake implementation promises contiguous outputs). With
    `copy_if_shared` (an op with a view_map), an output overlapping an input is copied:
    a torch custom op must not return an alias of its inputs.
    """
    if not isinstance(array, np.ndarray):
        array = np.asarray(array)
    if not (array.flags.c_contiguous and array.flags.writeable) or (
            copy_if_shared and any(np.may_share_memory(array, a) for a in inputs)):
        array = np.array(array, order="C", copy=True)
    return torch.from_numpy(array)
