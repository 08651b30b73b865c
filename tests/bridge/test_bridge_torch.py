"""opkit ops from PyTorch (opkit.bridge.torch): eager, torch.compile(fullgraph=True), autograd, opcheck, dtypes, errors.

torch.compile uses the "aot_eager" backend: it traces with the op's fake
implementation and runs AOTAutograd (forward and backward graphs, the gradient
custom op included) as inductor does, without inductor's C++ code generation,
which costs 20-30 s of compiling per graph here. Compiled things are shared
through module-scoped fixtures.
"""

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opkit
import opkit.scalar
import opkit.tensor as ot
from opkit.cli import main as opkit_main
from opkit.core.scalar_type import DTYPES

torch = pytest.importorskip(
    "torch", reason="the torch bridge needs PyTorch; its CPU build (about 200 MB; PyPI's Linux wheel is a CUDA build "
                    "of about 3 GB): pip install torch --index-url https://download.pytorch.org/whl/cpu")
bridge = pytest.importorskip("opkit.bridge.torch")
from opkit.bridge import torch_dtypes  # noqa: E402  (after the importorskip of torch)

from conftest import ROOT  # noqa: E402


@pytest.fixture(scope="module")
def vtv_grad(vtv_class):
    """The tutorial's op with the tutorial's infer_shape and a grad that uses the op itself."""

    class VectorTimesVectorGrad(vtv_class):
        def grad(self, inputs, output_grads):
            (x, y), (gz,) = inputs, output_grads
            return [self(gz, y), self(gz, x)]

        def infer_shape(self, node, input_shapes):
            return [input_shapes[0]]

    return VectorTimesVectorGrad()


@pytest.fixture(scope="module")
def scaffold(tmp_path_factory):
    """The classes of `opkit new plain_ops` and `opkit new scaled_ops --params`, imported from their src/."""
    base = tmp_path_factory.mktemp("scaffold")
    assert opkit_main(["new", "plain_ops", "--directory", str(base)]) == 0
    assert opkit_main(["new", "scaled_ops", "--params", "--directory", str(base)]) == 0
    paths = [str(base / name / "src") for name in ("plain_ops", "scaled_ops")]
    sys.path[:0] = paths
    try:
        from plain_ops import PlainOps
        from scaled_ops import ScaledOps
    finally:
        del sys.path[:2]
    yield PlainOps, ScaledOps
    for name in [m for m in sys.modules if m.split(".")[0] in ("plain_ops", "scaled_ops")]:
        del sys.modules[name]


@pytest.fixture(scope="module")
def ops(vtv_grad, scaffold):
    """The ops run through every path: the tutorial's (with grad and infer_shape) and the scaffold's."""
    return {"tutorial": vtv_grad, "scaffold": scaffold[0]()}


OPS = ("tutorial", "scaffold")


