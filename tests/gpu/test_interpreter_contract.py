"""The GPU C contract (opkit/templates/gpu/opkit_gpu.h) in both modes, from one host text.

tests/gpu/interpreter_contract.cpp is a host module written on the contract (OpkitGpuArray,
opkit_gpu_from_object, opkit_gpu_empty/zeros, OPKIT_LAUNCH). Built with OPKIT_CUDA_INTERPRET its kernels run on
the CPU and are compared with numpy; built without, it compiles with g++ and no CUDA header, reads
__cuda_array_interface__ objects, and refuses bad launches with CUDA's error names before reaching the driver."""

import ctypes
import importlib.util
import pathlib
import subprocess
import sys
import sysconfig

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.helpers.gpu import needs_gpu
from opkit.cop.toolchain.compiler import find_compiler
from opkit.gpu.interpret.refusals import interpretable_text

HERE = pathlib.Path(__file__).resolve().parent
HEADERS = HERE.parents[1] / "opkit" / "templates" / "gpu"


def build_module(folder, name, interpret):
    """Compile interpreter_contract.cpp as the extension module `name` in `folder`; return it imported."""
    kernels = HERE / "interpreter_contract_kernels.cu"
    (folder / "contract_kernels_interpretable.cu").write_text(interpretable_text(kernels.read_text(), kernels))
    output = folder / f"{name}{sysconfig.get_config_var('EXT_SUFFIX')}"
    command = [*find_compiler().command, "-std=c++17", "-O1", "-ffp-contract=off", "-fPIC", "-shared",
               f"-I{sysconfig.get_paths()['include']}", f"-I{np.get_include()}", f"-I{HEADERS}", f"-I{folder}",
               f"-DOPKIT_TEST_MODULE={name}", *(["-DOPKIT_CUDA_INTERPRET"] if interpret else []),
               str(HERE / "interpreter_contract.cpp"), "-o", str(output)]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    spec = importlib.util.spec_from_file_location(name, output)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def interpreted(tmp_path_factory):
    return build_module(tmp_path_factory.mktemp("contract_interpret"), "contract_interpret", interpret=True)


@pytest.fixture(scope="module")
def on_cuda(tmp_path_factory):
    return build_module(tmp_path_factory.mktemp("contract_cuda"), "contract_cuda", interpret=False)


# ---- interpret mode: numpy values, kernels on the CPU ----

@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(0, 9), min_size=0, max_size=3), a=st.floats(-8, 8, width=32),
       block=st.sampled_from([1, 64, 256]), seed=st.integers(0, 2**32 - 1))
def test_launch_allocate_and_compare_with_numpy(interpreted, shape, a, block, seed):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    out = interpreted.scale(x, a, -1, block)
    assert type(out) is np.ndarray and out.dtype == np.float32 and out.shape == x.shape
    assert out.flags.c_contiguous
    np.testing.assert_array_equal(out, np.float32(a) * x)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(0, 3000), block=st.sampled_from([1, 32, 100, 512]), seed=st.integers(0, 2**32 - 1))
def test_dynamic_shared_memory_gets_the_launch_shared_bytes(interpreted, n, block, seed):
    x = np.random.default_rng(seed).integers(-1000, 1000, n).astype(np.float64)
    out = interpreted.block_total(x, block)
    blocks = max(1, -(-n // block))
    padded = np.zeros(blocks * block)
    padded[:n] = x
    np.testing.assert_array_equal(out, padded.reshape(blocks, block).sum(axis=1))


@pytest.mark.parametrize("make", [
    lambda: np.arange(24.0).reshape(2, 3, 4),
    lambda: np.arange(24, dtype=np.int16).reshape(4, 6)[::2, ::-3],
    lambda: np.asfortranarray(np.ones((3, 5), np.complex64)),
    lambda: np.zeros((0, 7), np.uint8),
    lambda: np.array(3.5, np.float32),
    lambda: np.ones(4, np.bool_),
])
def test_from_object_reads_numpy_arrays(interpreted, make):
    x = make()
    data, ndim, dims, strides, typenum, holds = interpreted.describe(x)
    assert (data, ndim, dims, strides, typenum, holds) == (x.ctypes.data, x.ndim, x.shape, x.strides, x.dtype.num, 1)


def test_from_object_refuses_what_is_not_a_numpy_array(interpreted):
    with pytest.raises(TypeError, match=r'^device="cuda-interpret" expects a numpy.ndarray as a GPU value, got list$'):
        interpreted.describe([1.0, 2.0])


def test_from_object_refuses_numpy_subclasses(interpreted):
    with pytest.raises(TypeError, match=r'^device="cuda-interpret" expects a plain numpy.ndarray as a GPU value, got '
                                        r"MaskedArray, a subclass: a kernel reads only the data; pass "
                                        r"numpy.asarray\(value\)$"):
        interpreted.describe(np.ma.masked_array([1.0, 2.0], mask=[True, False]))


def test_from_object_refuses_byte_swapped_and_unaligned_arrays(interpreted):
    swapped = np.arange(3, dtype=">f8")
    with pytest.raises(TypeError, match=r"^a GPU value must be aligned and in native byte order \(as CuPy's are\), "
                                        r"got a byte-swapped array of dtype >f8"):
        interpreted.describe(swapped)
    unaligned = np.zeros(17, np.uint8)[1:].view(np.float64)
    assert not unaligned.flags.aligned
    with pytest.raises(TypeError, match="got an unaligned array of dtype float64"):
        interpreted.describe(unaligned)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.float32, np.float64,
                                   np.complex128])
