"""GpuArrayType: n-dimensional arrays in GPU memory (CuPy arrays; numpy arrays under the interpreter).

On device "cuda" a value is a CuPy array; anything with ``__cuda_array_interface__`` or ``__dlpack__``
(torch, JAX) is taken without a copy. On device "cuda-interpret" GPU memory is host memory and values
are numpy arrays. The C of a GPU variable is an ``OpkitGpuArray*`` (opkit/templates/gpu/opkit_gpu.h):
the macros of opkit/templates/gpu/gpu_array_type.c.j2.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

from opkit.core import builtin_ops
from opkit.core.c_render import render
from opkit.core.graph import Constant, Variable
from opkit.core.tensor.shapes.fill import fill_like
from opkit.core.tensor.types.c_interface import c_dtype, c_typenum
from opkit.core.tensor.types.constructors import _maker as _tensor_maker
from opkit.core.tensor.types.operators import find
from opkit.core.tensor.types.static_shape import static_shape
from opkit.core.tensor.types.type import ArrayTypeNaming, TensorType, _plain_array
from opkit.core.type import CType
from opkit.gpu.device import interpreting
from opkit.gpu.runtime import as_cupy

HEADER_DIR = str(pathlib.Path(__file__).resolve().parents[1] / "templates" / "gpu")  # opkit_gpu.h, cuda_interpret.h

_TO_GPU_HINT = ("Hint: a numpy array is host memory. Declare the input as a tensor (opkit.tensor) and let "
                "device='cuda' place it (numpy in, numpy out), put opkit.gpu.to_gpu(x) in the graph, or pass "
                "cupy.asarray(value).")


def _describe(value):
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        return f"{type(value).__module__}.{type(value).__name__} with dtype {dtype}, shape {tuple(shape)}"
    return f"{type(value).__name__} {value!r:.60}"


class GpuArrayType(ArrayTypeNaming, CType):
    """Arrays of `dtype` in GPU memory with `len(shape)` dimensions; shape entries are None or ints."""

    LABEL = "GpuArrayType"

    def __init__(self, dtype, shape=(), name=None):
        self.dtype = str(np.dtype(dtype))
        self.shape = static_shape(shape, None, "GpuArrayType")
        self.name = name
        self.numpy_dtype = np.dtype(self.dtype)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def broadcastable(self):
        return tuple(s == 1 for s in self.shape)

    def clone(self, dtype=None, shape=None):
        return GpuArrayType(self.dtype if dtype is None else dtype, self.shape if shape is None else shape)

    @property
    def variable_type(self):
        return GpuArrayVariable

    @property
    def constant_type(self):
        return GpuArrayConstant

    def host_type(self):
        """Return the TensorType of this type's values once on the host."""
        return TensorType(self.dtype, self.shape)

    def filter(self, value, strict=False, allow_downcast=None):
        """Return `value` as a GPU array of this type (numpy arrays when interpreting), or raise TypeError."""
        if interpreting():
            data = self._filter_host(value, strict)
        else:
            data = self._filter_device(value, strict)
        if data.ndim != self.ndim:
            raise TypeError(f"expected {self.describe()}, got {_describe(value)} (wrong number of dimensions)")
        for axis, (want, got) in enumerate(zip(self.shape, data.shape)):
            if want is not None and want != got:
                raise TypeError(f"expected {self.describe()}, got shape {tuple(data.shape)} (axis {axis} must be "
                                f"{want})")
        return data

    def _cast(self, data, value, strict, asarray):
        if data.dtype == self.numpy_dtype:
            return data
        if not strict and np.can_cast(data.dtype, self.numpy_dtype, "safe"):
            return data.astype(self.numpy_dtype)
        raise TypeError(f"expected {self.describe()}, got {_describe(value)}: casting {data.dtype} to "
                        f"{self.dtype} {'is not done for a strict input' if strict else 'would lose information'}."
                        f"\nHint: convert it yourself ({asarray}(value, dtype='{self.dtype}')), or declare the "
                        f"input with dtype {data.dtype}.")

    def _filter_host(self, value, strict):
        """Interpret mode: GPU memory is host memory; values are plain numpy arrays the C code can read."""
        if not isinstance(value, np.ndarray):
            raise TypeError(f"expected {self.describe()}, got {_describe(value)}: under device='cuda-interpret' "
                            "GPU values are numpy arrays.\nHint: pass numpy.asarray(value).")
        data = value if type(value) is np.ndarray else _plain_array(value, self)  # np.ma, np.matrix: refused
        data = self._cast(data, value, strict, "numpy.asarray")
        if not data.dtype.isnative or not data.flags.aligned:
            data = np.array(data, dtype=self.numpy_dtype)
        if data.dtype.num != self.numpy_dtype.num:
            data = data.view(self.numpy_dtype)
        return data

    def _filter_device(self, value, strict):
        loaded = sys.modules.get("cupy")
        if loaded is not None and type(value) is loaded.ndarray:  # the common case, every call: no lookups
            return self._cast(value, value, strict, "cupy.asarray")
        if isinstance(value, np.ndarray) or np.isscalar(value) or isinstance(value, (list, tuple)):
            raise TypeError(f"expected {self.describe()} (GPU memory), got {_describe(value)}.\n{_TO_GPU_HINT}")
        if value is None or not (hasattr(value, "__cuda_array_interface__") or hasattr(value, "__dlpack__")):
            raise TypeError(f"expected {self.describe()} (GPU memory: a CuPy array, or an object with "
                            f"__cuda_array_interface__ or __dlpack__), got {_describe(value)}")
        try:
            data = as_cupy(value)
        except (TypeError, ValueError, BufferError) as exc:
            raise TypeError(f"expected {self.describe()}, got {_describe(value)}: CuPy cannot view it "
                            f"({exc})") from None
        return self._cast(data, value, strict, "cupy.asarray")

    def is_super(self, other):
        return (isinstance(other, GpuArrayType) and other.dtype == self.dtype and other.ndim == self.ndim
                and all(m is None or m == t for m, t in zip(self.shape, other.shape)))

    def in_same_class(self, other):
        return isinstance(other, GpuArrayType) and other.dtype == self.dtype and \
            other.broadcastable == self.broadcastable

    def describe(self):
        return f"{self} (ndim {self.ndim}, dtype {self.dtype})"

    def values_eq(self, a, b):
        a, b = to_numpy(a), to_numpy(b)
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.all(a == b))

    def values_eq_approx(self, a, b, rtol=None, atol=None):
        return self.host_type().values_eq_approx(to_numpy(a), to_numpy(b), rtol=rtol, atol=atol)

    def fill_like(self, variable, number, dtype):
        """Return `number` in `dtype` shaped like the GPU variable `variable` (a gradient's seed or zeros), on the GPU."""
        return _transfer("to_gpu")(fill_like(_transfer("to_host")(variable), number, dtype))

    def make_constant(self, value, name=None):
        return GpuArrayConstant(self, value, name=name)

    def __getstate__(self):
        return {"dtype": self.dtype, "shape": self.shape, "name": self.name}

    def __setstate__(self, state):
        self.__init__(state["dtype"], state["shape"], name=state["name"])

    # ---- C: an OpkitGpuArray* per variable (opkit/templates/gpu/gpu_array_type.c.j2) ----

    def c_declare(self, name, sub, check_input=True):
        return render("gpu/gpu_array_type.c.j2", "declare", name=name, ctype=c_dtype(self.dtype))

    def c_init(self, name, sub):
        return render("gpu/gpu_array_type.c.j2", "init", name=name)

    def c_extract(self, name, sub, check_input=True):
        return render("gpu/gpu_array_type.c.j2", "extract", name=name, ndim=self.ndim,
                      typenum=c_typenum(self.dtype), dtype=self.dtype, fail=sub["fail"])

    def c_sync(self, name, sub):
        return render("gpu/gpu_array_type.c.j2", "sync", name=name)

    def c_cleanup(self, name, sub):
        return render("gpu/gpu_array_type.c.j2", "cleanup", name=name)

    def c_element_type(self):
        return c_dtype(self.dtype)

    def c_headers(self, c_compiler=None):
        return ["<numpy/arrayobject.h>", "opkit_gpu.h"]

    def c_header_dirs(self, c_compiler=None):
        return [HEADER_DIR]

    def c_code_cache_version(self):
        return (1,)