def _pair(n=6, dtype=torch.float64, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return (torch.rand(n, dtype=dtype, generator=generator) + 0.5,
            torch.rand(n, dtype=dtype, generator=generator) - 0.5)


# ---- one custom op per op ----


def test_equal_ops_give_one_custom_op_in_the_opkit_namespace(vtv_grad, scaffold):
    bridged = bridge.as_torch_op(vtv_grad)
    assert bridge.as_torch_op(type(vtv_grad)()) is bridged  # an equal op: the same op, no second registration
    assert bridged._namespace == "opkit" and bridged._name.startswith("VectorTimesVectorGrad_")
    assert getattr(torch.ops.opkit, bridged._name).default is not None
    scaled = scaffold[1]
    assert bridge.as_torch_op(scaled(2.0)) is bridge.as_torch_op(scaled(2.0))
    assert bridge.as_torch_op(scaled(2.0)) is not bridge.as_torch_op(scaled(3.0))


# ---- eager ----


def test_the_tutorial_op_gives_numpys_result_in_eager_mode(vtv_class):
    bridged = bridge.as_torch_op(vtv_class())  # the tutorial's op as it is: no grad, no infer_shape
    x, y = _pair(9)
    np.testing.assert_array_equal(bridged(x, y).numpy(), x.numpy() * y.numpy())
    wide = torch.rand(18, dtype=torch.float64)
    np.testing.assert_array_equal(bridged(wide[::2], wide[1::2]).numpy(), wide.numpy()[::2] * wide.numpy()[1::2])
    mixed = bridged(torch.linspace(-2, 2, 5, dtype=torch.float32), torch.arange(5, dtype=torch.int32))
    assert mixed.dtype == torch.float64  # numpy's float32 * int32
    np.testing.assert_array_equal(mixed.numpy(), np.linspace(-2, 2, 5, dtype="float32") * np.arange(5, dtype="int32"))
    with pytest.raises(ValueError, match=r"Shape mismatch.*x.shape\[0\] == 3 and y.shape\[0\] == 2"):
        bridged(torch.ones(3, dtype=torch.float64), torch.ones(2, dtype=torch.float64))


@pytest.mark.parametrize("which", OPS)
def test_eager_gives_numpys_result_and_a_fresh_output(ops, which):
    bridged = bridge.as_torch_op(ops[which])
    x, y = _pair()
    first = bridged(x, y)
    second = bridged(x + 1, y)
    np.testing.assert_allclose(first.numpy(), x.numpy() * y.numpy(), rtol=1e-15)
    np.testing.assert_allclose(second.numpy(), (x.numpy() + 1) * y.numpy(), rtol=1e-15)
    assert first.data_ptr() != second.data_ptr()


def test_inputs_reach_opkit_and_outputs_come_back_without_a_copy():
    base = torch.arange(12, dtype=torch.float64)
    for tensor in (base, base[::3], base.view(3, 4).t()):  # contiguous, strided, transposed
        array = torch_dtypes.as_array(tensor, "op")
        assert array.ctypes.data == tensor.data_ptr() and array.strides == tuple(s * 8 for s in tensor.stride())
    needs_grad = base.clone().requires_grad_()
    assert torch_dtypes.as_array(needs_grad, "op").ctypes.data == needs_grad.data_ptr()
    out = np.arange(5.0)
    assert torch_dtypes.as_tensor(out).data_ptr() == out.ctypes.data
    # a layout torch cannot take as it is (negative strides), or an output aliasing an input, is copied
    reversed_ = torch_dtypes.as_tensor(out[::-1])
    assert reversed_.is_contiguous() and reversed_.tolist() == [4.0, 3.0, 2.0, 1.0, 0.0]
    assert torch_dtypes.as_tensor(out[1:], [out], copy_if_shared=True).data_ptr() != out[1:].ctypes.data
    conj = torch.tensor([1 + 2j, 3 - 1j]).conj()
    np.testing.assert_array_equal(torch_dtypes.as_array(conj, "op"), [1 - 2j, 3 + 1j])
    negative = conj.imag  # a view with torch's negative bit: numpy would read the unnegated numbers
    assert negative.is_neg()
    np.testing.assert_array_equal(torch_dtypes.as_array(negative, "op"), [-2.0, 1.0])


def test_lazy_conjugate_and_negative_views_reach_the_op_resolved():
    z64 = ot.TensorType("complex64", shape=(None,))
    multiply = (z64() * z64()).owner.op
    bridged = bridge.as_torch_op(multiply, n_inputs=2)
    z = torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex64)
    np.testing.assert_array_equal(bridged(z.conj(), z).numpy(), np.conj(z.numpy()) * z.numpy())
    negative = torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex128).conj().imag
    np.testing.assert_array_equal(bridged(negative, negative).numpy(), np.array([4.0, 1.0]))


# ---- torch.compile(fullgraph=True) ----


@pytest.fixture(scope="module")
def compiled(ops):
    """Per op: loss(x, y) = sum(op(x, y) * 2 + 1), compiled with fullgraph=True and dynamic shapes."""
    made = {}
    for which, op in ops.items():
        bridged = bridge.as_torch_op(op)
        made[which] = torch.compile(lambda x, y, f=bridged: (f(x, y) * 2 + 1).sum(), fullgraph=True,
                                    backend="aot_eager", dynamic=True)
    return made


