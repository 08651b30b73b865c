"""opkit ops inside PyTensor graphs (opkit.bridge.pytensor): values, C code, gradients, params, errors.

PyTensor compiles are slow, so each compiled function is made once per module
(module-scoped fixtures) and shared by the tests that read it. PyTensor's
compile directories are in a session temporary directory: no test touches ~/.pytensor.
"""

import pathlib
import subprocess
import sys

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit import Apply, COp, EnumList, Op, ParamsType
from helpers.pytensor_fixture import pytensor  # noqa: F401 (a fixture)

ROOT = pathlib.Path(__file__).resolve().parents[2]
PARAMS_DATA = ROOT / "tests" / "data" / "params"


@pytest.fixture(scope="module")
def pt(pytensor):
    import pytensor.tensor

    return pytensor.tensor


@pytest.fixture(scope="module")
def bridge(pytensor):
    import opkit.bridge.pytensor

    return opkit.bridge.pytensor


# ---- the tutorial's op under PyTensor's default mode, its C linker and FAST_COMPILE ----

MODES = ("default", "c", "FAST_COMPILE")


@pytest.fixture(scope="module")
def vtv_functions(pytensor, pt, bridge, vtv_class):
    """One compiled z = x * y (float64) per PyTensor mode, and one of mixed dtypes under the C linker."""
    op = bridge.as_pytensor_op(vtv_class())
    x, y = pt.dvector("x"), pt.dvector("y")
    modes = {"default": None, "c": pytensor.compile.mode.Mode(linker="c"), "FAST_COMPILE": "FAST_COMPILE"}
    functions = {name: pytensor.function([x, y], op(x, y), mode=mode) for name, mode in modes.items()}
    xf, yi, b8, u8, flags = (pt.vector(n, dtype=d) for n, d in
                             (("xf", "float32"), ("yi", "int32"), ("b8", "int8"), ("u8", "uint8"), ("flags", "bool")))
    functions["c-upcast"] = pytensor.function([xf, yi, b8, u8, flags], [op(xf, yi), op(b8, u8), op(flags, flags)],
                                              mode=modes["c"])
    return functions


@pytest.mark.parametrize("mode", MODES)
def test_vector_times_vector_gives_numpy_result(vtv_functions, mode):
    f = vtv_functions[mode]
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=7), rng.normal(size=7)
    first = f(x, y)
    np.testing.assert_array_equal(f(x + 1, y), (x + 1) * y)
    np.testing.assert_array_equal(first, x * y)  # a later call does not write into an earlier result
    wide = rng.normal(size=14)
    np.testing.assert_array_equal(f(wide[::2], wide[::-2]), wide[::2] * wide[::-2])  # strided, negative strides
    assert f(np.zeros(0), np.zeros(0)).shape == (0,)


def test_vector_times_vector_upcasts_like_numpy_in_c(vtv_functions):
    values = (np.linspace(-2, 2, 5, dtype="float32"), np.arange(5, dtype="int32"),
              np.array([-128, -3, 0, 5, 127], dtype="int8"), np.array([255, 7, 1, 0, 2], dtype="uint8"),
              np.array([True, False, True, False, True]))
    xf, yi, b8, u8, flags = values
    for result, expected in zip(vtv_functions["c-upcast"](*values), (xf * yi, b8 * u8, flags * flags)):
        assert result.dtype == expected.dtype
        np.testing.assert_array_equal(result, expected)


def test_c_linker_runs_opkit_c_code_in_pytensors_module(vtv_functions, bridge, monkeypatch):
    def no_python(*args):
        raise AssertionError("perform ran: the C linker should run the op's C code")

    monkeypatch.setattr(bridge, "run_op", no_python)
    np.testing.assert_array_equal(vtv_functions["c"](np.ones(3), np.arange(3.0)), np.arange(3.0))


@pytest.mark.parametrize("mode", MODES)
def test_an_error_set_by_the_ops_c_code_reaches_the_caller(vtv_functions, mode):
    with pytest.raises(ValueError, match=r"Shape mismatch.*x.shape\[0\] == 3 and y.shape\[0\] == 2"):
        vtv_functions[mode](np.ones(3), np.ones(2))


