"""opkit.bridge.jax: opkit ops under jax.jit (XLA FFI, no Python callback), grad, jvp and vmap."""

import pathlib
import sys
import threading

import numpy as np
import pytest

jax = pytest.importorskip(
    "jax", reason="the JAX bridge needs JAX; its CPU build: pip install jax (or pip install 'opkit-sdk[jax]')")
jnp = pytest.importorskip("jax.numpy")
from jax.test_util import check_grads  # noqa: E402

import opkit  # noqa: E402
import opkit.tensor as ot  # noqa: E402
from opkit.cli import main  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
OPKIT_DIR = str(ROOT / "opkit")


@pytest.fixture(scope="module", autouse=True)
def x64():
    """float64 through JAX (check_grads in double precision); restored after the module."""
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", old)


@pytest.fixture(scope="module")
def bridge():
    import opkit.bridge.jax

    return opkit.bridge.jax


def _import_from(directory, module, name):
    sys.path.insert(0, str(directory))
    try:
        return getattr(__import__(module, fromlist=[name]), name)
    finally:
        sys.path.remove(str(directory))


@pytest.fixture(scope="module")
def tutorial_class():
    """The tutorial's VectorTimesVector (examples/), exactly as the tutorial writes it: no infer_shape, no grad."""
    return _import_from(ROOT / "examples" / "vector_times_vector", "vector_times_vector.op", "VectorTimesVector")


@pytest.fixture(scope="module")
def vtv(tutorial_class):
    """The tutorial's op with what JAX needs from it: infer_shape (shapes before the call) and grad."""

    class VectorTimesVector(tutorial_class):
        def infer_shape(self, node, input_shapes):
            return [input_shapes[0]]

        def grad(self, inputs, output_grads):
            x, y = inputs
            return [output_grads[0] * y, output_grads[0] * x]

    return VectorTimesVector()


@pytest.fixture(scope="module")
def scaffold(tmp_path_factory):
    """The op `opkit new --params` scaffolds (its PARAMS->scale is run-time data of the compiled module)."""
    directory = tmp_path_factory.mktemp("scaffold")
    assert main(["new", "jaxed_ops", "--params", "--directory", str(directory)]) == 0
    return _import_from(directory / "jaxed_ops" / "src", "jaxed_ops.op", "JaxedOps")


@pytest.fixture(scope="module")
def double_op():
    """The tutorial plugin's DoubleOp: Python perform only (no C), with infer_shape, grad and R_op."""
    return _import_from(ROOT / "plugins" / "opkit-tutorial-ops", "opkit_tutorial_ops.double_op", "DoubleOp")()


def _vectors(rng, n=7):
    return jnp.asarray(rng.standard_normal(n)), jnp.asarray(rng.standard_normal(n))


# ---- the tutorial's op: jit, jvp, grad (both modes), vmap ----

def test_tutorial_op_under_jit_gives_numpys_product(bridge, vtv, opkit_rng):
    x, y = _vectors(opkit_rng)
    out = jax.jit(bridge.as_jax_op(vtv))(x, y)
    assert out.dtype == jnp.float64 and out.shape == (7,)
    np.testing.assert_allclose(np.asarray(out), np.asarray(x) * np.asarray(y), rtol=0, atol=0)


def test_tutorial_op_mixed_dtypes_upcast_as_numpy_does(bridge, vtv):
    a = jnp.arange(5, dtype=jnp.int32)
    b = jnp.linspace(0.0, 1.0, 5, dtype=jnp.float32)
    out = jax.jit(bridge.as_jax_op(vtv))(a, b)
    expected = np.arange(5, dtype=np.int32) * np.linspace(0.0, 1.0, 5, dtype=np.float32)
    assert out.dtype == expected.dtype == np.float64
    np.testing.assert_allclose(np.asarray(out), expected, rtol=0, atol=0)


def test_tutorial_op_gradients_check_in_both_modes(bridge, vtv, opkit_rng):
    f = bridge.as_jax_op(vtv)
    check_grads(f, _vectors(opkit_rng), order=1, modes=("fwd", "rev"))
    check_grads(jax.jit(f), _vectors(opkit_rng), order=1, modes=("fwd", "rev"))