@pytest.mark.parametrize("which", OPS)
def test_torch_compile_fullgraph_gives_numpys_result_and_gradient(compiled, which):
    for n in (6, 11):  # a second length runs the same graph (symbolic sizes through infer_shape)
        x, y = (t.requires_grad_() for t in _pair(n, seed=n))
        loss = compiled[which](x, y)
        np.testing.assert_allclose(loss.item(), (x.detach().numpy() * y.detach().numpy() * 2 + 1).sum(), rtol=1e-14)
        loss.backward()
        np.testing.assert_allclose(x.grad.numpy(), 2 * y.detach().numpy(), rtol=1e-15)
        np.testing.assert_allclose(y.grad.numpy(), 2 * x.detach().numpy(), rtol=1e-15)


def test_the_fake_implementation_gives_shapes_on_meta_tensors(vtv_grad):
    bridged = bridge.as_torch_op(vtv_grad)
    out = bridged(torch.empty(7, device="meta", dtype=torch.float32), torch.empty(7, device="meta", dtype=torch.int8))
    assert (out.shape, out.dtype, out.device.type) == ((7,), torch.float32, "meta")


# ---- autograd and opcheck ----


@pytest.mark.parametrize("which", OPS)
def test_gradcheck_in_float64(ops, which):
    x, y = (t.requires_grad_() for t in _pair())
    assert torch.autograd.gradcheck(bridge.as_torch_op(ops[which]), (x, y))


@pytest.mark.parametrize("which", OPS)
def test_opcheck_passes(ops, which):
    x, y = (t.requires_grad_() for t in _pair(5))
    bridged = bridge.as_torch_op(ops[which])
    torch.library.opcheck(bridged, (x, y))
    gradient = bridge.bridge_of(bridged).gradient  # the custom op running the op's grad
    torch.library.opcheck(gradient, (x.detach(), y.detach(), torch.ones(5, dtype=torch.float64)),
                          test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))


# ---- params ----


@pytest.mark.parametrize("scale", [0.5, -3.0])
def test_a_params_op_gives_each_params_value(scaffold, scale):
    op = scaffold[1](scale)
    bridged = bridge.as_torch_op(op)
    x, y = (t.requires_grad_() for t in _pair(5))
    np.testing.assert_allclose(bridged(x, y).detach().numpy(), x.detach().numpy() * y.detach().numpy() * scale,
                               rtol=1e-15)
    assert torch.autograd.gradcheck(bridged, (x, y))
    torch.library.opcheck(bridged, (x, y))


# ---- dtypes, both ways ----


def test_every_opkit_dtype_maps_to_torch_and_back():
    assert set(torch_dtypes.TO_TORCH) == set(DTYPES)  # uint16/32/64 included: torch has them since 2.3
    for name in DTYPES:
        dtype = torch_dtypes.to_torch_dtype(name, "op")
        assert dtype is getattr(torch, name)
        assert torch_dtypes.to_opkit_dtype(dtype, "op") == name
        assert torch_dtypes.to_torch_dtype(np.dtype(name), "op") is dtype
        values = torch.tensor([0, 1, 1, 0, 1], dtype=torch.bool).to(dtype) if name != "bool" else \
            torch.tensor([True, False, True])
        array = torch_dtypes.as_array(values, "op")
        assert array.dtype == np.dtype(name)
        back = torch_dtypes.as_tensor(array.copy())
        assert back.dtype is dtype and torch.equal(back, values)


