"""PyTensor's numba backend calls a bridged op's C with no Python frame (issue 37, item 5): opkit.bridge.pytensor_numba.

Every node of a bridged op (the op's own, and those its gradient bridges) compiles to a nopython function that
allocates the outputs from the op's infer_shape and calls the op's compiled module through opkit's raw-buffer
handler. The op's perform is never called there (these tests make it raise). Results are checked against
numpy for dtypes and layouts (strided, reversed, empty); a node that cannot be called directly (no infer_shape,
a dtype numba's arrays do not hold) runs in object mode with its reason logged. The op's own error reaches the
caller as itself.
"""

import logging
import subprocess
import sys

import numpy as np
import pytest

import opkit.tensor as ot
from opkit.core.graph import Apply
from opkit.core.op import Op
from helpers.pytensor_fixture import pytensor  # noqa: F401 (a fixture)

LOGGER = "opkit.bridge.pytensor_numba"


@pytest.fixture(scope="module")
def numba_mode(pytensor):
    pytest.importorskip("numba", reason="numba is not installed: PyTensor's numba backend is not available")
    from pytensor.compile.mode import Mode

    return Mode(linker="numba")


@pytest.fixture(scope="module")
def pt(pytensor):
    import pytensor.tensor

    return pytensor.tensor


@pytest.fixture(scope="module")
def vtv(pytensor):
    """The tutorial's VectorTimesVector with infer_shape and a grad that applies the op again (bridged too)."""
    from helpers.tutorial_ops import shaped_vector_times_vector

    from opkit.bridge.pytensor import as_pytensor_op

    return as_pytensor_op(shaped_vector_times_vector())


@pytest.fixture
def no_perform(monkeypatch, pytensor):
    """Make the bridged ops' perform (object mode's path) raise: a test passing with it ran the direct path."""
    from opkit.bridge.pytensor import PyTensorOp

    def perform(self, node, inputs, output_storage):
        raise AssertionError(f"{self}'s perform ran: the node went through object mode")

    monkeypatch.setattr(PyTensorOp, "perform", perform)


