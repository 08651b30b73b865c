"""The bridges run an op through link's one node runner (opkit.link.node_runner), so they get what link gives:
the backend decided once (compiled, shipped or perform under python_fallback) and profiling."""

import uuid

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.cop.build import compiler
from opkit.link import node_runner

MUL_CODE = """
if (NULL == %(z)s || PyArray_DIMS(%(z)s)[0] != PyArray_DIMS(%(x)s)[0]) {
    Py_XDECREF(%(z)s);
    %(z)s = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS(%(x)s), NPY_FLOAT64, 0);
    if (!%(z)s) { %(fail)s; }
}
salted_mul((const double*)PyArray_DATA(%(x)s), PyArray_STRIDES(%(x)s)[0] / 8,
           (const double*)PyArray_DATA(%(y)s), PyArray_STRIDES(%(y)s)[0] / 8,
           (double*)PyArray_DATA(%(z)s), PyArray_DIMS(%(x)s)[0]);
"""


class SaltedMul(opkit.Op):
    """x * y for float64 vectors; each salt is another module (its C support code differs): a cold compile."""

    __props__ = ("salt",)

    def __init__(self, salt=None):
        self.salt = salt or uuid.uuid4().hex

    def make_node(self, x, y):
        x, y = ot.as_tensor_variable(x), ot.as_tensor_variable(y)
        if (x.type.dtype, x.type.ndim, y.type.dtype, y.type.ndim) != ("float64", 1, "float64", 1):
            raise TypeError(f"SaltedMul takes two float64 vectors, not {x.type} and {y.type}")
        return opkit.Apply(self, [x, y], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * inputs[1]

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def c_code_cache_version(self):
        return (1,)

    def c_support_code(self, **kwargs):
        return (f"// salt: {self.salt}\n"
                "static void salted_mul(const double* x, npy_intp xs, const double* y, npy_intp ys,\n"
                "                       double* z, npy_intp n)\n"
                "{ for (npy_intp i = 0; i < n; i++) z[i] = x[i * xs] * y[i * ys]; }\n")

    def c_code(self, node, name, inputs, outputs, sub):
        return MUL_CODE % {"x": inputs[0], "y": inputs[1], "z": outputs[0], "fail": sub["fail"]}


A, B = np.linspace(-1, 1, 5), np.arange(5.0)
TYPES = [ot.dvector, ot.dvector]


@pytest.fixture
def no_compiler():
    compiler._found.clear()
    try:
        with opkit.config.change_flags(cxx="/nonexistent/g++"):
            yield
    finally:
        compiler._found.clear()


def test_one_runner_per_op_and_types_in_one_bounded_memo():
    op = SaltedMul()
    runner, takes_outputs = node_runner.node_runner(op, TYPES, trusted=True)
    assert not takes_outputs and runner.trust_input
    np.testing.assert_array_equal(runner(A, B)[0], A * B)
    count = node_runner.compiled_count()
    assert node_runner.node_runner(SaltedMul(op.salt), TYPES, trusted=True)[0] is runner  # equal op: same runner
    assert node_runner.run_node(op, TYPES, [A, B])[0].tolist() == (A * B).tolist()
    assert node_runner.compiled_count() == count
    checked, _ = node_runner.node_runner(op, TYPES)  # not trusted: the function checks its inputs
    with pytest.raises(TypeError, match="bad argument"):
        checked(A.reshape(5, 1), B)


def test_preallocated_runner_writes_into_the_given_output_and_falls_back_without_c():
    runner, takes_outputs = node_runner.node_runner(SaltedMul(), TYPES, preallocated=True, trusted=True)
    assert takes_outputs
    out = np.empty(5)
    result = runner(A, B, out)
    np.testing.assert_array_equal(result, A * B)
    double = opkit.as_op(itypes=[ot.dvector], otypes=[ot.dvector])(lambda v: v * 2)  # no C: the function form
    runner, takes_outputs = node_runner.node_runner(double, [ot.dvector], preallocated=True, trusted=True)
    assert not takes_outputs and runner(A)[0].tolist() == (A * 2).tolist()


def test_profiling_sees_a_node_the_bridges_run():
    op = SaltedMul()
    with opkit.config.change_flags(profile=True):
        runner, _ = node_runner.node_runner(op, TYPES, trusted=True)
    runner(A, B)
    assert runner.profile is not None and [(row[0].op, row[2]) for row in runner.profile.nodes()] == [(op, 1)]


def test_the_pytensor_bridge_s_perform_runs_through_the_one_runner():
    pytest.importorskip("pytensor")
    import pytensor
    import pytensor.tensor as pt

    from opkit.bridge import pytensor as bridge

    assert bridge.run_op is node_runner.run_node
    op = SaltedMul()
    x, y = pt.dvector("x"), pt.dvector("y")
    f = pytensor.function([x, y], bridge.as_pytensor_op(op)(x, y), mode=pytensor.compile.mode.Mode(linker="py"))
    np.testing.assert_array_equal(f(A, B), A * B)
    count = node_runner.compiled_count()
    node_runner.run_node(op, TYPES, [A, B])  # the runner perform made: no new entry
    assert node_runner.compiled_count() == count


def test_the_torch_bridge_runs_through_the_one_runner():
    torch = pytest.importorskip("torch")
    from opkit.bridge.torch import as_torch_op

    op = SaltedMul()
    before = node_runner.compiled_count()
    result = as_torch_op(op)(torch.from_numpy(A), torch.from_numpy(B))
    np.testing.assert_array_equal(result.numpy(), A * B)
    assert node_runner.compiled_count() == min(before + 1, node_runner.COMPILED_LIMIT)  # op.compute compiled it here


def test_a_jax_bridge_call_without_a_compiler_falls_back_as_link_does(no_compiler):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    from opkit.bridge.jax import as_jax_op
    from opkit.bridge.jax_ffi import handler_module

    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        with opkit.config.change_flags(cxx=""):  # the handler module is built with the compiler, once
            compiler._found.clear()
            handler_module()
        compiler._found.clear()
        x, y = jnp.asarray(A), jnp.asarray(B)
        with pytest.raises(opkit.MissingModuleError, match="no C\\+\\+ compiler to build one"):
            as_jax_op(SaltedMul())(x, y)
        with opkit.config.change_flags(python_fallback=True), \
                pytest.warns(RuntimeWarning, match="no C\\+\\+ compiler and no shipped module for SaltedMul"):
            result = as_jax_op(SaltedMul())(x, y)
        np.testing.assert_array_equal(np.asarray(result), A * B)
    finally:
        jax.config.update("jax_enable_x64", old)
