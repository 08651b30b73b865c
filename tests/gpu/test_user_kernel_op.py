"""A user's GPU op end to end: a COp whose .c file holds host `code` and CUDA `kernels` (user_ops/), run by the
C linker through opkit's CPU interpreter here (device="cuda-interpret") and on a GPU where CuPy finds one,
compared with numpy; its gradient through transfers; FAIL after a failed launch; threads; a second process;
DebugMode (the kernel against perform)."""

import concurrent.futures
import functools
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import opkit
import opkit.gpu as og
import opkit.tensor as ot
from opkit.gpu import GpuArrayType, to_gpu, to_host
from opkit.gpu.device import using_device
from opkit.testing import verify_grad

from tests.helpers.caches import seeded
from tests.helpers.gpu import device, needs_gpu, on_device, to_numpy  # noqa: F401 (fixtures)
from user_ops.user_kernels import Axpy, BadLaunch, axpy, block_sum

DTYPES = ["float32", "float64", "int32"]
SIZES = [0, 1, 127, 128, 129, 1000, 20000]
HERE = os.path.dirname(os.path.abspath(__file__))


def _data(dtype, n, seed=0):
    rng = np.random.default_rng(seed + n)
    if dtype == "int32":
        return rng.integers(-1000, 1000, size=n).astype(dtype)
    return rng.standard_normal(n).astype(dtype)


def _axpy_function(device, dtype):
    a, x, y = og.scalar("a", dtype=dtype), og.vector("x", dtype=dtype), og.vector("y", dtype=dtype)
    return opkit.function([a, x, y], axpy(a, x, y), mode=opkit.Mode(device=device))


@functools.cache
def _every_dtype_function(device):
    """axpy and block_sum of every dtype in one function (one module), compiled once per device and session:
    its inputs are a, x, y of DTYPES[0], then of DTYPES[1], ...; its outputs axpy(a, x, y) and block_sum(x) of each."""
    inputs, outputs = [], []
    for dtype in DTYPES:
        a, x, y = og.scalar("a", dtype=dtype), og.vector("x", dtype=dtype), og.vector("y", dtype=dtype)
        inputs += [a, x, y]
        outputs += [axpy(a, x, y), block_sum(x)]
    return opkit.function(inputs, outputs, mode=opkit.Mode(device=device))


def _call_every_dtype(device, values):
    """{dtype: (axpy, block_sum)} of _every_dtype_function(device) called with {dtype: (a, x, y)} (numpy); a dtype
    left out gets empty vectors."""
    arguments = []
    for dtype in DTYPES:
        empty = np.zeros(0, dtype)
        arguments += [on_device(device, v) for v in values.get(dtype, (np.asarray(0, dtype), empty, empty))]
    results = _every_dtype_function(device)(*arguments)
    return {dtype: (results[2 * k], results[2 * k + 1]) for k, dtype in enumerate(DTYPES)}


def test_axpy_against_numpy(device):
    for n in SIZES:
        values = {dtype: (np.asarray(3, dtype=dtype), _data(dtype, n), _data(dtype, n, seed=1)) for dtype in DTYPES}
        results = _call_every_dtype(device, values)
        for dtype, (alpha, x, y) in values.items():
            got = results[dtype][0]
            expected = alpha * x + y
            assert got.dtype == expected.dtype and got.shape == (n,), (dtype, n)
            np.testing.assert_array_equal(to_numpy(got), expected, err_msg=f"{dtype} n={n}")


def test_axpy_on_strided_and_reversed_views(device):
    base_x, base_y = _data("float64", 301), _data("float64", 602, seed=2)
    for x, y in [(base_x[::3], base_y[::6]), (base_x[::-1], base_y[1::2]), (base_x[100:], base_y[:201])]:
        got = _call_every_dtype(device, {"float64": (np.asarray(2.5), x, y)})["float64"][0]
        np.testing.assert_array_equal(to_numpy(got), 2.5 * x + y)