def test_tutorial_op_jvp_and_grad_values(bridge, vtv, opkit_rng):
    f = bridge.as_jax_op(vtv)
    x, y = _vectors(opkit_rng)
    tx, ty = _vectors(opkit_rng)
    out, tangent = jax.jit(lambda *a: jax.jvp(f, a[:2], a[2:]))(x, y, tx, ty)
    np.testing.assert_allclose(np.asarray(tangent), np.asarray(tx * y + x * ty), rtol=1e-15)
    gx, gy = jax.jit(jax.grad(lambda a, b: jnp.sum(f(a, b) ** 2), argnums=(0, 1)))(x, y)
    np.testing.assert_allclose(np.asarray(gx), np.asarray(2 * x * y * y), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(gy), np.asarray(2 * x * x * y), rtol=1e-14)


def test_tutorial_op_under_vmap_runs_once_per_batch_element(bridge, vtv, opkit_rng):
    f = bridge.as_jax_op(vtv)
    xs = jnp.asarray(opkit_rng.standard_normal((3, 5)))
    y = jnp.asarray(opkit_rng.standard_normal(5))
    out = jax.jit(jax.vmap(f, in_axes=(0, None)))(xs, y)
    np.testing.assert_allclose(np.asarray(out), np.asarray(xs) * np.asarray(y), rtol=0, atol=0)
    text = str(jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(xs, y))
    assert "vmap_method=sequential" in text


# ---- the scaffold's op (ParamsType): two scales, gradients, vmap ----

@pytest.mark.parametrize("scale", [0.5, -3.0])
def test_scaffold_op_each_scale_gives_numpys_answer(bridge, scaffold, scale, opkit_rng):
    x, y = _vectors(opkit_rng)
    f = bridge.as_jax_op(scaffold(scale))
    np.testing.assert_allclose(np.asarray(jax.jit(f)(x, y)), np.asarray(x * y) * scale, rtol=1e-15)
    check_grads(f, (x, y), order=1, modes=("fwd", "rev"))


def test_two_scales_in_one_jitted_function_keep_their_own_params(bridge, scaffold, opkit_rng):
    x, y = _vectors(opkit_rng)
    half, triple = bridge.as_jax_op(scaffold(0.5)), bridge.as_jax_op(scaffold(3.0))
    out = jax.jit(lambda a, b: half(a, b) - triple(a, b))(x, y)
    np.testing.assert_allclose(np.asarray(out), np.asarray(x * y) * -2.5, rtol=1e-14)
    out = jax.jit(jax.vmap(half))(jnp.stack([x, y]), jnp.stack([y, x]))
    np.testing.assert_allclose(np.asarray(out), np.stack([x * y, x * y]) * 0.5, rtol=1e-15)


# ---- an op with R_op and Python perform only: R_op drives jvp; the handler runs perform ----

def test_python_only_op_with_r_op(bridge, double_op, opkit_rng):
    f = bridge.as_jax_op(double_op)
    x = jnp.asarray(opkit_rng.standard_normal((2, 3)))
    np.testing.assert_array_equal(np.asarray(jax.jit(f)(x)), 2 * np.asarray(x))
    # on a 0-d array, perform's 2 * x is a numpy scalar: the handler takes it as a 0-d array
    assert float(jax.jit(f)(jnp.asarray(1.5))) == 3.0
    assert float(jax.grad(f)(1.5)) == 2.0
    check_grads(f, (x,), order=1, modes=("fwd", "rev"))
    _, tangent = jax.jvp(f, (x,), (jnp.ones_like(x),))
    np.testing.assert_array_equal(np.asarray(tangent), np.full((2, 3), 2.0))


# ---- an Elemwise op: vmap batches through opkit's broadcasting, in one call ----