def test_output_types_come_from_the_opkit_make_node(pt, bridge, vtv_class):
    op = bridge.as_pytensor_op(vtv_class())
    assert op is bridge.as_pytensor_op(vtv_class())  # equal opkit ops share one bridged op
    z = op(pt.fvector(), pt.bvector())
    assert (z.type.dtype, z.type.shape) == ("float32", (None,))
    with pytest.raises(TypeError, match="x must be a 1-d vector"):
        op(pt.dmatrix(), pt.dvector())


def test_an_op_without_c_code_runs_its_perform_under_pytensors_c_vm(pytensor, pt, bridge):
    @opkit.as_op(itypes=[ot.dvector], otypes=[ot.dvector], infer_shape=lambda node, shapes: shapes)
    def cumulative(x):
        return np.cumsum(x)

    x = pt.dvector("x")
    f = pytensor.function([x], bridge.as_pytensor_op(cumulative)(x), mode=pytensor.compile.mode.Mode(linker="cvm"))
    np.testing.assert_array_equal(f(np.array([1.0, 2.0, 3.0])), [1.0, 3.0, 6.0])


# ---- gradients: opkit's grad translated into PyTensor's graph ----


@pytest.fixture(scope="module")
def grad_ops(vtv_class):
    """VectorTimesVector with a grad using the op itself, and one using opkit's elementwise arithmetic."""

    class SelfGrad(vtv_class):
        def grad(self, inputs, output_grads):
            (x, y), (gz,) = inputs, output_grads
            return [self(gz, y), self(gz, x)]

        def infer_shape(self, node, input_shapes):
            return [input_shapes[0]]

        def R_op(self, inputs, eval_points):
            (x, y), (ex, ey) = inputs, eval_points
            return [self(ex, y) + self(x, ey)]

    class ArithmeticGrad(vtv_class):
        def grad(self, inputs, output_grads):
            (x, y), (gz,) = inputs, output_grads
            return [gz * y, ot.exp(ot.log(ot.sqr(ot.sqrt(gz * gz)))) / gz * x]  # gz * x, through several ops

    return SelfGrad(), ArithmeticGrad()


@pytest.mark.parametrize("which", [0, 1], ids=["grad-uses-the-op", "grad-uses-arithmetic"])
def test_pytensor_grad_matches_finite_differences(pytensor, bridge, grad_ops, which):
    op = bridge.as_pytensor_op(grad_ops[which])
    rng = np.random.default_rng(42)
    point = [rng.uniform(0.5, 2.0, size=4), rng.uniform(0.5, 2.0, size=4)]
    pytensor.gradient.verify_grad(op, point, n_tests=1, rng=rng, mode="FAST_COMPILE")


def test_opkit_arithmetic_in_a_grad_becomes_pytensors_own_ops(pytensor, pt, bridge, grad_ops):
    from pytensor.graph.traversal import ancestors

    x, y = pt.dvector("x"), pt.dvector("y")
    gy = pytensor.grad(bridge.as_pytensor_op(grad_ops[1])(x, y).sum(), y)
    ops = [v.owner.op for v in ancestors([gy]) if v.owner is not None]
    assert sum(isinstance(op, bridge.PyTensorOp) for op in ops) == 1  # the forward node only
    names = {str(getattr(op, "scalar_op", op)) for op in ops}
    assert {"mul", "exp", "log", "sqr", "sqrt", "true_div"} <= names, names


@pytest.fixture(scope="module")
def model_function(pytensor, pt, bridge, grad_ops):
    """sum((bridged(x, y) - data) ** 2) and its gradient, compiled in PyTensor's default mode."""
    op = bridge.as_pytensor_op(grad_ops[0])
    x, y, data = pt.dvector("x"), pt.dvector("y"), pt.dvector("data")
    cost = pt.sum((op(x, y) - data) ** 2)
    return pytensor.function([x, y, data], [cost, *pytensor.grad(cost, [x, y])])