@settings(max_examples=25, deadline=None)
@given(dtype=st.sampled_from(DTYPES), n=st.integers(0, 2000), step_x=st.sampled_from([1, 2, -1, -3]),
       step_y=st.sampled_from([1, 3, -2]), alpha=st.integers(-5, 5), seed=st.integers(0, 2**16))
def test_interpreted_kernels_match_numpy_property(dtype, n, step_x, step_y, alpha, seed):
    x = _data(dtype, n * abs(step_x), seed)[::step_x]
    y = _data(dtype, n * abs(step_y), seed + 1)[::step_y]
    a = np.asarray(alpha, dtype=dtype)
    z, total = _call_every_dtype("cuda-interpret", {dtype: (a, x, y)})[dtype]
    np.testing.assert_array_equal(z, a * x + y)
    if dtype == "int32":
        assert total == x.sum(dtype=dtype)
    else:
        np.testing.assert_allclose(total, x.sum(dtype="float64"), rtol=1e-4 if dtype == "float32" else 1e-12,
                                   atol=1e-3 if dtype == "float32" else 1e-9)


def test_host_code_errors_reach_the_caller(device):
    with pytest.raises(ValueError, match="axpy: x has 3 elements but y has 4"):
        _call_every_dtype(device, {"float64": (np.asarray(1.0), np.zeros(3), np.zeros(4))})


def test_block_reduction_with_shared_memory(device):
    for n in [0, 1, 255, 256, 257, 5000]:
        values = {dtype: (np.asarray(1, dtype=dtype), _data(dtype, n), _data(dtype, n)) for dtype in DTYPES}
        results = _call_every_dtype(device, values)
        for dtype, (_, data, _) in values.items():
            got = to_numpy(results[dtype][1])
            expected = data.sum(dtype=dtype)
            assert got.shape == () and got.dtype == np.dtype(dtype)
            if dtype == "int32":
                assert got == expected, n
            else:  # another order of additions than numpy's pairwise sum
                np.testing.assert_allclose(got, expected, rtol=1e-5 if dtype == "float32" else 1e-12,
                                           atol=1e-4 if dtype == "float32" else 1e-10)


def test_numpy_in_numpy_out_through_transfers(device):
    a, x, y = ot.dscalar("a"), ot.dvector("x"), ot.dvector("y")
    f = opkit.function([a, x, y], [to_host(axpy(a, x, y)), to_host(block_sum(x))], mode=opkit.Mode(device=device))
    z, s = f(2.0, np.arange(5.0), np.ones(5))
    assert type(z) is np.ndarray and type(s) is np.ndarray
    np.testing.assert_array_equal(z, 2.0 * np.arange(5.0) + 1)
    assert s == 10.0


def test_a_pickled_function_keeps_its_device():
    import pickle

    a, x, y = ot.dscalar("a"), ot.dvector("x"), ot.dvector("y")
    # the graph of test_numpy_in_numpy_out_through_transfers: its module
    f = opkit.function([a, x, y], [to_host(axpy(a, x, y)), to_host(block_sum(x))],
                       mode=opkit.Mode(device="cuda-interpret"))
    g = pickle.loads(pickle.dumps(f))
    assert g.maker.mode.device == "cuda-interpret" and g.maker.device == "cuda-interpret"
    z, s = g(2.0, np.arange(3.0), np.ones(3))
    np.testing.assert_array_equal(z, [1.0, 3.0, 5.0])
    assert s == 3.0


def test_fail_after_a_failed_launch_names_the_cuda_error(device):
    x = og.vector("x", dtype="float32")
    f = opkit.function([x], BadLaunch()(x), mode=opkit.Mode(device=device))
    with pytest.raises(RuntimeError, match=r"cudaErrorInvalidConfiguration|CUDA_ERROR_INVALID_VALUE"):
        f(on_device(device, np.arange(3, dtype="float32")))