def to_numpy(value):
    """Return a GPU value (a CuPy array, or a numpy array when interpreting) as a numpy array on the host."""
    if isinstance(value, np.ndarray):
        return value
    get = getattr(value, "get", None)
    if get is not None and hasattr(value, "__cuda_array_interface__"):
        return get()
    return np.asarray(value)


# to_gpu and to_host, registered by opkit.gpu.transfers when it is imported (it imports this module; opkit.gpu
# loads both whenever it hands out a GPU type or constructor).
_TRANSFERS: dict = {}


def _transfer(name):
    try:
        return _TRANSFERS[name]
    except KeyError:
        raise RuntimeError("operators of GPU variables need opkit.gpu.transfers: take GpuArrayType and the "
                           "constructors from opkit.gpu (or import opkit.gpu.transfers)") from None


class _GpuOperators:
    """x + y, x - y, x * y and x.sum() on GPU variables: the host op between transfers, which placement
    (device='cuda' or 'cuda-interpret') replaces by the op's GPU version where one is registered."""

    def _binary(self, other, name, reverse=False):
        to_host = _transfer("to_host")
        other = to_host(other) if isinstance(getattr(other, "type", None), GpuArrayType) else other
        left, right = (other, to_host(self)) if reverse else (to_host(self), other)
        return _transfer("to_gpu")(find(name)(left, right))

    def __add__(self, other):
        return self._binary(other, "add")

    def __radd__(self, other):
        return self._binary(other, "add", reverse=True)

    def __sub__(self, other):
        return self._binary(other, "sub")

    def __rsub__(self, other):
        return self._binary(other, "sub", reverse=True)

    def __mul__(self, other):
        return self._binary(other, "mul")

    def __rmul__(self, other):
        return self._binary(other, "mul", reverse=True)

    def sum(self, axis=None, keepdims=False, **kwargs):
        host = _transfer("to_host")(self)
        return _transfer("to_gpu")(host.sum(axis=axis, keepdims=keepdims, **kwargs))

    @property
    def shape(self):
        """The shape (a host vector of int64): shape inference answers it without running the graph."""
        return _transfer("to_host")(self).shape

    @property
    def ndim(self):
        return self.type.ndim

    @property
    def dtype(self):
        return self.type.dtype


class GpuArrayVariable(_GpuOperators, Variable):
    """A symbolic GPU array."""


class GpuArrayConstant(_GpuOperators, Constant):
    """A GPU array constant (its data kept as the device's array type)."""


def _maker(ndim, kind):
    return _tensor_maker(ndim, kind, GpuArrayType, "GPU array")


scalar = _maker(0, "scalar")
vector = _maker(1, "vector")
matrix = _maker(2, "matrix")
tensor3 = _maker(3, "tensor3")
tensor4 = _maker(4, "tensor4")

# Shape and Shape_i of a GPU value in C (the section files of opkit/gpu/ops): its lengths, read without its data.
_OPS_DIR = pathlib.Path(__file__).resolve().parent / "ops"
builtin_ops.register_shape_c_code(GpuArrayType, _OPS_DIR / "gpu_shape.c", version=(1,))
builtin_ops.register_shape_i_c_code(GpuArrayType, _OPS_DIR / "gpu_shape_i.c", _OPS_DIR / "gpu_shape_i_check.c",
                                    version=(1,))