@pytest.mark.parametrize("dtype", DTYPES)
def test_an_op_runs_on_each_dtype_and_gives_numpys_dtype(dtype):
    # opkit's own elementwise multiply: its C handles float16 and complex (the tutorial's C does not)
    multiply = (ot.dvector() * ot.dvector()).owner.op
    bridged = bridge.as_torch_op(multiply, n_inputs=2)
    a = np.array([1, 0, 3, 2, 1]).astype(dtype)
    b = np.array([2, 1, 1, 0, 1]).astype(dtype)
    out = bridged(torch.from_numpy(a), torch.from_numpy(b))
    assert out.dtype is getattr(torch, str((a * b).dtype))
    np.testing.assert_array_equal(out.numpy(), a * b)


def test_a_torch_dtype_without_an_opkit_one_is_refused_naming_it_and_the_op(vtv_grad):
    bridged = bridge.as_torch_op(vtv_grad)
    message = r"VectorTimesVectorGrad: the torch dtype torch.bfloat16 has no opkit \(numpy\) dtype"
    with pytest.raises(bridge.DtypeNotMapped, match=message):
        bridged(torch.ones(3, dtype=torch.bfloat16), torch.ones(3, dtype=torch.bfloat16))
    with pytest.raises(bridge.DtypeNotMapped, match=message):  # the fake implementation too
        bridged(torch.ones(3, dtype=torch.bfloat16, device="meta"), torch.ones(3, dtype=torch.bfloat16, device="meta"))
    with pytest.raises(bridge.DtypeNotMapped, match="the opkit dtype float128 has no torch dtype"):
        torch_dtypes.to_torch_dtype("float128", "op")


def test_an_output_type_without_a_torch_one_is_refused_naming_it():
    @opkit.as_op(itypes=[ot.dvector], otypes=[opkit.scalar.float64], infer_shape=lambda node, shapes: [()])
    def total(x):
        return float(x.sum())

    with pytest.raises(bridge.DtypeNotMapped, match=r"total: output 0 is of type .*float64.*, which has no torch "
                                                    r"counterpart \(the torch bridge maps tensor types\)"):
        bridge.as_torch_op(total)(torch.ones(3, dtype=torch.float64, device="meta"))


# ---- errors ----


def test_a_tensor_off_the_cpu_is_refused_the_op_has_no_gpu_kernel(vtv_grad):
    run = bridge.bridge_of(bridge.as_torch_op(vtv_grad)).run  # the eager body: what a CUDA tensor reaches
    meta = torch.ones(3, device="meta", dtype=torch.float64)
    with pytest.raises(NotImplementedError, match=r"VectorTimesVectorGrad has no GPU kernel: opkit runs it on CPU "
                                                  r"tensors only, and this input is on meta; move the inputs"):
        run(meta, meta)
    if torch.cuda.is_available():  # on a machine with a GPU, through the dispatcher
        cuda = torch.ones(3, device="cuda", dtype=torch.float64)
        with pytest.raises(NotImplementedError, match="has no GPU kernel.*on cuda:0"):
            bridge.as_torch_op(vtv_grad)(cuda, cuda)


@pytest.fixture(scope="module")
def first_n():
    """An op whose output length is the value of its second input: its shape depends on values."""

    @opkit.as_op(itypes=[ot.dvector, ot.lscalar], otypes=[ot.dvector],
                 infer_shape=lambda node, shapes: [(node.inputs[1],)])
    def first_n(x, n):
        return x[:int(n)].copy()

    return first_n


def test_opkits_broadcasting_ops_trace_under_torch_compile_and_raise_numpys_broadcast_error():
    # The shape of an elementwise node comes from BroadcastAxis and shape checks, evaluated by their perform
    mul = bridge.as_torch_op((ot.dmatrix("x") * ot.dvector("y")).owner.op, n_inputs=2)
    f = torch.compile(lambda p, q: mul(p, q) * 2, fullgraph=True, backend="aot_eager")
    a, b = torch.randn(3, 4, dtype=torch.float64), torch.randn(4, dtype=torch.float64)
    assert torch.equal(f(a, b), a * b * 2)
    assert f(torch.zeros(0, 4, dtype=torch.float64), b).shape == (0, 4)
    a.requires_grad_(), b.requires_grad_()
    assert torch.autograd.gradcheck(mul, (a[:, ::2], b[::2]))
    message = r"the inputs of mul with shapes \(3, 4\), \(5,\) cannot be broadcast together: axis 1 has lengths \[4, 5\]"
    with pytest.raises(ValueError, match=message):
        mul(torch.ones(3, 4, dtype=torch.float64), torch.ones(5, dtype=torch.float64))
    with pytest.raises(Exception, match=message):  # torch.compile wraps it in its own error
        f(torch.ones(3, 4, dtype=torch.float64), torch.ones(5, dtype=torch.float64))