def test_gradient_through_the_gpu():
    a, x, y = ot.dscalar("a"), ot.dvector("x"), ot.dvector("y")
    cost = to_host(block_sum(axpy(a, x, y)))
    grads = opkit.grad(cost, [a, x, y])
    f = opkit.function([a, x, y], grads, mode=opkit.Mode(device="cuda-interpret"))
    ga, gx, gy = f(2.0, np.arange(4.0), np.ones(4))
    assert ga == 6.0
    np.testing.assert_array_equal(gx, [2.0] * 4)
    np.testing.assert_array_equal(gy, [1.0] * 4)


def test_verify_grad_of_a_user_kernel_op():
    """verify_grad of the gradient graph on each op's perform (the Python linker: nothing to compile; verify_grad
    in the interpreted mode compiles three modules, Axpy's two of them, whose kernels the tests above run), then the
    gradient function through the interpreter (the GPU ops of Axpy's gradient, one module) against that checked
    gradient."""
    rng = np.random.default_rng(3)
    point = [np.asarray(1.5), rng.random(7), rng.random(7)]
    verify_grad(lambda a, x, y: to_host(axpy(a, x, y)), point,
                mode=opkit.Mode(device="cuda-interpret", linker="py"))
    a, x, y, projection = ot.dscalar("a"), ot.dvector("x"), ot.dvector("y"), ot.dvector("projection")
    grads = opkit.grad((to_host(axpy(a, x, y)) * projection).sum(), [a, x, y])
    weights = rng.random(7) + 0.5
    checked = opkit.function([a, x, y, projection], grads, mode=opkit.Mode(device="cuda-interpret", linker="py"))
    f = opkit.function([a, x, y, projection], grads, mode=opkit.Mode(device="cuda-interpret"))
    assert {"GpuElemwise", "GpuReduce"} <= {type(node.op).__name__ for node in f.maker.fgraph.toposort()}
    for got, want in zip(f(*point, weights), checked(*point, weights), strict=True):
        assert np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_debugmode_kernel_against_perform(device):
    a, x, y = og.scalar("a", dtype="float64"), og.vector("x", dtype="float64"), og.vector("y", dtype="float64")
    f = opkit.function([a, x, y], [axpy(a, x, y), block_sum(x)], mode=opkit.DebugMode(device=device))
    data = _data("float64", 300)
    z, s = f(on_device(device, np.asarray(2.0)), on_device(device, data), on_device(device, data))
    np.testing.assert_array_equal(to_numpy(z), 3 * data)
    np.testing.assert_allclose(to_numpy(s), data.sum())


def test_infer_shape_of_user_kernel_ops(device):
    from opkit.testing import InferShapeTester

    tester = InferShapeTester()
    tester.mode = opkit.Mode(device=device)
    a, x, y = ot.dscalar("a"), ot.dvector("x"), ot.dvector("y")
    tester._compile_and_check([a, x, y], [axpy(a, x, y), block_sum(x)], [2.0, np.arange(5.0), np.ones(5)], Axpy)
    ga, gx, gy = og.scalar("a", dtype="float64"), og.vector("x", dtype="float64"), og.vector("y", dtype="float64")
    tester._compile_and_check([ga, gx, gy], [axpy(ga, gx, gy)],
                              [on_device(device, v) for v in (np.asarray(2.0), np.arange(7.0), np.ones(7))], Axpy)


def test_eight_threads_call_one_function(device):
    _every_dtype_function(device)  # compiled before the threads call it
    inputs = [(np.asarray(k, dtype="float32"), _data("float32", 1000 + k, seed=k), _data("float32", 1000 + k))
              for k in range(8)]

    def call(args):
        if device == "cuda":
            import cupy

            with cupy.cuda.Stream() as stream:  # each thread on a stream of its own: OPKIT_LAUNCH uses it
                result = _call_every_dtype(device, {"float32": args})["float32"][0]
                stream.synchronize()
                return result.get()
        return _call_every_dtype(device, {"float32": args})["float32"][0]

    for _ in range(3):
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            results = list(pool.map(call, inputs))
        for (alpha, x, y), got in zip(inputs, results):
            np.testing.assert_array_equal(got, alpha * x + y)