@pytest.mark.parametrize("shape", [(), (0,), (3, 4), (2, 0, 5)])
def test_zeros_and_empty_allocate_numpy_arrays(interpreted, dtype, shape):
    zeros = interpreted.allocate(shape, np.dtype(dtype).num, 1)
    assert type(zeros) is np.ndarray and zeros.dtype == dtype and zeros.shape == shape and zeros.flags.c_contiguous
    np.testing.assert_array_equal(zeros, np.zeros(shape, dtype))
    empty = interpreted.allocate(shape, np.dtype(dtype).num, 0)
    assert empty.dtype == dtype and empty.shape == shape


def test_allocation_refuses_negative_dimensions_and_too_many(interpreted):
    with pytest.raises(ValueError, match=r"^cannot allocate a GPU array with a negative dimension \(-2\)$"):
        interpreted.allocate((3, -2), np.dtype(np.float32).num, 0)
    with pytest.raises(ValueError, match=r"^a GPU array has 0 to 32 dimensions, got 33$"):
        interpreted.allocate((1,) * 33, np.dtype(np.float32).num, 1)


@pytest.mark.parametrize("grid, block, message", [
    (0, 256, "cudaErrorInvalidConfiguration: kernel scale_node7 cannot be launched: the grid (0, 1, 1) has a "
             "dimension < 1"),
    (1, 1025, "cudaErrorInvalidConfiguration: kernel scale_node7 cannot be launched: the block (1025, 1, 1) has 1025 "
              "threads or a dimension over CUDA's limits (at most 1024 threads, x and y <= 1024, z <= 64)"),
    (2**40, 32, "cudaErrorInvalidConfiguration: kernel scale_node7 cannot be launched: the grid (1099511627776, 1, 1) "
                "is larger than CUDA's (2147483647, 65535, 65535)"),
])
def test_a_refused_launch_is_a_runtime_error_naming_the_cuda_error(interpreted, grid, block, message):
    with pytest.raises(RuntimeError) as info:
        interpreted.scale(np.ones(3, np.float32), 2.0, grid, block)
    assert str(info.value) == message


def test_launch_into_a_given_array(interpreted):
    x = np.arange(5, dtype=np.float32)
    out = np.zeros(5, np.float32)
    assert interpreted.scale_into(x, out, 3.0, 2, 2) is None
    np.testing.assert_array_equal(out, 3 * x)


def test_a_launch_with_dynamic_shared_memory_checks_the_block_first(interpreted):
    with pytest.raises(RuntimeError, match=r"^cudaErrorInvalidConfiguration: kernel block_total_node7 cannot be "
                                           r"launched: the block \(2048, 1, 1\) has 2048 threads"):
        interpreted.block_total(np.ones(10), 2048)


# ---- cuda mode: the same text compiled by g++ without CUDA headers ----

class CudaArrayLike:
    """An object exposing __cuda_array_interface__ (as CuPy, torch and numba arrays do)."""

    def __init__(self, **interface):
        self.__cuda_array_interface__ = {"version": 3, "strides": None, **interface}


@pytest.mark.parametrize("interface, expected", [
    ({"shape": (2, 3), "typestr": "<f4", "data": (4096, False)}, (4096, 2, (2, 3), (12, 4), np.float32)),
    ({"shape": (2, 3), "typestr": "<f8", "data": (8192, False), "strides": (8, 16)},
     (8192, 2, (2, 3), (8, 16), np.float64)),
    ({"shape": (), "typestr": "|b1", "data": (64, True)}, (64, 0, (), (), np.bool_)),
    ({"shape": (5,), "typestr": "|u1", "data": (1, False), "version": 2}, (1, 1, (5,), (1,), np.uint8)),
    ({"shape": (4, 0), "typestr": "<c16", "data": (0, False)}, (0, 2, (4, 0), (16, 16), np.complex128)),
    ({"shape": (3,), "typestr": "<i8", "data": (2**40, False), "strides": (-8,)}, (2**40, 1, (3,), (-8,), np.int64)),
    ({"shape": (7,), "typestr": "<f2", "data": (256, False), "mask": None}, (256, 1, (7,), (2,), np.float16)),
])
def test_cuda_from_object_reads_the_cuda_array_interface(on_cuda, interface, expected):
    value = CudaArrayLike(**interface)
    data, ndim, dims, strides, typenum, holds = on_cuda.describe(value)
    assert (data, ndim, dims, strides, typenum, holds) == (*expected[:4], np.dtype(expected[4]).num, 1)