def test_elementwise_op_under_vmap_is_one_batched_call(bridge, opkit_rng):
    f = bridge.as_jax_op(ot.mul)
    x = jnp.asarray(opkit_rng.standard_normal(4))
    ys = jnp.asarray(opkit_rng.standard_normal((3, 4)))
    g = jax.vmap(f, in_axes=(None, 0))
    np.testing.assert_allclose(np.asarray(jax.jit(g)(x, ys)), np.asarray(x) * np.asarray(ys), rtol=0, atol=0)
    text = str(jax.make_jaxpr(g)(x, ys))
    assert text.count("ffi_call[") == 1 and "result_avals=(ShapedArray(float64[3,4]),)" in text
    check_grads(f, (x, ys[0]), order=1, modes=("fwd", "rev"))


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0), (1, None)])
@pytest.mark.parametrize("x_shape, y_shape", [((3, 4), (4,)), ((4,), (3, 4)), ((), (2, 3)), ((2, 1), (5,)), ((3,), ())])
def test_elementwise_vmap_aligns_examples_of_different_ranks_as_numpy_broadcasts(bridge, opkit_rng, in_axes,
                                                                              x_shape, y_shape):
    # the batch axis goes first, the examples' own axes are aligned on the right, as numpy aligns them
    f = bridge.as_jax_op(ot.mul)
    if in_axes[0] == 1 and len(x_shape) == 0:
        in_axes = (0, None)
    batch = 2
    x = opkit_rng.standard_normal(x_shape if in_axes[0] is None else
                                  x_shape[:in_axes[0]] + (batch,) + x_shape[in_axes[0]:])
    y = opkit_rng.standard_normal(y_shape if in_axes[1] is None else (batch,) + y_shape)
    got = np.asarray(jax.jit(jax.vmap(f, in_axes=in_axes))(jnp.asarray(x), jnp.asarray(y)))
    xs = [x if in_axes[0] is None else np.take(x, k, axis=in_axes[0]) for k in range(batch)]
    ys = [y if in_axes[1] is None else y[k] for k in range(batch)]
    np.testing.assert_array_equal(got, np.stack([a * b for a, b in zip(xs, ys)]))


# ---- dtypes: every shared one through the handler, both ways ----

SHARED = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def test_every_shared_dtype_round_trips_through_the_handler(bridge):
    f = jax.jit(bridge.as_jax_op(ot.mul))
    for dtype in SHARED:
        a = np.array([1, 0, 3], dtype=dtype)
        b = np.array([0, 2, 3], dtype=dtype)
        if dtype.startswith("complex"):
            a, b = a + 1j * np.array([1, 0, -1]), b
            a = a.astype(dtype)
        out = f(jnp.asarray(a), jnp.asarray(b))
        assert out.dtype == np.dtype(dtype), dtype
        np.testing.assert_array_equal(np.asarray(out), a * b)


def test_the_dtype_maps_agree_and_refuse_the_rest(bridge):
    from opkit.bridge.jax_dtypes import SHARED_DTYPES, jax_dtype, opkit_dtype

    assert list(SHARED_DTYPES) == SHARED
    for name in SHARED:
        assert opkit_dtype(jnp.dtype(name), "x") == name
        assert jnp.dtype(jax_dtype(name, "y")) == jnp.dtype(name)
    with pytest.raises(bridge.DtypeNotMapped, match="input 0 of mul has dtype bfloat16, which opkit has no type"):
        opkit_dtype(jnp.bfloat16, "input 0 of mul")
    with pytest.raises(bridge.DtypeNotMapped, match="has dtype float8_e4m3fn"):
        opkit_dtype(jnp.float8_e4m3fn, "x")
    with pytest.raises(bridge.DtypeNotMapped, match="output 0 of op has dtype object, which JAX has no type"):
        jax_dtype("object", "output 0 of op")


def test_bfloat16_input_is_refused_naming_the_op(bridge, vtv):
    x = jnp.ones(3, dtype=jnp.bfloat16)
    with pytest.raises(bridge.DtypeNotMapped, match=r"(?s)input 0 of VectorTimesVector has dtype bfloat16.*"
                                                     r"Hint: cast it first"):
        jax.jit(bridge.as_jax_op(vtv))(x, x)


def test_a_64_bit_output_without_x64_is_refused(bridge, scaffold):
    jax.config.update("jax_enable_x64", False)
    try:
        x, y = jnp.ones(3, dtype=jnp.float32), jnp.ones(3, dtype=jnp.int32)
        with pytest.raises(bridge.DtypeNotMapped, match=r"output 0 of JaxedOps.* has dtype float64, which JAX "
                                                         r"turns into float32 while jax_enable_x64 is off"):
            bridge.as_jax_op(scaffold())(x, y)
    finally:
        jax.config.update("jax_enable_x64", True)