class MinMax(Op):
    """Two outputs (no C): the minimum and maximum of a vector, 0-d each; infer_shape gives ()."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [ot.TensorType(x.dtype, shape=())(), ot.TensorType(x.dtype, shape=())()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        output_storage[0][0] = np.asarray(x.min(), dtype=x.dtype)
        output_storage[1][0] = np.asarray(x.max(), dtype=x.dtype)

    def infer_shape(self, node, input_shapes):
        return [(), ()]


class Doubled(Op):
    """2 * x (no C); `shaped` says whether it has an infer_shape."""

    __props__ = ("shaped",)

    def __init__(self, shaped=True):
        self.shaped = shaped

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(2 * inputs[0], dtype=node.outputs[0].type.dtype)

    def __getattr__(self, name):
        if name == "infer_shape" and self.__dict__.get("shaped"):
            return lambda node, input_shapes: [input_shapes[0]]
        raise AttributeError(name)


LAYOUTS = {"contiguous": lambda a: a, "reversed": lambda a: a[::-1], "step 2": lambda a: np.repeat(a, 2)[::2],
           "empty": lambda a: a[:0]}


_COMPILED = {}


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "float32", "float64"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_the_ops_c_runs_from_nopython_code_for_every_dtype_and_layout(dtype, layout, pytensor, pt, vtv, numba_mode,
                                                                        no_perform):
    if dtype not in _COMPILED:  # one numba function per dtype, called with every layout (CI time)
        x, y = pt.vector("x", dtype=dtype), pt.vector("y", dtype=dtype)
        _COMPILED[dtype] = pytensor.function([x, y], vtv(x, y), mode=numba_mode)
    f = _COMPILED[dtype]
    rng = np.random.default_rng(1)
    a, b = (LAYOUTS[layout](np.abs(rng.normal(size=7) * 5).astype(dtype)) for _ in range(2))
    got = f(a, b)
    assert got.dtype == np.dtype(dtype) and got.shape == a.shape
    np.testing.assert_array_equal(got, a * b)
    np.testing.assert_array_equal(f(b, a), b * a)  # a second call: the handler's arrays pointed at new buffers


def test_the_gradient_node_bridged_too_runs_directly(pytensor, pt, vtv, numba_mode, no_perform):
    x, y = pt.dvector("x"), pt.dvector("y")
    z = vtv(x, y)
    cost = (z ** 2).sum()
    f = pytensor.function([x, y], [cost, *pytensor.grad(cost, [x, y])], mode=numba_mode)
    a, b = np.linspace(-1, 2, 9), np.linspace(3, -2, 9)
    value, ga, gb = f(a, b)
    np.testing.assert_allclose(value, ((a * b) ** 2).sum(), rtol=1e-13)
    np.testing.assert_allclose(ga, 2 * a * b * b, rtol=1e-13)
    np.testing.assert_allclose(gb, 2 * a * b * a, rtol=1e-13)


def test_several_zero_d_outputs_of_an_op_without_c(pytensor, pt, numba_mode, no_perform):
    from opkit.bridge.pytensor import as_pytensor_op

    x = pt.dvector("x")
    low, high = as_pytensor_op(MinMax())(x)
    f = pytensor.function([x], [low, high, high - low], mode=numba_mode)
    a = np.array([3.0, -1.0, 7.5, 2.0])
    assert [float(v) for v in f(a)] == [-1.0, 7.5, 8.5]


def test_the_ops_own_error_reaches_the_caller(pytensor, pt, vtv, numba_mode, no_perform):
    x, y = pt.dvector("x"), pt.dvector("y")
    f = pytensor.function([x, y], vtv(x, y), mode=numba_mode)
    with pytest.raises(ValueError, match=r"Shape mismatch : input0.shape\[0\] and input1.shape\[0\] should match "
                                         r"but x.shape\[0\] == 3 and y.shape\[0\] == 2") as info:
        f(np.ones(3), np.ones(2))
    assert any("called from compiled code through opkit's raw-buffer handler" in note
               for note in getattr(info.value, "__notes__", []))
    np.testing.assert_array_equal(f(np.ones(2), np.ones(2)), np.ones(2))  # and the next call is fine


def test_an_op_without_infer_shape_runs_in_object_mode_and_says_why(pytensor, pt, numba_mode, caplog):
    from opkit.bridge.pytensor import as_pytensor_op

    x = pt.dvector("x")
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        f = pytensor.function([x], as_pytensor_op(Doubled(shaped=False))(x), mode=numba_mode)
    assert ("PyTensor's numba backend runs Doubled{shaped=False} in object mode (about 5 us a call): the shapes of "
            "its outputs cannot be known before the call") in caplog.text
    assert "give the opkit op an infer_shape that PyTensor can translate" in caplog.text
    np.testing.assert_array_equal(f(np.arange(3.0)), [0.0, 2.0, 4.0])


def test_a_dtype_numba_does_not_hold_runs_in_object_mode_and_says_why(pytensor, pt, numba_mode, caplog):
    from opkit.bridge import pytensor_numba
    from opkit.bridge.pytensor import as_pytensor_op

    x = pt.vector("x", dtype="float16")
    node = as_pytensor_op(Doubled())(x).owner
    with pytest.raises(pytensor_numba.NotDirect, match=r"in object mode \(about 5 us a call\): its input 0 is "
                                                       r"float16, which numba's arrays do not hold"):
        pytensor_numba.direct_function(node.op, node)


class DoubledInPlace(Doubled):
    """2 * x written into x (destroy_map)."""

    destroy_map = {0: [0]}

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        x *= 2
        output_storage[0][0] = x


def test_an_op_writing_into_its_inputs_runs_in_object_mode_and_says_why(pytensor, pt, numba_mode):
    from opkit.bridge import pytensor_numba
    from opkit.bridge.pytensor import as_pytensor_op

    node = as_pytensor_op(DoubledInPlace())(pt.dvector("x")).owner
    with pytest.raises(pytensor_numba.NotDirect, match=r"in object mode \(about 5 us a call\): it writes into its "
                                                       r"inputs \(destroy_map \{0: \[0\]\}\), and the direct call "
                                                       r"passes them read-only"):
        pytensor_numba.direct_function(node.op, node)


def test_a_shape_function_is_all_the_direct_path_needs(pytensor, pt, numba_mode, no_perform):
    """An op without C (perform only) still runs directly: the handler calls its compiled function."""
    from opkit.bridge.pytensor import as_pytensor_op

    for dtype in ("float32", "complex128"):
        x = pt.matrix("x", dtype=dtype)
        f = pytensor.function([x], as_pytensor_op(Doubled())(x.T), mode=numba_mode)
        a = (np.arange(6) + (1j if dtype == "complex128" else 0)).astype(dtype).reshape(2, 3)
        np.testing.assert_array_equal(f(a), 2 * a.T)


def test_importing_the_bridge_imports_neither_backend(pytensor):
    code = ("import sys, opkit.bridge.pytensor\n"
            "print(sorted(m for m in ('pytensor.link.numba.dispatch.basic', 'pytensor.link.jax.dispatch.basic') "
            "if m in sys.modules))\n"
            "from pytensor.link.numba.dispatch import basic\n"
            "from opkit.bridge.pytensor import PyTensorOp\n"
            "from opkit.bridge.pytensor_numba import funcify, funcify_and_cache_key\n"
            "keyed = getattr(basic, 'numba_funcify_and_cache_key', None)\n"
            "print(keyed.dispatch(PyTensorOp) is funcify_and_cache_key if keyed else "
            "basic.numba_funcify.dispatch(PyTensorOp) is funcify)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                            env={**__import__("os").environ, "PYTENSOR_FLAGS": f"base_compiledir="
                                 f"{pytensor.config.base_compiledir}"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[]", "True"]


# A child process compiling bridged graphs in the numba backend, PyTensor's and numba's caches in the folder given;
# `order` says which function it compiles first, so the ops' slots in the raw-buffer handler differ between the two
# processes.
_CACHED_CHILD = '''
import sys
import numpy as np
import pytensor
import pytensor.tensor as pt
from pytensor.compile.mode import Mode
from pytensor.graph.fg import FunctionGraph
from pytensor.link.numba.dispatch.basic import numba_funcify_and_cache_key
from opkit.bridge.pytensor import as_pytensor_op
from helpers.tutorial_ops import shaped_vector_times_vector
from test_bridge_pytensor_numba import Doubled


mode = Mode(linker="numba")
vtv, doubled = as_pytensor_op(shaped_vector_times_vector()), as_pytensor_op(Doubled())
x, y = pt.dvector("x"), pt.dvector("y")
outputs = [vtv(x, y), doubled(x)]
outputs.append(pytensor.grad((outputs[0] ** 2).sum(), x))
if sys.argv[1] == "doubled first":
    assert list(pytensor.function([x], doubled(x), mode=mode)(np.ones(2))) == [2.0, 2.0]
print(numba_funcify_and_cache_key(FunctionGraph([x, y], outputs, clone=True))[1] is not None)
f = pytensor.function([x, y], outputs, mode=mode)
a, b = np.linspace(-1, 2, 5), np.linspace(3, -2, 5)
product, twice, gradient = f(a, b)
np.testing.assert_array_equal(product, a * b)
np.testing.assert_array_equal(twice, 2 * a)
np.testing.assert_allclose(gradient, 2 * a * b * b, rtol=1e-14)
print("ok")
'''


def test_numba_caches_a_graph_holding_bridged_nodes_and_the_next_process_loads_it(pytensor, numba_mode, tmp_path):
    """A direct node gives PyTensor a cache key, so the graph's compiled code is kept on disk and the next process
    loads it: no file of numba's cache written again, and each node calls its own op though the handler's slots
    are numbered in another order there (the code names a node by its key, bound in each process)."""
    import os
    import pathlib

    import opkit

    script = tmp_path / "child.py"
    script.write_text(_CACHED_CHILD)
    here = pathlib.Path(__file__).resolve().parent
    # PyTensor's and numba's caches start empty; opkit's modules come from the session's cache, where this module's
    # other tests built the ops' modules (what is checked is numba's cache: opkit's loads or builds alike)
    env = {**os.environ, "PYTENSOR_FLAGS": f"base_compiledir={tmp_path / 'pytensor'}",
           "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "OPKIT_COMPILEDIR": opkit.config.compiledir,
           "PYTHONPATH": os.pathsep.join([str(here.parent), str(here), os.environ.get("PYTHONPATH", "")])}

    def run(order):
        result = subprocess.run([sys.executable, str(script), order], capture_output=True, text=True, timeout=600,
                                env=env, cwd=tmp_path)
        assert result.returncode == 0, result.stderr[-3000:]
        assert result.stdout.split() == ["True", "ok"]

    def numba_files():
        return {path: path.stat().st_mtime_ns for path in tmp_path.rglob("*") if path.suffix in (".nbi", ".nbc")}

    run("vtv first")
    written = numba_files()
    assert written
    run("doubled first")
    again = numba_files()
    assert {path: again[path] for path in written} == written


def test_a_key_bound_to_no_slot_fails_with_its_reason(pytensor):
    import ctypes

    from opkit.bridge.slot_call import raise_last_error, raw_module

    call = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)(
        raw_module().keyed_address())
    assert call(12345, 0, 0, 0) == -1
    with pytest.raises(RuntimeError, match="no bridged opkit graph bound to key 12345 in this process"):
        raise_last_error()
    with pytest.raises(ValueError, match="bind: no slot 1000000 in this process"):
        raw_module().bind(1, 1000000)


class Joined(Op):
    """x and y one after the other, then `extra` zeros (no C): infer_shape gives a sum of input dims and a number."""

    __props__ = ("extra",)

    def __init__(self, extra=0):
        self.extra = extra

    def make_node(self, x, y):
        x, y = ot.as_tensor_variable(x), ot.as_tensor_variable(y)
        return Apply(self, [x, y], [x.type(), ot.TensorType(x.dtype, shape=(None, 2))()])

    def perform(self, node, inputs, output_storage):
        x, y = inputs
        output_storage[0][0] = np.concatenate([x, y, np.zeros(self.extra, x.dtype)])
        output_storage[1][0] = np.full((len(y), 2), 7, x.dtype)

    def infer_shape(self, node, input_shapes):
        (n,), (m,) = input_shapes
        return [(n + m + self.extra,), (m, 2)]


def test_output_dims_are_read_from_the_inputs_or_computed_by_a_shape_function(pytensor, pt, vtv, numba_mode,
                                                                               no_perform):
    """The tutorial op's infer_shape hands back its input's dims: the node reads them, with no shape function to
    compile; an infer_shape computing a dim still gets one (its other dims read directly or written as numbers)."""
    from opkit.bridge.pytensor import as_pytensor_op
    from opkit.bridge.pytensor_numba import _output_dims

    x, y = pt.dvector("x"), pt.dvector("y")
    assert _output_dims(vtv, vtv(x, y).owner, "") == (["i0.shape[0]"], None)
    joined = as_pytensor_op(Joined(extra=2))
    node = joined(x, y)[0].owner
    dims, shape_function = _output_dims(joined, node, "")
    assert dims == ["dims[0]", "dims[1]", "dims[2]"] and shape_function is not None
    f = pytensor.function([x, y], [vtv(x, y), *joined(x, y)], mode=numba_mode)
    a, b = np.arange(4.0), np.arange(3.0) + 10
    product, together, sevens = f(a[:3], b)
    np.testing.assert_array_equal(product, a[:3] * b)
    np.testing.assert_array_equal(together, np.concatenate([a[:3], b, [0.0, 0.0]]))
    np.testing.assert_array_equal(sevens, np.full((3, 2), 7.0))