def test_model_like_graph_and_its_gradient_run_in_pytensor(model_function):
    x, y, data = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0]), np.array([0.0, 1.0, 1.0])
    cost, gx, gy = model_function(x, y, data)
    residual = x * y - data
    np.testing.assert_allclose(cost, np.sum(residual ** 2))
    np.testing.assert_allclose(gx, 2 * residual * y)
    np.testing.assert_allclose(gy, 2 * residual * x)


def test_infer_shape_is_translated(pytensor, pt, bridge, grad_ops):
    op = bridge.as_pytensor_op(grad_ops[0])
    x, y = pt.dvector("x"), pt.dvector("y")
    f = pytensor.function([x, y], op(x, y).shape, mode="FAST_COMPILE")
    assert not any(isinstance(node.op, bridge.PyTensorOp) for node in f.maker.fgraph.toposort())
    np.testing.assert_array_equal(f(np.ones(5), np.ones(5)), [5])


def test_r_op_is_translated(pytensor, pt, bridge, grad_ops):
    op = bridge.as_pytensor_op(grad_ops[0])
    x, y, ex, ey = (pt.dvector(n) for n in ("x", "y", "ex", "ey"))
    rop = pytensor.gradient.pushforward(op(x, y), [x, y], [ex, ey], use_op_pushforward=True)
    f = pytensor.function([x, y, ex, ey], rop, mode="FAST_COMPILE")
    x_, y_, ex_, ey_ = np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([0.5, 1.0]), np.array([2.0, -1.0])
    np.testing.assert_allclose(f(x_, y_, ex_, ey_), ex_ * y_ + x_ * ey_)


# ---- what does not map: a clear NotImplementedError ----


class Opaque(opkit.Type):
    """An opkit type with no PyTensor counterpart."""

    def filter(self, value, strict=False, allow_downcast=None):
        return value


class ToOpaque(Op):
    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [Opaque()()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]


class FromOpaque(Op):
    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [ot.dvector()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]


def test_grad_without_an_opkit_grad_names_the_op(pytensor, pt, bridge, vtv_class):
    x, y = pt.dvector("x"), pt.dvector("y")
    cost = bridge.as_pytensor_op(vtv_class())(x, y).sum()
    with pytest.raises(NotImplementedError, match="the gradient of VectorTimesVector: the opkit op defines "
                                                  "neither grad nor L_op.*define grad"):
        pytensor.grad(cost, x)


def test_grad_using_an_op_that_does_not_map_names_it(pytensor, pt, bridge, vtv_class):
    class OpaqueGrad(vtv_class):
        def grad(self, inputs, output_grads):
            return [FromOpaque()(ToOpaque()(output_grads[0])), output_grads[0]]

    x, y = pt.dvector("x"), pt.dvector("y")
    cost = bridge.as_pytensor_op(OpaqueGrad())(x, y).sum()
    with pytest.raises(NotImplementedError, match=r"the gradient of OpaqueGrad uses the opkit op ToOpaque, which "
                                                  r"does not map to PyTensor: output 0 of ToOpaque: the type "
                                                  r"Opaque \(.*Opaque\) has no counterpart"):
        pytensor.grad(cost, x)


def test_an_op_whose_types_do_not_map_is_refused_with_the_type(pt, bridge):
    with pytest.raises(NotImplementedError, match=r"output 0 of ToOpaque: the type Opaque"):
        bridge.as_pytensor_op(ToOpaque())(pt.dvector())
    with pytest.raises(TypeError, match="as_pytensor_op expects an opkit Op instance, got 'mul'"):
        bridge.as_pytensor_op("mul")


# ---- params: an opkit ParamsType becomes PyTensor's ----


class AxpyBase(COp):
    """z = alpha * x + y (ADD) or alpha * x * y (MUL); alpha and mode are params (run-time data)."""

    __props__ = ("alpha", "mode")
    params_type = ParamsType(alpha=opkit.scalar.float64, mode=EnumList("ADD", "MUL"))

    def make_node(self, x, y):
        x, y = ot.as_tensor_variable(x), ot.as_tensor_variable(y)
        return Apply(self, [x, y], [x.type()])


