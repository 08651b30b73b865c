"""opkit.gpu's types, constructors and transfers: what a GPU value is, the errors that say why one is not,
and to_gpu/to_host with their gradients (run through the interpreter here, on a GPU where there is one)."""

import subprocess
import sys

import numpy as np
import pytest

import opkit
import opkit.gpu as og
import opkit.tensor as ot
from opkit.gpu import GpuArrayType, to_gpu, to_host
from opkit.gpu.device import using_device
from opkit.testing import verify_grad

from tests.helpers.gpu import device, needs_gpu, on_device, to_numpy  # noqa: F401 (fixtures)
from tests.helpers.requires import has_cupy, needs_cupy, variants

CUPY_OR_NOT = variants("CuPy", has_cupy(), needs_cupy)
NO_DEVICE = {True: "CuPy finds no CUDA device", False: "device='cuda' needs CuPy, which is not installed"}

INTERPRET = opkit.Mode(device="cuda-interpret")
# The gradient tests' graphs on the Python linker (each GPU op's perform, the placement and rewrites of INTERPRET): the
# kernels of their ops (elementwise, GpuAlloc) run compiled in test_builtin_gpu_ops.py and test_gpu_gradients.py
INTERPRET_PY = opkit.Mode(device="cuda-interpret", linker="py")


def test_import_opkit_gpu_imports_no_cupy():
    code = ("import sys, opkit, opkit.tensor, opkit.gpu as og; og.vector('x'); og.GpuArrayType('float32', (None,));"
            "x = og.matrix('x', dtype='int32'); og.to_host(x);"
            "assert 'cupy' not in sys.modules, sorted(m for m in sys.modules if 'cupy' in m)")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("kind, ndim", [("scalar", 0), ("vector", 1), ("matrix", 2), ("tensor3", 3), ("tensor4", 4)])
def test_constructors(kind, ndim):
    x = getattr(og, kind)("x", dtype="float32")
    assert x.name == "x" and x.type == GpuArrayType("float32", (None,) * ndim)
    assert x.ndim == ndim and x.dtype == "float32"
    with opkit.config.change_flags(floatX="float32"):
        assert getattr(og, kind)().type.dtype == "float32"
    shaped = getattr(og, kind)("s", dtype="int32", shape=(3,) * ndim)
    assert shaped.type.shape == (3,) * ndim


def test_constructor_shape_errors():
    with pytest.raises(ValueError, match=r"vector: shape \(2, 3\) has 2 entries but a vector has 1 dimension"):
        og.vector("x", shape=(2, 3))
    with pytest.raises(ValueError, match="lengths cannot be negative"):
        GpuArrayType("float64", (-1,))


def test_type_equality_str_and_pickle():
    import pickle

    t = GpuArrayType("float64", (None, 3))
    assert t == GpuArrayType(np.float64, [None, 3]) and hash(t) == hash(GpuArrayType("float64", (None, 3)))
    assert t != GpuArrayType("float32", (None, 3)) and t != ot.TensorType("float64", (None, 3))
    assert str(t) == "GpuArrayType(float64, shape=(None, 3))"
    assert str(GpuArrayType("int32", (None,))) == "GpuArrayType(int32, vector)"
    assert pickle.loads(pickle.dumps(t)) == t
    assert t.is_super(GpuArrayType("float64", (2, 3))) and not GpuArrayType("float64", (2, 3)).is_super(t)