@pytest.mark.parametrize("value, message", [
    (np.ones(3), r"^expected a GPU array \(an object with __cuda_array_interface__, such as a CuPy array\), got "
                 r"numpy.ndarray: opkit.gpu.to_gpu\(value\) moves a host value$"),
    (CudaArrayLike(shape=(3,), typestr=">f4", data=(1, False)),
     r"^a GPU array's typestr >f4 is not a native-order bool, integer, float or complex type$"),
    (CudaArrayLike(shape=(3,), typestr="<V8", data=(1, False)), r"typestr <V8 is not"),
    (CudaArrayLike(shape=(3,), typestr="<f4x", data=(1, False)), r"typestr <f4x is not"),
    (CudaArrayLike(shape=(3,), typestr="<i3", data=(1, False)), r"typestr <i3 is not"),
    (CudaArrayLike(shape=(3,), typestr="<f4", data=(1, False), mask=object()),
     r"^a masked GPU array \(__cuda_array_interface__ mask\) is not supported$"),
    (CudaArrayLike(shape=(3,), typestr="<f4"), r"__cuda_array_interface__ lacks shape, typestr or data"),
    (CudaArrayLike(shape=(3,), typestr="<f4", data=(1, False), strides=(4, 4)),
     r"__cuda_array_interface__'s strides is not a tuple of 1 integers"),
])
def test_cuda_from_object_refuses_what_it_cannot_read(on_cuda, value, message):
    with pytest.raises(TypeError, match=message):
        on_cuda.describe(value)


def test_cuda_launch_checks_the_configuration_before_the_driver(on_cuda):
    value = CudaArrayLike(shape=(3,), typestr="<f4", data=(4096, False))
    with pytest.raises(RuntimeError) as info:
        on_cuda.scale_into(value, value, 2.0, 1, 2048)
    assert str(info.value).startswith("cudaErrorInvalidConfiguration: kernel scale_node7 cannot be launched: the "
                                      "block (2048, 1, 1) has 2048 threads")


def test_cuda_launch_without_a_driver_names_libcuda(on_cuda):
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        pass
    else:
        pytest.skip("this machine has the CUDA driver: the launch would reach it")
    with pytest.raises(RuntimeError, match=r"^cannot launch a CUDA kernel: the NVIDIA driver's libcuda.so.1 was not "
                                           r"found"):
        value = CudaArrayLike(shape=(3,), typestr="<f4", data=(4096, False))
        on_cuda.scale_into(value, value, 2.0, 1, 32)


# ---- cuda mode on a GPU (skipped only where CuPy finds no device) ----

@pytest.fixture(scope="module")
def cupy_with_kernels():
    """CuPy, with the contract's kernels compiled by NVRTC for this GPU under the module's key."""
    from opkit.cop.toolchain import nvrtc
    from opkit.gpu import runtime

    cupy = runtime.cupy()
    name = "interpreter_contract_kernels.cu"
    text = "#define APPLY_SPECIFIC(str) str##_node7\n" + (HERE / name).read_text()
    compiled = nvrtc.compile_cuda(text, filename=name, arch=f"sm_{cupy.cuda.Device().compute_capability}")
    runtime.register_kernel_binary("test-module-key", compiled.cubin, compiled.ptx)
    return cupy


@needs_gpu
def test_cuda_launch_on_the_gpu_equals_numpy(on_cuda, cupy_with_kernels):
    cupy = cupy_with_kernels
    host = np.random.default_rng(0).standard_normal((37, 41)).astype(np.float32)
    x = cupy.asarray(host)
    out = on_cuda.scale(x, 2.5)
    assert isinstance(out, cupy.ndarray) and out.shape == host.shape and out.dtype == np.float32
    np.testing.assert_array_equal(cupy.asnumpy(out), np.float32(2.5) * host)
    with cupy.cuda.Stream() as stream:  # kernels run on CuPy's current stream
        again = on_cuda.scale(x, -1.0, 3, 64)
        stream.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(again), -host)


@needs_gpu
def test_cuda_dynamic_shared_memory_and_zeros_on_the_gpu(on_cuda, cupy_with_kernels):
    cupy = cupy_with_kernels
    host = np.random.default_rng(1).integers(-1000, 1000, 5000).astype(np.float64)
    out = on_cuda.block_total(cupy.asarray(host), 128)
    padded = np.zeros(40 * 128)
    padded[:5000] = host
    np.testing.assert_array_equal(cupy.asnumpy(out), padded.reshape(40, 128).sum(axis=1))
    zeros = on_cuda.allocate((3, 4), np.dtype(np.int16).num, 1)
    assert isinstance(zeros, cupy.ndarray) and zeros.dtype == np.int16
    np.testing.assert_array_equal(cupy.asnumpy(zeros), np.zeros((3, 4), np.int16))


@needs_gpu
def test_cuda_from_object_reads_a_cupy_array(on_cuda, cupy_with_kernels):
    cupy = cupy_with_kernels
    x = cupy.arange(24, dtype=cupy.float64).reshape(4, 6)[::2, ::-1]
    data, ndim, dims, strides, typenum, holds = on_cuda.describe(x)
    assert (data, ndim, dims, strides, typenum, holds) == (x.data.ptr, 2, (2, 6), x.strides, np.dtype(np.float64).num, 1)