class AxpyFunc(AxpyBase):
    """func_name form: `PARAMS_TYPE* params` is the function's last argument."""

    def __init__(self, alpha, mode):
        self.alpha, self.mode = alpha, mode
        super().__init__(str(PARAMS_DATA / "axpy_func.c"), "APPLY_SPECIFIC(axpy)")


class AxpySection(AxpyBase):
    """`#section code` reading PARAMS->alpha and PARAMS->mode, FAIL on bad shapes."""

    def __init__(self, alpha, mode):
        self.alpha, self.mode = alpha, mode
        super().__init__(str(PARAMS_DATA / "axpy_params.c"))


class StructParams(COp):
    """PARAMS in support_code_struct, init_code_struct, code, code_cleanup and cleanup_code_struct."""

    __props__ = ("alpha", "mode")
    params_type = AxpyBase.params_type

    def __init__(self, alpha, mode):
        self.alpha, self.mode = alpha, mode
        super().__init__(str(ROOT / "tests" / "data" / "bridge" / "struct_params.c"))

    def make_node(self, x):
        return Apply(self, [opkit.scalar.as_scalar(x)], [opkit.scalar.float64()])


class InitSections(COp):
    """init_code and init_code_apply sections: the output counts their runs, plus 1000 * len(x)."""

    __props__ = ()

    def __init__(self):
        super().__init__(str(ROOT / "tests" / "data" / "bridge" / "init_sections.c"))

    def make_node(self, x):
        return Apply(self, [ot.as_tensor_variable(x)], [ot.TensorType("int64", shape=())()])


AXPY_CASES = [(AxpyFunc, 2.0, "ADD"), (AxpyFunc, 3.0, "MUL"), (AxpySection, 2.0, "ADD"), (AxpySection, 0.5, "MUL")]


@pytest.fixture(scope="module", params=["c", "default"])
def axpy_function(request, pytensor, pt, bridge):
    """One PyTensor function computing every case of AXPY_CASES and of STRUCT_CASES, and InitSections, per mode."""
    x, y, s = pt.dvector("x"), pt.dvector("y"), pytensor.scalar.float64("s")
    outputs = [bridge.as_pytensor_op(cls(alpha, mode))(x, y) for cls, alpha, mode in AXPY_CASES]
    outputs += [bridge.as_pytensor_op(StructParams(alpha, mode))(s) for alpha, mode in STRUCT_CASES]
    outputs.append(bridge.as_pytensor_op(InitSections())(x))
    mode = pytensor.compile.mode.Mode(linker="c") if request.param == "c" else None
    return pytensor.function([x, y, s], outputs, mode=mode)


STRUCT_CASES = [(2.0, "ADD"), (3.0, "MUL")]


def test_params_give_the_values_of_each_op(axpy_function):
    x, y, s = np.array([1.0, 2.0, -3.0]), np.array([4.0, 0.5, 2.0]), 1.5
    results = axpy_function(x, y, s)
    for (_, alpha, mode), result in zip(AXPY_CASES, results):
        np.testing.assert_allclose(result, alpha * x * y if mode == "MUL" else alpha * x + y)
    for (alpha, mode), result in zip(STRUCT_CASES, results[len(AXPY_CASES):]):
        assert result == s * alpha + (100 if mode == "MUL" else 10) + 2 * alpha
    assert results[-1] == 1 + 100 + 1000 * len(x)  # init_code ran once, init_code_apply once (one node)
    with pytest.raises(ValueError, match="axpy: x and y must be vectors of one length"):
        axpy_function(x, y[:2], s)