# ---- errors a user can reach ----

def test_not_an_op_is_refused(bridge):
    with pytest.raises(TypeError, match="as_jax_op expects an opkit Op instance, got <function"):
        bridge.as_jax_op(lambda x: x)


def test_an_op_without_infer_shape_says_so(bridge, tutorial_class):
    x = jnp.ones(3)
    with pytest.raises(ValueError, match="VectorTimesVector has no infer_shape, and JAX needs each output's shape "
                                         "before the call"):
        jax.jit(bridge.as_jax_op(tutorial_class()))(x, x)


class _Iota(opkit.Op):
    """iota(n): 0..n-1, a length only the value of n gives."""

    __props__ = ()

    def make_node(self, n):
        n = ot.as_tensor_variable(n)
        return opkit.Apply(self, [n], [ot.TensorType("int64", shape=(None,))()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.arange(int(inputs[0]))

    def infer_shape(self, node, input_shapes):
        return [(node.inputs[0],)]


def test_an_output_shape_that_depends_on_values_is_refused_naming_the_op(bridge):
    with pytest.raises(ValueError, match=r"the shape of output 0 of _Iota depends on the values of its inputs .*"
                                         r"opkit's JAX bridge cannot run this op"):
        jax.jit(bridge.as_jax_op(_Iota()))(jnp.asarray(4))


def test_an_error_of_the_ops_c_code_reaches_jax_with_the_ops_name(bridge, vtv):
    with pytest.raises(Exception, match=r"VectorTimesVector: ValueError: Shape mismatch : input0.shape\[0\] and "
                                        r"input1.shape\[0\] should match") as info:
        jax.jit(bridge.as_jax_op(vtv))(jnp.ones(3), jnp.ones(4)).block_until_ready()
    assert "Apply node that failed" in str(info.value)


def test_an_infer_shape_that_lies_is_caught_by_the_handler(bridge, tutorial_class):
    class Lying(tutorial_class):
        def infer_shape(self, node, input_shapes):
            return [(input_shapes[0][0] + 1,)]

    with pytest.raises(Exception, match=r"output 0 is dtype\('float64'\) of shape \(3,\); XLA expects "
                                        r"dtype\('float64'\) of shape \(4,\) \(from infer_shape"):
        jax.jit(bridge.as_jax_op(Lying()))(jnp.ones(3), jnp.ones(3)).block_until_ready()


def test_complex_gradients_are_refused(bridge):
    z = jnp.ones(2, dtype=jnp.complex128)
    with pytest.raises(NotImplementedError, match="mul has complex inputs or outputs; opkit's JAX bridge does not "
                                                  "differentiate complex functions"):
        jax.jvp(bridge.as_jax_op(ot.mul), (z, z), (z, z))


def test_integer_inputs_have_no_tangent(bridge, vtv):
    f = bridge.as_jax_op(vtv)
    n = jnp.arange(3)
    x = jnp.asarray([0.5, 1.5, -2.0])
    grad = jax.grad(lambda a: jnp.sum(f(n, a)))(x)
    np.testing.assert_array_equal(np.asarray(grad), np.arange(3.0))


# ---- the jitted call runs no Python function of opkit's ----

def _opkit_frames(run):
    """Return the opkit source files whose Python code ran (any thread) during run()."""
    seen = set()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(OPKIT_DIR):
            seen.add(frame.f_code.co_filename)

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return seen


def test_a_warm_jitted_call_enters_no_python_function_of_opkit(bridge, vtv, double_op):
    x = jnp.linspace(0.0, 1.0, 5)
    c_op = jax.jit(bridge.as_jax_op(vtv))
    python_op = jax.jit(bridge.as_jax_op(double_op))
    c_op(x, x).block_until_ready()  # trace, compile and run once: the next call is warm
    python_op(x).block_until_ready()
    # The control: DoubleOp has no C, so its handler call runs opkit's Python runner and the op's thunk,
    # and the profile sees them; so it would see them for the C op too.
    seen = _opkit_frames(lambda: python_op(x).block_until_ready())
    assert str(ROOT / "opkit" / "link" / "runner.py") in seen and str(ROOT / "opkit" / "core" / "op.py") in seen
    assert _opkit_frames(lambda: c_op(x, x).block_until_ready()) == set()
    # the gradient's jitted call: the op's node, then its VJP graph (an opkit Function over one C module)
    c_grad = jax.jit(jax.grad(lambda a, b: jnp.sum(bridge.as_jax_op(vtv)(a, b))))
    c_grad(x, x).block_until_ready()
    assert _opkit_frames(lambda: c_grad(x, x).block_until_ready()) == set()


def test_without_jax_the_bridge_says_which_extra_to_install():
    import subprocess

    code = "import sys; sys.modules['jax'] = None\nimport opkit.bridge.jax"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "ImportError: opkit.bridge.jax needs JAX: pip install 'opkit-sdk[jax]'" in result.stderr


def test_an_op_returning_a_view_of_its_input_is_copied_into_xlas_buffer(bridge, opkit_rng):
    """The handler hands XLA's output buffer to the op's C code; a transpose returns a view of its input
    instead (view_map), which the handler copies in, strides and all."""
    op = ot.transpose(ot.dmatrix("m")).owner.op
    assert op.view_map
    before = opkit_rng.standard_normal((2, 3))
    m = jnp.asarray(before)
    out = jax.jit(bridge.as_jax_op(op))(m)
    np.testing.assert_array_equal(np.asarray(out), before.T)
    np.testing.assert_array_equal(np.asarray(m), before)


def test_an_op_that_writes_into_its_input_leaves_xlas_input_alone(bridge):
    """An op with destroy_map runs through the compiled function, which gives it a copy of its input."""
    from helpers.trust_ops import AddOneInplace

    class Shaped(AddOneInplace):
        def infer_shape(self, node, input_shapes):
            return [input_shapes[0]]

    before = np.arange(4.0)
    x = jnp.asarray(before)
    out = jax.jit(bridge.as_jax_op(Shaped()))(x)
    np.testing.assert_array_equal(np.asarray(out), before + 1)
    np.testing.assert_array_equal(np.asarray(x), before)



def test_float32_without_x64_stays_float32_through_grad_and_jvp(bridge, scaffold):
    """JAX's default (x64 off): the op, its JVP and its VJP (whose scale is a float64 param) give float32."""
    jax.config.update("jax_enable_x64", False)
    try:
        f = bridge.as_jax_op(scaffold(3.0))
        x = jnp.arange(3.0, dtype=jnp.float32)
        out, tangent = jax.jvp(f, (x, x), (jnp.ones(3, jnp.float32), jnp.zeros(3, jnp.float32)))
        grad = jax.jit(jax.grad(lambda a: jnp.sum(f(a, x))))(x)
        assert out.dtype == tangent.dtype == grad.dtype == jnp.float32
        np.testing.assert_allclose(np.asarray(tangent), 3 * np.arange(3.0), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(grad), 3 * np.arange(3.0), rtol=1e-6)
    finally:
        jax.config.update("jax_enable_x64", True)


def test_any_length_and_values_match_numpy(bridge, vtv):
    """Property: for vectors of any length (empty too) and finite values, jit and grad agree with numpy."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    f = bridge.as_jax_op(vtv)
    jitted = jax.jit(f)
    grad = jax.jit(jax.grad(lambda a, b: jnp.sum(f(a, b)), argnums=(0, 1)))
    values = st.floats(-1e6, 1e6, allow_nan=False)

    @settings(max_examples=8, deadline=None)
    @given(st.integers(0, 4).flatmap(lambda n: st.tuples(hnp.arrays(np.float64, n, elements=values),
                                                         hnp.arrays(np.float64, n, elements=values))))
    def check(pair):
        a, b = pair
        np.testing.assert_array_equal(np.asarray(jitted(a, b)), a * b)
        ga, gb = grad(a, b)
        np.testing.assert_array_equal(np.asarray(ga), b)
        np.testing.assert_array_equal(np.asarray(gb), a)

    check()


class _TwiceAndSign(opkit.Op):
    """Two outputs: 2 * x (float) and x > 0 (int8, no tangent); Python perform only."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type(), ot.TensorType("int8", shape=(None,) * x.ndim)()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = 2 * inputs[0]
        output_storage[1][0] = (inputs[0] > 0).astype("int8")

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0], input_shapes[0]]

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2]