SECOND_PROCESS = textwrap.dedent("""
    import sys
    sys.path.insert(0, {here!r})
    import numpy as np, opkit, opkit.gpu as og
    from opkit.cop.store.cache import module_events
    from user_ops.user_kernels import axpy
    a, x, y = og.scalar("a", dtype="float64"), og.vector("x", dtype="float64"), og.vector("y", dtype="float64")
    f = opkit.function([a, x, y], axpy(a, x, y), mode=opkit.Mode(device={device!r}))
    if {device!r} == "cuda":
        import cupy
        z = f(cupy.asarray(np.asarray(2.0)), cupy.arange(3.0), cupy.ones(3)).get()
    else:
        z = f(np.asarray(2.0), np.arange(3.0), np.ones(3))
    print(z.tolist(), dict(module_events))
""")


def test_a_second_process_is_served_from_the_cache(device, tmp_path):
    code = SECOND_PROCESS.format(here=HERE, device=device)
    # a cache of its own, with the session's precompiled header and host answers (the first process builds the module)
    env = dict(os.environ, OPKIT_COMPILEDIR=seeded(tmp_path / "cache"))
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert first.stdout.startswith("[1.0, 3.0, 5.0]") and "'built'" in first.stdout, first.stdout
    assert second.stdout.startswith("[1.0, 3.0, 5.0]") and "'built'" not in second.stdout, second.stdout


def _region_key(node, device):
    from opkit.cop.toolchain import identity
    from opkit.cop.generate.codegen import collect_module
    from opkit.cop.generate.region import Region

    with using_device(device) as target:  # the region is generated for the target it names
        return identity.region_key(collect_module(Region.from_nodes([node], lambda variable: True, target=target)))


def test_the_modules_identity_covers_the_device_and_the_cuda_kernels(monkeypatch):
    pytest.importorskip("opkit.cop.toolchain.nvrtc")
    from opkit.cop.kernels import nvrtc_missing_message
    from opkit.gpu import kernel_hooks, runtime

    if nvrtc_missing_message():
        pytest.skip(nvrtc_missing_message())
    node = Axpy()(og.scalar(dtype="float32"), og.vector(dtype="float32"), og.vector(dtype="float32")).owner
    interpreted = _region_key(node, "cuda-interpret")
    assert _region_key(node, "cuda-interpret") == interpreted
    monkeypatch.setattr(runtime, "_device_problem", lambda: "")  # the key needs no GPU: NVRTC compiles here
    keys = {}
    for arch in ("sm_80", "sm_90"):
        monkeypatch.setattr(kernel_hooks, "device_arch", lambda arch=arch: arch)
        keys[arch] = _region_key(node, "cuda")
    assert len({interpreted, keys["sm_80"], keys["sm_90"]}) == 3
    assert _region_key(node, "cuda") == keys["sm_90"]


def test_the_cuda_host_module_builds_without_a_gpu(monkeypatch):
    """The host part of a GPU node compiles with g++ here, against no CUDA header (it cannot run here)."""
    pytest.importorskip("opkit.cop.toolchain.nvrtc")
    from opkit.cop.kernels import nvrtc_missing_message
    from opkit.gpu import kernel_hooks, runtime

    if nvrtc_missing_message():
        pytest.skip(nvrtc_missing_message())
    if og.has_device():
        pytest.skip("a CUDA device is here: the launch tests build and run it")
    monkeypatch.setattr(runtime, "_device_problem", lambda: "")
    monkeypatch.setattr(kernel_hooks, "device_arch", lambda: "sm_90")
    a, x, y = og.scalar("a", dtype="float32"), og.vector("x", dtype="float32"), og.vector("y", dtype="float32")
    f = opkit.function([a, x, y], axpy(a, x, y), mode=opkit.Mode(device="cuda"))
    assert callable(f)


