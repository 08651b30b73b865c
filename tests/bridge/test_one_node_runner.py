"""The bridges run an op through link's one node runner (opkit.link.node_runner), so they get what link gives:
the backend decided once (compiled, shipped or perform under python_fallback) and profiling."""

import uuid

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.cop.toolchain import compiler
from opkit.link import node_runner

from helpers.tutorial_ops import VectorTimesScalar

class Salted(VectorTimesScalar):
    """The tutorial's x * y (a vector times a scalar) with perform and infer_shape; each salt is another module
    (its C support code differs), so each instance is a cold compile."""

    __props__ = ("salt",)

    def __init__(self, salt=None):
        self.salt = salt or uuid.uuid4().hex

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * inputs[1]

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def c_support_code(self, **kwargs):
        return f"// salt: {self.salt}\n"


A, B = np.linspace(-1, 1, 5), np.array(2.5)
TYPES = [ot.dvector, ot.dscalar]


@pytest.fixture
def no_compiler():
    compiler._found.clear()
    try:
        with opkit.config.change_flags(cxx="/nonexistent/g++"):
            yield
    finally:
        compiler._found.clear()


def test_one_runner_per_op_and_types_in_one_bounded_memo():
    op = Salted()
    runner, takes_outputs = node_runner.node_runner(op, TYPES, trusted=True)
    assert not takes_outputs and runner.trust_input
    np.testing.assert_array_equal(runner(A, B)[0], A * B)
    count = node_runner.compiled_count()
    assert node_runner.node_runner(Salted(op.salt), TYPES, trusted=True)[0] is runner  # equal op: same runner
    assert node_runner.run_node(op, TYPES, [A, B])[0].tolist() == (A * B).tolist()
    assert node_runner.compiled_count() == count
    checked, _ = node_runner.node_runner(op, TYPES)  # not trusted: the function checks its inputs
    with pytest.raises(TypeError, match="bad argument"):
        checked(A.reshape(5, 1), B)


def test_preallocated_runner_writes_into_the_given_output_and_falls_back_without_c():
    runner, takes_outputs = node_runner.node_runner(Salted(), TYPES, preallocated=True, trusted=True)
    assert takes_outputs
    out = np.empty(5)
    result = runner(A, B, out)
    np.testing.assert_array_equal(result, A * B)
    double = opkit.as_op(itypes=[ot.dvector], otypes=[ot.dvector])(lambda v: v * 2)  # no C: the function form
    runner, takes_outputs = node_runner.node_runner(double, [ot.dvector], preallocated=True, trusted=True)
    assert not takes_outputs and runner(A)[0].tolist() == (A * 2).tolist()


@pytest.mark.parametrize("preallocated", [False, True], ids=["function", "preallocated (JAX)"])
def test_profiling_sees_a_node_the_bridges_run(preallocated):
    op = Salted()
    with opkit.config.change_flags(profile=True):
        runner, takes_outputs = node_runner.node_runner(op, TYPES, preallocated=preallocated, trusted=True)
    assert not takes_outputs  # profiled: the function form, whose profile counts the node's calls
    runner(A, B)
    assert runner.profile is not None and [(row[0].op, row[2]) for row in runner.profile.nodes()] == [(op, 1)]
    plain, _ = node_runner.node_runner(op, TYPES, preallocated=preallocated, trusted=True)
    assert plain is not runner and getattr(plain, "profile", None) is None  # profiling off: not the profiled one


def test_the_pytensor_bridge_s_perform_runs_through_the_one_runner():
    pytest.importorskip("pytensor")
    import pytensor
    import pytensor.tensor as pt

    from opkit.bridge import pytensor as bridge

    assert bridge.run_op is node_runner.run_node
    op = Salted()
    x, y = pt.dvector("x"), pt.dscalar("y")
    f = pytensor.function([x, y], bridge.as_pytensor_op(op)(x, y), mode=pytensor.compile.mode.Mode(linker="py"))
    np.testing.assert_array_equal(f(A, B), A * B)
    count = node_runner.compiled_count()
    node_runner.run_node(op, TYPES, [A, B])  # the runner perform made: no new entry
    assert node_runner.compiled_count() == count


def test_the_torch_bridge_runs_through_the_one_runner():
    torch = pytest.importorskip("torch")
    from opkit.bridge.torch import as_torch_op

    op = Salted()
    before = node_runner.compiled_count()
    result = as_torch_op(op)(torch.from_numpy(A), torch.tensor(2.5, dtype=torch.float64))
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
            as_jax_op(Salted())(x, y)
        with opkit.config.change_flags(python_fallback=True), \
                pytest.warns(RuntimeWarning, match="no C\\+\\+ compiler and no shipped module for Salted"):
            result = as_jax_op(Salted())(x, y)
        np.testing.assert_array_equal(np.asarray(result), A * B)
    finally:
        jax.config.update("jax_enable_x64", old)
