"""The interpreter against a GPU: each race-free kernel of interpreter_kernels.cu runs through the interpreter and
on the GPU (NVRTC's cubin with --fmad=false, launched by CuPy) on the same inputs, and the outputs are equal bit for
bit. The GPU side is skipped only where CuPy finds no device; here the harness checks itself with the interpreter
on both sides (the two fiber switches)."""

import numpy as np
import pytest

from tests.helpers.gpu import needs_gpu
from test_interpreter import HERE, kernels_library


def case_inputs(seed):
    """(kernel, grid, block, arguments in the kernel's order): numpy scalars and arrays, outputs pre-filled."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 2000))
    ints = rng.integers(-1000, 1000, n).astype(np.int32)
    specials = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 2.0**31, -2.0**31, 3e9, -3e9, 1e20, np.inf, -np.inf, np.nan,
                         4294967295.0, 2.0**63, -0.0, 1e-30], np.float64)
    floats = np.concatenate([specials, rng.standard_normal(64) * 1e9])
    m = floats.size
    words = rng.integers(0, 2**32, 200, dtype=np.uint64).astype(np.uint32)
    blocks = lambda size: -(-n // size)  # noqa: E731
    i32 = lambda k: np.zeros(k, np.int32)  # noqa: E731
    return [
        ("axpy", 3, 128, [np.int32(n), np.float32(rng.standard_normal()), rng.standard_normal(n).astype(np.float32),
                          rng.standard_normal(n).astype(np.float32)]),
        ("block_sum", blocks(128), 128, [np.int32(n), ints.astype(np.float64), np.zeros(blocks(128))]),
        ("histogram", 2, 96, [np.int32(n), (ints % 37 + 37).astype(np.int32) % 37, np.zeros(37, np.uint32)]),
        ("warp_sums", blocks(64), 64, [np.int32(n), ints, i32(n), np.zeros(1, np.uint64)]),
        ("segment_scan", blocks(64), 64, [np.int32(n), np.int32(8), ints, i32(n), i32(n)]),
        ("votes", blocks(128), 128, [np.int32(n), (ints > 0).astype(np.int32), np.zeros(4 * blocks(128), np.uint32),
                                     i32(4 * blocks(128)), i32(4 * blocks(128))]),
        ("block_votes", blocks(100), 100, [np.int32(n), ints, i32(3 * blocks(100))]),
        ("atomics", 3, 64, [np.int32(n), ints, np.array([0, 0, -2**31, 2**31 - 1, -1, 0, 0], np.int32),
                            np.array([0, 0, 2**32 - 1, 0, 0], np.uint32), np.zeros(2, np.uint64),
                            np.array([-2**63, 2**63 - 1], np.int64), np.zeros(1, np.float32), np.zeros(1)]),
        ("bit_intrinsics", 4, 64, [np.int32(words.size), words, np.zeros(8 * words.size, np.uint32)]),
        ("conversions", -(-m // 32), 32, [np.int32(m), floats.astype(np.float32), floats, i32(8 * m),
                                          np.zeros(2 * m, np.uint32), np.zeros(2 * m, np.int64),
                                          np.zeros(2 * m, np.float32)]),
        ("warp_extras", 1, 96, [rng.integers(-3, 4, 96).astype(np.int32), np.zeros(9 * 96, np.uint32)]),
        ("half_warp", 2, 64, [np.arange(128, dtype=np.int32), np.full(128, -1, np.int32)]),
        ("coordinates", (3, 2, 2), (8, 4, 2), [np.full(2 * 8 * 4 * 3 * 2 * 2, -1, np.int64)]),
    ]


CASES = [(seed, index) for seed in (1, 2) for index in range(13)]


def outputs(args):
    return [a for a in args if isinstance(a, np.ndarray)]


def run_interpreted(lib, kernel, grid, block, args):
    """Launch through the interpreter (tests/gpu/interpreter_host.cpp's run_<kernel>); return the arrays after."""
    args = [a.copy() if isinstance(a, np.ndarray) else a.item() for a in args]
    if kernel == "coordinates":
        status = lib.run_coordinates(*grid, *block, 0, *args)
    else:
        status = getattr(lib, f"run_{kernel}")(grid, block, *args)
    assert status == 0, lib.opkit_test_error().decode()
    return outputs(args)


@pytest.fixture(scope="module")
def lib():
    return kernels_library("fast-switch")  # test_interpreter.py's libraries: built once per process


@pytest.fixture(scope="module")
def other_lib():
    return kernels_library("ucontext")


@pytest.fixture(scope="module")
def gpu_module():
    """The kernels compiled by NVRTC for this GPU (--fmad=false: a * b + c rounds twice, as on the host)."""
    from opkit.cop.toolchain import nvrtc
    from opkit.gpu.runtime import cupy

    module = cupy()
    name = "interpreter_kernels.cu"
    arch = f"sm_{module.cuda.Device().compute_capability}"
    compiled = nvrtc.compile_cuda((HERE / name).read_text(), filename=name, arch=arch, options=("--fmad=false",))
    loaded = module.cuda.function.Module()
    loaded.load(bytes(compiled.cubin))
    return module, loaded


def run_on_gpu(gpu_module, kernel, grid, block, args):
    cupy, loaded = gpu_module
    as_dims = lambda d: tuple(d) if isinstance(d, tuple) else (d,)  # noqa: E731
    device = [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    loaded.get_function(kernel)(as_dims(grid), as_dims(block), tuple(device))
    cupy.cuda.get_current_stream().synchronize()
    return [cupy.asnumpy(a) for a in device if isinstance(a, cupy.ndarray)]


def assert_same(kernel, ours, theirs):
    assert len(ours) == len(theirs)
    for position, (a, b) in enumerate(zip(ours, theirs)):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b, err_msg=f"kernel {kernel}, output {position}")


@pytest.mark.parametrize("seed, index", CASES)
def test_the_harness_with_both_fiber_switches(lib, other_lib, seed, index):
    kernel, grid, block, args = case_inputs(seed)[index]
    assert_same(kernel, run_interpreted(lib, kernel, grid, block, args),
                run_interpreted(other_lib, kernel, grid, block, args))


@needs_gpu
@pytest.mark.parametrize("seed, index", CASES)
def test_the_interpreter_equals_the_gpu(lib, gpu_module, seed, index):
    kernel, grid, block, args = case_inputs(seed)[index]
    assert_same(kernel, run_interpreted(lib, kernel, grid, block, args), run_on_gpu(gpu_module, kernel, grid, block,
                                                                                    args))