def test_several_outputs_come_back_as_a_list_and_an_integer_one_has_no_tangent(bridge):
    f = bridge.as_jax_op(_TwiceAndSign())
    x = jnp.asarray([-1.0, 0.5, 2.0])
    twice, sign = jax.jit(f)(x)
    np.testing.assert_array_equal(np.asarray(twice), [-2.0, 1.0, 4.0])
    assert sign.dtype == jnp.int8 and np.asarray(sign).tolist() == [0, 1, 1]
    (_, _), (t_twice, t_sign) = jax.jvp(f, (x,), (jnp.ones(3),))
    np.testing.assert_array_equal(np.asarray(t_twice), [2.0, 2.0, 2.0])
    assert t_sign.dtype == jax.dtypes.float0
    check_grads(lambda v: f(v)[0], (x,), order=1, modes=("fwd", "rev"))


def test_without_a_compiler_the_handler_says_it_needs_one(tmp_path):
    import os
    import subprocess

    code = ("import jax, jax.numpy as jnp, opkit.tensor as ot\nfrom opkit.bridge.jax import as_jax_op\n"
            "as_jax_op(ot.mul)(jnp.ones(2), jnp.ones(2))")
    env = dict(os.environ, OPKIT_FLAGS="cxx=/nonexistent/c++", OPKIT_COMPILEDIR=str(tmp_path))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 1
    assert "opkit.CompileError: the C++ compiler '/nonexistent/c++' set by config.cxx was not found" in result.stderr
    assert ("while compiling opkit's XLA FFI handler: opkit.bridge.jax runs every op through it, so it needs a "
            "working C++ compiler (run `opkit doctor`)") in result.stderr


