"""pytensor.compile.ops: ``wrap_py`` (opkit's ``as_op``) and ``as_op``, which PyTensor deprecates in its favour."""

import functools
import warnings

from opkit.compile.ops import wrap_py


@functools.wraps(wrap_py)
def as_op(itypes, otypes, infer_shape=None):
    """PyTensor's deprecated spelling of ``wrap_py``: the same op, with PyTensor's FutureWarning."""
    warnings.warn("as_op is deprecated: use wrap_py", FutureWarning, stacklevel=2)
    return wrap_py(itypes, otypes, infer_shape)


__all__ = ["as_op", "wrap_py"]

# The built-in ops at PyTensor's path (opkit.compile.ops).
from opkit.compile.ops import DeepCopyOp, ViewOp, register_view_op_c_code  # noqa: E402

__all__ += ["DeepCopyOp", "ViewOp", "register_view_op_c_code"]