def test_interpret_filter_takes_numpy_arrays():
    t = GpuArrayType("float64", (None,))
    with using_device("cuda-interpret"):
        a = np.arange(3.0)
        assert t.filter(a) is a
        assert t.filter(np.arange(3, dtype="int32")).dtype == np.float64  # a safe cast
        swapped = t.filter(np.arange(3.0).astype(">f8"))
        assert swapped.dtype.isnative and list(swapped) == [0.0, 1.0, 2.0]
        with pytest.raises(TypeError, match=r"casting float64 to float32 would lose information"):
            GpuArrayType("float32", (None,)).filter(a)
        with pytest.raises(TypeError, match=r"casting int32 to float64 is not done for a strict input"):
            t.filter(np.arange(3, dtype="int32"), strict=True)
        with pytest.raises(TypeError, match=r"under device='cuda-interpret' GPU values are numpy arrays"):
            t.filter([1.0, 2.0])
        with pytest.raises(TypeError, match=r"wrong number of dimensions"):
            t.filter(np.zeros((2, 2)))
        with pytest.raises(TypeError, match=r"numpy.ma.MaskedArray.*would drop its mask"):
            t.filter(np.ma.masked_array([1.0, 2.0], mask=[True, False]))
        with pytest.raises(TypeError, match=r"axis 0 must be 4"):
            GpuArrayType("float64", (4,)).filter(a)


def test_cuda_filter_refuses_numpy_pointing_at_to_gpu():
    t = GpuArrayType("float32", (None,))
    with using_device("cuda"):
        for value in (np.zeros(3, dtype="float32"), [1.0], 2.0):
            with pytest.raises(TypeError, match=r"GPU memory\), got .*\nHint: a numpy array is host memory.*"
                                                r"opkit.gpu.to_gpu\(x\)"):
                t.filter(value)
        with pytest.raises(TypeError, match=r"a CuPy array, or an object with __cuda_array_interface__ or "
                                            r"__dlpack__\), got object"):
            t.filter(object())


@pytest.mark.parametrize("cupy", CUPY_OR_NOT)
def test_function_on_cuda_without_a_device_says_so(cupy):
    if og.has_device():
        pytest.skip("a CUDA device is here")
    x = ot.dvector("x")
    with pytest.raises(og.NoDeviceError, match=rf"device='cuda': {NO_DEVICE[cupy]} .*\n"
                                               r"Hint: .*opkit-sdk\[cuda\].*device='cuda-interpret'"):
        opkit.function([x], to_host(to_gpu(x)), mode=opkit.Mode(device="cuda"))


def test_device_names_are_checked():
    with pytest.raises(ValueError, match=r"Mode\(device\)='gpu' is not one of 'cpu', 'cuda', 'cuda-interpret'"):
        opkit.Mode(device="gpu")
    with pytest.raises(ValueError, match=r"opkit flag device='tpu' is not one of 'cpu', 'cuda', 'cuda-interpret'"):
        opkit.config.device = "tpu"
    assert opkit.Mode(device="cuda-interpret").device == "cuda-interpret"
    assert "device='cuda-interpret'" in repr(opkit.Mode(device="cuda-interpret"))
    assert opkit.Mode().excluding("merge").device is None
    assert opkit.Mode(device="cuda-interpret").excluding("merge").device == "cuda-interpret"
    assert opkit.Mode(linker="py").with_device("cuda").device == "cuda"
    assert opkit.DebugMode(device="cuda-interpret").device == "cuda-interpret"
    assert opkit.Mode().resolved_device() == opkit.config.device
    with opkit.config.change_flags(device="cuda-interpret"):
        assert opkit.Mode().resolved_device() == "cuda-interpret"
        assert opkit.Mode(device="cpu").resolved_device() == "cpu"


def test_opkit_flags_device_reaches_a_fresh_process():
    code = ("import opkit, opkit.tensor as ot, numpy as np; from opkit.gpu import to_gpu, to_host;"
            "x = ot.dvector('x'); f = opkit.function([x], to_host(to_gpu(x) * 2));"
            "assert opkit.config.device == 'cuda-interpret'; print(f(np.arange(3.0)).tolist())")
    env = dict(__import__("os").environ, OPKIT_FLAGS="device=cuda-interpret")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env)
    assert out.stdout.strip() == "[0.0, 2.0, 4.0]"