def test_a_value_dependent_shape_is_refused_under_torch_compile_naming_the_op(first_n):
    bridged = bridge.as_torch_op(first_n)
    x, n = torch.arange(5.0, dtype=torch.float64), torch.tensor(3)
    np.testing.assert_array_equal(bridged(x, n).numpy(), [0.0, 1.0, 2.0])  # eager runs it
    message = ("the output shape of first_n depends on the values of its input .*, not only on input shapes: "
               "torch.compile cannot know it before running the op")
    with pytest.raises(Exception, match=message):
        torch.compile(lambda a, b: bridged(a, b) + 1, fullgraph=True, backend="aot_eager")(x, n)
    with pytest.raises(bridge.ShapeNotKnown, match=message):
        bridged(x.to("meta"), n.to("meta"))


def test_an_op_without_infer_shape_is_refused_under_torch_compile_naming_the_op(vtv_class):
    bridged = bridge.as_torch_op(vtv_class())
    meta = torch.ones(3, device="meta", dtype=torch.float64)
    with pytest.raises(bridge.ShapeNotKnown, match="VectorTimesVector has no infer_shape, so its output shape is not "
                                                   "known without running it; torch.compile"):
        bridged(meta, meta)


def test_an_op_without_grad_says_so_when_torch_asks_for_its_gradient(vtv_class):
    x, y = (t.requires_grad_() for t in _pair(3))
    out = bridge.as_torch_op(vtv_class())(x, y)
    with pytest.raises(Exception, match="VectorTimesVector"):
        out.sum().backward()


def test_arity_errors_name_the_op_and_the_fix():
    class Variadic(opkit.Op):
        __props__ = ()

        def make_node(self, *inputs):
            raise AssertionError("not reached")

    with pytest.raises(TypeError, match=r"as_torch_op\(Variadic\): its make_node takes any number of inputs; say "
                                        r"how many the torch op takes with as_torch_op\(op, n_inputs=N\)"):
        bridge.as_torch_op(Variadic())

    @opkit.as_op(itypes=[ot.dvector], otypes=[ot.dvector, ot.dvector])
    def halves(x):
        return [x / 2, x * 2]

    two = bridge.as_torch_op(halves)
    low, high = two(torch.tensor([2.0, 4.0], dtype=torch.float64))
    assert low.tolist() == [1.0, 2.0] and high.tolist() == [4.0, 8.0]
    with pytest.raises(TypeError, match=r"halves made 2 outputs; bridge it with as_torch_op\(op, n_outputs=2\)"):
        bridge.as_torch_op(halves, n_outputs=1)(torch.tensor([2.0], dtype=torch.float64))


def test_import_opkit_does_not_import_torch():
    script = ("import opkit, opkit.bridge, opkit.tensor, sys, json\n"
              "print(json.dumps([m for m in sys.modules if m.split('.')[0] == 'torch' or m == 'opkit.bridge.torch']))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(result.stdout) == []


def test_the_benchmark_figure_runs_and_reports_its_ratio(tmp_path):
    report = tmp_path / "report.json"
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--only", "torch_bridge_1",
                             "--no-pytensor", "--json", str(report)], capture_output=True, text=True, timeout=600,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    [figure] = json.loads(report.read_text())["figures"]
    assert figure["baseline"] == "torch custom_op (empty)"
    assert {"opkit", "torch a*b", "op.compute"} <= set(figure["contenders"])
    assert "bridged / empty custom_op: " in result.stdout