class MethodTwice(opkit.Op):
    """A GPU op written with methods: c_kernels (the kernels) and c_code (the host code), no .c file."""

    __props__ = ()

    def make_node(self, x):
        x = to_gpu(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2

    def c_kernels(self, node, name):
        return ('extern "C" __global__ void APPLY_SPECIFIC(twice)(npy_intp n, const DTYPE_INPUT_0* x, '
                'DTYPE_OUTPUT_0* y)\n{\n    npy_intp i = (npy_intp)blockIdx.x * blockDim.x + threadIdx.x;\n'
                '    if (i < n) y[i] = 2 * x[i];\n}\n')

    def c_code(self, node, name, inputs, outputs, sub):
        x, y, fail = inputs[0], outputs[0], sub["fail"]
        return (f"npy_intp n = {x}->dims[0];\n"
                f"if (opkit_gpu_empty(&{y}, 1, {x}->dims, {x}->typenum)) {fail}\n"
                f"#define APPLY_SPECIFIC(str) str##_{name}\n"
                f"if (n > 0 && OPKIT_LAUNCH(twice, (int)((n + 63) / 64), 64, 0, n, "
                f"(const npy_float64*){x}->data, (npy_float64*){y}->data)) {fail}\n"
                f"#undef APPLY_SPECIFIC\n")


def test_an_op_with_c_kernels_and_c_code_methods(device):
    x = og.vector("x", dtype="float64")
    f = opkit.function([x], MethodTwice()(x), mode=opkit.Mode(device=device))
    for n in (0, 1, 100):
        np.testing.assert_array_equal(to_numpy(f(on_device(device, np.arange(float(n))))), np.arange(float(n)) * 2)


def test_a_kernel_the_interpreter_cannot_run_is_refused(tmp_path):
    source = tmp_path / "asm_op.c"
    source.write_text('#section kernels\nextern "C" __global__ void APPLY_SPECIFIC(k)(DTYPE_OUTPUT_0* y)\n{\n'
                      '    asm("trap;");\n}\n\n#section code\nif (opkit_gpu_empty(&OUTPUT_0, 0, NULL, '
                      'TYPENUM_OUTPUT_0)) FAIL;\nif (OPKIT_LAUNCH(k, 1, 1, 0, (DTYPE_OUTPUT_0*)OUTPUT_0->data)) FAIL;\n')

    class AsmOp(opkit.COp):
        __props__ = ()

        def __init__(self):
            super().__init__(str(source))

        def make_node(self):
            return opkit.Apply(self, [], [GpuArrayType("float32", ())()])

    with pytest.raises(opkit.CompileError, match=r"inline assembly \(asm\).*|asm_op.c:4"):
        opkit.function([], AsmOp()(), mode=opkit.Mode(device="cuda-interpret"))


@pytest.mark.parametrize("option", ["--fmad=true", "-use_fast_math", "--ftz=true"])
def test_kernels_asking_nvrtc_to_contract_or_approximate_are_refused_by_the_interpreter(option):
    class FastTwice(MethodTwice):
        def c_kernel_options(self, node):
            return [option]

    x = og.vector("x", dtype="float64")
    with pytest.raises(opkit.CompileError, match=rf"FastTwice's kernels ask NVRTC for {option} .*cannot reproduce"):
        opkit.function([x], FastTwice()(x), mode=opkit.Mode(device="cuda-interpret"))


def test_nvrtc_rounds_each_operation_unless_told_otherwise():
    from opkit.cop.kernels import kernel_options

    assert "--fmad=false" in kernel_options([])  # a*b+c rounded twice: numpy's, the CPU path's, the interpreter's
    assert "--fmad=false" not in kernel_options(["--fmad=true"])
    assert "--fmad=false" not in kernel_options(["-use_fast_math"])


@needs_gpu
def test_values_are_cupy_arrays_on_the_current_stream():
    import cupy

    f = _axpy_function("cuda", "float32")
    with cupy.cuda.Stream() as stream:
        z = f(cupy.asarray(np.float32(2)), cupy.arange(4, dtype="float32"), cupy.ones(4, dtype="float32"))
        stream.synchronize()
    assert isinstance(z, cupy.ndarray)
    np.testing.assert_array_equal(z.get(), [1, 3, 5, 7])