def test_transfers_round_trip(device):
    x = ot.fmatrix("x")
    g = to_gpu(x)
    assert isinstance(g.type, GpuArrayType) and g.type.dtype == "float32" and g.type.ndim == 2
    assert to_gpu(g) is g and to_host(x) is x
    f = opkit.function([x], [g, to_host(g)], mode=opkit.Mode(device=device))
    value = np.arange(6, dtype="float32").reshape(2, 3)
    on_gpu, back = f(value)
    assert type(back) is np.ndarray and np.array_equal(back, value) and back.dtype == np.float32
    assert np.array_equal(to_numpy(on_gpu), value)
    if device == "cuda":
        import cupy

        assert isinstance(on_gpu, cupy.ndarray)
    else:
        assert not np.shares_memory(on_gpu, value) and not np.shares_memory(back, on_gpu)  # copies, as on a GPU


def test_gpu_inputs_and_outputs(device):
    x = og.vector("x", dtype="float64")
    f = opkit.function([x], [to_host(x), x * 2], mode=opkit.Mode(device=device))
    value = on_device(device, np.arange(4.0))
    host, twice = f(value)
    assert type(host) is np.ndarray and np.array_equal(host, np.arange(4.0))
    assert np.array_equal(to_numpy(twice), np.arange(4.0) * 2)
    with pytest.raises(TypeError, match=r"bad argument .*: expected GpuArrayType\(float64, vector\)"):
        f(np.zeros(3, dtype="float32") if device == "cuda" else [1.0])


def test_gpu_variable_operators(device):
    x, y = og.vector("x", dtype="float64"), og.vector("y", dtype="float64")
    outputs = [x + y, x - y, x * y, x + 1, 2 * x, 1 - x, x.sum(), x.sum(axis=0, keepdims=True)]
    assert all(isinstance(o.type, GpuArrayType) for o in outputs)
    f = opkit.function([x, y], outputs, mode=opkit.Mode(device=device))
    a, b = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 4.0])
    got = [to_numpy(v) for v in f(on_device(device, a), on_device(device, b))]
    expected = [a + b, a - b, a * b, a + 1, 2 * a, 1 - a, a.sum(), a.sum(axis=0, keepdims=True)]
    for g, e in zip(got, expected):
        assert np.allclose(g, e) and np.shape(g) == np.shape(e)


def test_infer_shape_of_transfers():
    x = ot.dmatrix("x")
    shape = opkit.function([x], to_host(to_gpu(x) * 3).shape, mode=INTERPRET)
    assert list(shape(np.zeros((2, 5)))) == [2, 5]


def test_gradients_of_transfers_are_transfers():
    x = ot.dvector("x")
    g = opkit.grad(to_host(to_gpu(x) * 3).sum(), x)
    f = opkit.function([x], g, mode=INTERPRET_PY)
    assert np.array_equal(f(np.arange(3.0)), [3.0, 3.0, 3.0])
    gpu = og.vector("g", dtype="float64")
    cost = (to_host(gpu) ** 2).sum()
    grad_gpu = opkit.grad(cost, gpu)
    assert isinstance(grad_gpu.type, GpuArrayType)  # the gradient of a GPU value is a GPU value
    f = opkit.function([gpu], grad_gpu, mode=INTERPRET_PY)
    assert np.array_equal(f(np.arange(3.0)), [0.0, 2.0, 4.0])


def test_disconnected_gradients_and_gpu_costs_stay_on_the_gpu():
    g, h = og.vector("g", dtype="float64"), og.vector("h", dtype="float32")
    gg, gh = opkit.grad(to_host(g).sum(), [g, h], disconnected_inputs="ignore")
    assert isinstance(gh.type, GpuArrayType) and gh.type.dtype == "float32"
    f = opkit.function([g, h], [gg, gh], mode=INTERPRET_PY)
    ones, zeros = f(np.arange(3.0), np.arange(2.0, dtype="float32"))
    assert np.array_equal(ones, [1.0] * 3) and np.array_equal(zeros, [0.0, 0.0]) and zeros.dtype == np.float32
    seeded = opkit.grad(to_gpu((to_host(g) * 2).sum()), g)  # a GPU cost: its seed is a GPU value too
    assert np.array_equal(opkit.function([g], seeded, mode=INTERPRET_PY)(np.arange(3.0)), [2.0] * 3)