# ---- more of eager and autograd: any length and stride; gradients torch does not ask for ----


@given(n=st.integers(0, 12), step=st.integers(1, 3), offset=st.integers(0, 2), flip=st.booleans())
@settings(max_examples=25, deadline=None)
def test_any_length_and_stride_gives_numpys_result(vtv_grad, n, step, offset, flip):
    bridged = bridge.as_torch_op(vtv_grad)  # compiled once for float64 vectors: the examples reuse it
    base = torch.arange(n * step + offset, dtype=torch.float64) * 0.5 - 1
    x = base[offset::step][:n]
    y = (x.flip(0) if flip else x) + 2
    np.testing.assert_array_equal(bridged(x, y).numpy(), x.numpy() * y.numpy())


@pytest.fixture(scope="module")
def undefined_grad(vtv_class):
    """The tutorial's op whose gradient with respect to y is undefined (NullType)."""
    from opkit.core.gradient_types import grad_undefined

    class HalfGrad(vtv_class):
        def grad(self, inputs, output_grads):
            (x, y), (gz,) = inputs, output_grads
            return [self(gz, y), grad_undefined(self, 1, y, "y is a count here")]

        def infer_shape(self, node, input_shapes):
            return [input_shapes[0]]

    return HalfGrad()


def test_an_undefined_gradient_is_refused_only_when_torch_asks_for_it(undefined_grad):
    bridged = bridge.as_torch_op(undefined_grad)
    x, y = _pair(4)
    x.requires_grad_()
    bridged(x, y).sum().backward()  # y needs no gradient: its undefined one is never asked for
    np.testing.assert_array_equal(x.grad.numpy(), y.numpy())
    y.requires_grad_()
    with pytest.raises(NotImplementedError, match=r"the gradient of HalfGrad for input 1: This variable is Null "
                                                  r"because the grad method for input 1 .* is mathematically "
                                                  r"undefined. y is a count here"):
        bridged(x, y).sum().backward()


def test_the_custom_op_name_is_the_same_in_another_process(vtv_class):
    script = ("import sys; sys.path.insert(0, sys.argv[1])\n"
              "from vector_times_vector.op import VectorTimesVector\n"
              "from opkit.bridge.torch import as_torch_op\n"
              "print(as_torch_op(VectorTimesVector())._name)")
    result = subprocess.run([sys.executable, "-c", script, str(ROOT / "examples" / "vector_times_vector")],
                            capture_output=True, text=True, check=True, timeout=300)
    assert result.stdout.strip() == bridge.as_torch_op(vtv_class())._name


def test_an_as_op_with_static_shapes_in_its_itypes_traces_and_runs():
    @opkit.as_op(itypes=[ot.TensorType("float64", shape=(3,))], otypes=[ot.TensorType("float64", shape=(3,))],
                 infer_shape=lambda node, shapes: shapes)
    def reverse3(x):
        return x[::-1].copy()

    bridged = bridge.as_torch_op(reverse3)
    assert bridged(torch.empty(3, device="meta", dtype=torch.float64)).shape == (3,)
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    assert bridged(x).tolist() == [3.0, 2.0, 1.0]
    compiled = torch.compile(lambda t: bridged(t) * 2, fullgraph=True, backend="aot_eager")
    assert compiled(x).tolist() == [6.0, 4.0, 2.0]


def test_two_params_values_called_in_turn_each_keep_their_own(scaffold):
    first, second = bridge.as_torch_op(scaffold[1](0.5)), bridge.as_torch_op(scaffold[1](-3.0))
    x, y = _pair(4)
    expected = x.numpy() * y.numpy()
    for _ in range(2):  # one compiled module serves both values (params are run-time data): no mix-up
        np.testing.assert_allclose(first(x, y).numpy(), expected * 0.5, rtol=1e-15)
        np.testing.assert_allclose(second(x, y).numpy(), expected * -3.0, rtol=1e-15)