def test_subnormals_are_kept_as_numpy_keeps_them(bridge, vtv):
    """XLA's CPU threads flush subnormals to zero; the handler runs the op's C with IEEE arithmetic."""
    x, y = np.array([1e-310, 1.0]), np.array([0.5, 5e-324])
    out = jax.jit(bridge.as_jax_op(vtv))(jnp.asarray(x), jnp.asarray(y))
    np.testing.assert_array_equal(np.asarray(out), x * y)
    assert np.asarray(out)[0] == 5e-311


class _Unconvertible:
    def __array__(self, dtype=None, copy=None):
        raise ValueError("no array here")


class _ReturnsJunk(opkit.Op):
    """A Python op whose perform stores something numpy cannot make an array of."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = _Unconvertible()

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]


def test_an_output_that_is_no_array_is_named(bridge):
    with pytest.raises(Exception, match=r"_ReturnsJunk: output 0 is not an array: ValueError: no array here"):
        jax.jit(bridge.as_jax_op(_ReturnsJunk()))(jnp.ones(2)).block_until_ready()


def test_jacobians_and_vmap_of_derivatives_match_numpy(bridge, vtv, opkit_rng):
    """jacfwd/jacrev and vmap of grad/jvp batch the derivatives' linear_call (opkit.bridge.jax_batching)."""
    f = bridge.as_jax_op(vtv)
    x, y = _vectors(opkit_rng, 4)
    np.testing.assert_array_equal(np.asarray(jax.jacfwd(lambda a: f(a, y))(x)), np.diag(np.asarray(y)))
    np.testing.assert_array_equal(np.asarray(jax.jit(jax.jacrev(lambda a: f(x, a)))(y)), np.diag(np.asarray(x)))
    batch = jnp.stack([x, y, x * y])
    per_row = jax.jit(jax.vmap(jax.grad(lambda a: jnp.sum(f(a, a) * y))))(batch)
    np.testing.assert_allclose(np.asarray(per_row), 2 * np.asarray(batch) * np.asarray(y), rtol=1e-15)
    through_vmap = jax.grad(lambda b: jnp.sum(jax.vmap(f, (0, None))(b, y)))(batch)
    np.testing.assert_allclose(np.asarray(through_vmap), np.broadcast_to(np.asarray(y), (3, 4)), rtol=0)
    tangents = jax.vmap(lambda t: jax.jvp(f, (x, y), (t, t))[1])(batch)
    np.testing.assert_allclose(np.asarray(tangents), np.asarray(batch) * np.asarray(y + x), rtol=1e-14)