# verify_grad through the interpreter: soak (`-m soak`); every gradient test of tests/gpu/ runs through transfers, and
# test_gradients_of_transfers_are_transfers checks their gradient graph in the default run.
@pytest.mark.soak
def test_verify_grad_through_transfers():
    rng = np.random.default_rng(0)
    verify_grad(lambda x: to_host(to_gpu(x) * to_gpu(x)), [rng.random(5)], mode=INTERPRET)
    verify_grad(lambda x, y: to_host(to_gpu(x) - to_gpu(y)).sum(), [rng.random(4), rng.random(4)], mode=INTERPRET)


def test_values_eq_approx():
    t = GpuArrayType("float32", (None,))
    assert t.values_eq_approx(np.array([1.0, 2.0], "float32"), np.array([1.0, 2.00001], "float32"))
    assert not t.values_eq_approx(np.array([1.0, 2.0], "float32"), np.array([1.0, 2.1], "float32"))
    assert t.values_eq(np.array([1.0], "float32"), np.array([1.0], "float32"))


@needs_gpu
def test_cuda_array_interface_and_dlpack_are_taken_without_a_copy():
    import cupy

    t = GpuArrayType("float32", (None,))
    with using_device("cuda"):
        a = cupy.arange(4, dtype="float32")
        assert t.filter(a) is a

        class Foreign:
            __cuda_array_interface__ = a.__cuda_array_interface__

        viewed = t.filter(Foreign())
        assert viewed.data.ptr == a.data.ptr

        class DLPackOnly:  # as torch's and JAX's arrays offer it
            def __dlpack__(self, **kwargs):
                return a.__dlpack__(**kwargs)

            def __dlpack_device__(self):
                return a.__dlpack_device__()

        from_dlpack = t.filter(DLPackOnly())
        assert from_dlpack.data.ptr == a.data.ptr


@pytest.mark.parametrize("cupy", CUPY_OR_NOT)
def test_runtime_helpers_without_a_device(cupy):
    from opkit.gpu import runtime

    for dtype in ["bool", "int8", "uint16", "int32", "int64", "uint64", "float16", "float32", "float64",
                  "complex64", "complex128"]:
        assert runtime.dtype_of(np.dtype(dtype).num) == np.dtype(dtype)
    with pytest.raises(ValueError, match="no numpy dtype has type number 12345"):
        runtime.dtype_of(12345)
    assert og.has_device() == runtime.has_device()
    if not og.has_device():
        with pytest.raises(og.NoDeviceError, match=NO_DEVICE[cupy]):
            runtime.require_device()


def test_compile_kernels_is_reexported():
    from opkit.cop.kernels import compile_kernels

    assert og.compile_kernels is compile_kernels
    assert {"GpuArrayType", "to_gpu", "to_host", "vector", "compile_kernels", "has_device"} <= set(dir(og))
    with pytest.raises(AttributeError, match="module 'opkit.gpu' has no attribute 'nothing'"):
        og.nothing


def test_debugmode_compares_gpu_arrays_on_the_host():
    """DebugMode's checks read a CuPy array through .get(): equal copies are unchanged inputs (no false report)."""
    from opkit.link.debugmode_checks import _values_identical, on_host

    class FakeGpuArray:  # the two things the checks use of a CuPy array
        __cuda_array_interface__ = {}

        def __init__(self, data):
            self.data = data

        def get(self):
            return self.data

    a, b = FakeGpuArray(np.arange(3.0)), FakeGpuArray(np.arange(3.0))
    assert type(on_host(a)) is np.ndarray and on_host(3) == 3
    assert _values_identical(a, b) and not _values_identical(a, FakeGpuArray(np.ones(3)))