def test_params_in_cleanup_code_struct_do_not_map(pytensor, bridge):
    class StructParamsInCleanup(StructParams):
        def __init__(self, alpha, mode):
            self.alpha, self.mode = alpha, mode
            COp.__init__(self, str(PARAMS_DATA / "struct_params.c"))  # its cleanup_code_struct reads PARAMS

    s = pytensor.scalar.float64("s")
    out = bridge.as_pytensor_op(StructParamsInCleanup(2.0, "ADD"))(s)
    with pytest.raises(NotImplementedError, match=r"StructParamsInCleanup\{alpha=2.0, mode='ADD'\}: its "
                                                  "cleanup_code_struct section reads PARAMS, which PyTensor frees "
                                                  "before that code runs"):
        pytensor.function([s], out, mode=pytensor.compile.mode.Mode(linker="c"))


DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128")


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_and_scalar_types_map_both_ways(bridge, dtype):
    from opkit.bridge.pytensor_types import to_opkit_type, to_pytensor_type

    for opkit_type in (ot.TensorType(dtype, shape=(None, 1, 4)), ot.TensorType(dtype, shape=()),
                       opkit.scalar.ScalarType(dtype)):
        pytensor_type = to_pytensor_type(opkit_type)
        assert type(pytensor_type).__name__ == type(opkit_type).__name__  # TensorType, ScalarType
        assert (pytensor_type.dtype, pytensor_type.shape) == (dtype, getattr(opkit_type, "shape", ()))
        assert to_opkit_type(pytensor_type) == opkit_type


def test_enum_and_generic_types_map_both_ways_and_pickle(bridge):
    import pickle

    from opkit.bridge.pytensor_types import to_opkit_type, to_pytensor_type

    for opkit_type in (opkit.EnumType(A=1, B=5, ctype="long"), EnumList(("ADD", "add"), "MUL"),
                       opkit.CEnumType("SEEK_SET", "SEEK_END"), opkit.Generic()):
        pytensor_type = to_pytensor_type(opkit_type)
        assert pickle.loads(pickle.dumps(pytensor_type)) == pytensor_type  # PyTensor's own enums do not unpickle
        assert to_opkit_type(pytensor_type) == opkit_type
    assert to_pytensor_type(EnumList(("ADD", "add"), "MUL")).fromalias("add") == 0


def test_a_type_without_counterpart_is_named(bridge):
    from opkit.bridge.pytensor_types import to_pytensor_type

    with pytest.raises(NotImplementedError, match=r"params field 'handle': the type CDataType.*has no counterpart; "
                                                  r"the bridge maps tensor and scalar types, Generic, enum types"):
        to_pytensor_type(ParamsType(handle=opkit.CDataType("void*")), "the params_type of MyOp")


def test_params_types_map_both_ways(bridge):
    from opkit.bridge.pytensor_types import to_opkit_type, to_pytensor_type

    pytensor_params = bridge.as_pytensor_op(AxpyFunc(2.0, "ADD")).params_type
    assert pytensor_params.fields == ("alpha", "mode")
    assert str(pytensor_params.types[0]) == "float64" and dict(pytensor_params.types[1]) == {"ADD": 0, "MUL": 1}
    assert to_opkit_type(pytensor_params) == AxpyBase.params_type
    tensor = ot.TensorType("float32", shape=(3, None))
    assert to_opkit_type(to_pytensor_type(tensor)) == tensor


def test_import_opkit_does_not_import_pytensor():
    code = "import sys, opkit, opkit.tensor; print('pytensor' in sys.modules, 'opkit.bridge' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]


def test_indexing_and_casts_in_an_opkit_graph_become_pytensors_own(pytensor, pt, bridge):
    from opkit.bridge.pytensor_graph import to_pytensor_graph

    x, i = ot.dvector("x"), ot.lscalar("i")
    opkit_out = ot.cast(x[1:i:2], "float32") + x[-1]
    px, pi = pt.dvector("x"), pt.lscalar("i")
    (translated,) = to_pytensor_graph([opkit_out], [(x, px), (i, pi)], "a test graph")
    f = pytensor.function([px, pi], translated)
    data = np.arange(10.0)
    np.testing.assert_array_equal(f(data, 7), data[1:7:2].astype("float32") + data[-1])
    assert f(data, 7).dtype == (data[1:7:2].astype("float32") + data[-1]).dtype
