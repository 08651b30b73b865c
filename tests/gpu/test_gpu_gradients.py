"""Gradients of GPU ops are graphs of GPU ops: the gradient of an expression placed on the GPU runs there, the
seed's broadcast (Alloc), a broadcast input's gradient summed back (SumToShape), transpositions and new axes
(DimShuffle) and reshapes included (opkit/gpu/ops/shapes.py). Transfers stay at the graph's inputs and outputs;
only shape arithmetic (int64 scalars and vectors) runs on the host.

Every test runs through the CPU interpreter (device="cuda-interpret") and on the GPU (device="cuda") where CuPy
finds one; values are compared with the host function's in FAST_COMPILE (each op's perform: numpy, nothing to
compile; tests/helpers/numeric.check_close). Few functions are compiled (each costs seconds under the
interpreter): one per group of expressions, called on many values.
"""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.gpu.ops.shapes import GpuAlloc, GpuDimShuffle, GpuReshape, GpuSumToShape
from opkit.gpu.transfers import GpuArrayType, ToGpu, ToHost, to_host
from opkit.link.mode import Mode
from opkit.testing import verify_grad
from tests.gpu.user_ops.user_kernels import axpy, block_sum
from tests.helpers.gpu import device, interpret, on_device, to_numpy  # noqa: F401 (fixtures)
from tests.helpers.numeric import check_close

SHAPE_OPS = {"Shape", "Shape_i", "MakeVector", "BroadcastAxis", "Depend", "Assert", "ResolvedShape", "Subtensor"}


def assert_transfers_at_edges(f):
    """No array goes between the host and the GPU in the middle of `f`'s graph: every ToHost is an output's,
    every ToGpu reads a graph input, a constant or a host int64 shape value, and the host runs only shape
    arithmetic (int64 values)."""
    fgraph = f.maker.fgraph
    clients = fgraph.clients()
    nodes = fgraph.toposort()
    for node in nodes:
        name = type(node.op).__name__
        if isinstance(node.op, ToHost):
            users = [user for user, _ in clients.get(node.outputs[0], [])]
            assert all(user == "output" or type(user.op).__name__ == "DeepCopyOp" for user in users), \
                f"a ToHost in the middle of the graph, read by {users}: {nodes}"
        elif isinstance(node.op, ToGpu):
            source = node.inputs[0]
            assert source.owner is None or (source.dtype == "int64" and source.ndim == 0), \
                f"ToGpu of {source} computed on the host: {nodes}"
        elif not name.startswith("Gpu") and name != "DeepCopyOp":
            assert all(out.dtype == "int64" for out in node.outputs), f"host op {node.op} of arrays: {nodes}"
            assert name in SHAPE_OPS | {"Elemwise", "FusedElemwise"}, f"host op {node.op}: {nodes}"


def gpu_op_names(f):
    return {type(node.op).__name__ for node in f.maker.fgraph.toposort() if type(node.op).__name__.startswith("Gpu")}


def cpu_and_gpu(device, inputs, outputs):
    """(the host's reference function, the GPU function): the reference runs each op's perform (FAST_COMPILE), so
    that only the GPU function compiles (the host's C of these gradients is tests/tensor's)."""
    return (opkit.function(inputs, outputs, mode="FAST_COMPILE"),
            opkit.function(inputs, outputs, mode=Mode(device=device)))


def test_gradients_of_elementwise_reductions_and_dot_stay_on_the_gpu(device):
    X, Y, v, b = ot.dmatrix("X"), ot.dmatrix("Y"), ot.dvector("v"), ot.dvector("b")
    cost = (ot.sum(ot.exp(X) * b)  # b broadcast along X's rows: its gradient is summed back
            + ot.sum(ot.sum(X, axis=0, keepdims=True) * X)
            + ot.sum(ot.mean(X, axis=1)) + ot.sum(ot.max(X, axis=0) ** 2)
            + ot.sum(ot.max(X * 3, axis=1, keepdims=True) * X)
            + ot.sum(ot.dot(X, Y)) + ot.sum(ot.dot(X, v))
            + ot.sum(ot.exp(X).reshape((-1,)) * ot.arange(12.0)))
    grads = opkit.grad(cost, [X, Y, v, b])
    cpu, gpu = cpu_and_gpu(device, [X, Y, v, b], grads)
    assert_transfers_at_edges(gpu)
    assert gpu_op_names(gpu) >= {"GpuAlloc", "GpuSumToShape", "GpuDimShuffle", "GpuReshape", "GpuDot",
                                 "GpuElemwise"}, gpu.maker.fgraph.toposort()
    rng = np.random.default_rng(0)
    for b_length in (4, 1):  # 1: broadcast when the function runs (SumToShape sums the gradient of b)
        for _ in range(3):
            data = [rng.standard_normal((3, 4)), rng.standard_normal((4, 3)), rng.standard_normal(4),
                    rng.standard_normal(b_length)]
            for got, want in zip(gpu(*data), cpu(*data)):
                check_close(got, want, False, np.abs(want) + 10, what=f"{device} gradient, b of length {b_length}")
    with pytest.raises(ValueError):
        gpu(np.ones((3, 4)), np.ones((4, 3)), np.ones(4), np.ones(3))  # b does not broadcast: the host's error


def test_float32_gradient_of_a_broadcast_product_stays_on_the_gpu(device):
    x, y = ot.fvector("x"), ot.fvector("y")
    grads = opkit.grad((ot.exp(x) * y).sum(), [x, y])
    cpu, gpu = cpu_and_gpu(device, [x, y], grads)
    assert_transfers_at_edges(gpu)
    assert {"GpuAlloc", "GpuSumToShape"} <= gpu_op_names(gpu)
    rng = np.random.default_rng(1)
    for n_x, n_y in ((5, 5), (1, 5), (5, 1), (0, 0), (0, 1)):
        data = [rng.standard_normal(n_x).astype("float32"), rng.standard_normal(n_y).astype("float32")]
        for got, want in zip(gpu(*data), cpu(*data)):
            check_close(got, want, False, np.abs(want) + 10, what=f"{device} float32 {n_x}, {n_y}")


def test_gradient_of_user_kernel_ops_stays_on_the_gpu(device):
    a, x, y = ot.dscalar("a"), ot.dvector("x"), ot.dvector("y")
    grads = opkit.grad(to_host(block_sum(axpy(a, x, y))), [a, x, y])
    f = opkit.function([a, x, y], grads, mode=Mode(device=device))
    assert_transfers_at_edges(f)
    assert "GpuAlloc" in gpu_op_names(f)
    for n in (1, 4, 37):
        ga, gx, gy = f(2.5, np.arange(n, dtype="float64"), np.ones(n))
        check_close(ga, np.asarray(np.arange(n, dtype="float64").sum()), True)
        check_close(gx, np.full(n, 2.5), True)
        check_close(gy, np.ones(n), True)


# verify_grad through the interpreter: soak (`-m soak`); the shape ops' gradients run against the host's above and
# under DebugMode below in the default run.
@pytest.mark.soak
def test_verify_grad_through_the_gpu_shape_ops(interpret):
    rng = np.random.default_rng(2)
    verify_grad(lambda X, b: ot.sum(ot.exp(X) * b, axis=0, keepdims=True)
                + ot.mean(X.T.reshape((4, 3)), axis=1) + ot.max(X, axis=0),
                [rng.standard_normal((3, 4)), rng.standard_normal(1)], mode=Mode(device=interpret), rng=rng)


# ---- the ops themselves: the host op's values, views and errors ----

def perform(op, node, *inputs):
    storage = [[None]]
    op.perform(node, list(inputs), storage)
    return storage[0][0]


def test_gpu_shape_ops_compute_the_host_ops_values_views_and_errors(device):
    from opkit.core.tensor.shapes.alloc import DimShuffle, alloc
    from opkit.core.tensor.shapes.reshape import Reshape
    from opkit.core.tensor.shapes.sum_to_shape import sum_to_shape

    rng = np.random.default_rng(3)
    g = GpuArrayType("float32", (None, None))()
    host_g = ot.fmatrix("g")
    n, m = ot.lscalar("n"), ot.lscalar("m")
    shape = ot.lvector("s")
    value = rng.standard_normal((1, 3)).astype("float32")
    on = on_device(device, value)

    node = GpuAlloc()(g, n, m).owner
    host = alloc(host_g, n, m).owner
    made = perform(node.op, node, on, np.int64(2), np.int64(3))
    check_close(to_numpy(made), perform(host.op, host, value, np.int64(2), np.int64(3)), True)
    assert node.outputs[0].type == GpuArrayType("float32", (None, None)) and made is not on
    for bad in ((2, 4), (-1, 3)):
        with pytest.raises(ValueError) as want:
            perform(host.op, host, value, *map(np.int64, bad))
        with pytest.raises(ValueError) as got:
            perform(node.op, node, on, *map(np.int64, bad))
        assert str(got.value) == str(want.value)

    grad = rng.standard_normal((4, 3)).astype("float32")
    node = GpuSumToShape()(g, shape).owner
    host = sum_to_shape(host_g, shape).owner
    for target in ((4, 3), (1, 3), (4, 1), (1, 1)):
        made = perform(node.op, node, on_device(device, grad), np.asarray(target))
        check_close(to_numpy(made), perform(host.op, host, grad, np.asarray(target)), False, np.abs(grad).sum() + 1)
    unsummed = on_device(device, grad)
    assert perform(node.op, node, unsummed, np.asarray((4, 3))) is unsummed  # view_map: the input itself
    assert node.op.view_map == host.op.view_map
    for bad in ((2, 3), (4, 3, 1)):
        with pytest.raises(ValueError) as want:
            perform(host.op, host, grad, np.asarray(bad))
        with pytest.raises(ValueError) as got:
            perform(node.op, node, on_device(device, grad), np.asarray(bad))
        assert str(got.value) == str(want.value)

    node = GpuDimShuffle((1, "x", 0))(g).owner
    made = perform(node.op, node, on_device(device, grad))
    check_close(to_numpy(made), grad.T[:, None, :], True)
    assert node.op.view_map == DimShuffle((1, "x", 0)).view_map
    assert node.outputs[0].type == GpuArrayType("float32", (None, 1, None))

    node = GpuReshape(1)(g, shape).owner
    host = Reshape(1)(host_g, shape).owner
    made = perform(node.op, node, on_device(device, grad), np.asarray([-1]))
    check_close(to_numpy(made), grad.reshape(-1), True)
    with pytest.raises(ValueError) as want:
        perform(host.op, host, grad, np.asarray([5]))
    with pytest.raises(ValueError) as got:
        perform(node.op, node, on_device(device, grad), np.asarray([5]))
    assert str(got.value) == str(want.value)


def test_gpu_shape_ops_keep_the_host_ops_static_shapes_and_refuse_host_arrays():
    g = GpuArrayType("float64", (1, None))()
    assert GpuAlloc()(g, 5, 7).type == GpuArrayType("float64", (5, 7))
    assert GpuDimShuffle(("x", 1, 0))(g).type == GpuArrayType("float64", (1, None, 1))
    assert GpuReshape(2)(g, [-1, 2]).type == GpuArrayType("float64", (None, 2))
    with pytest.raises(TypeError, match="takes GPU arrays"):
        GpuAlloc()(ot.dmatrix(), 2, 3)
    with pytest.raises(ValueError, match="dimshuffle"):
        GpuDimShuffle((0,))(g)


def test_shapes_of_gpu_values_are_read_on_the_gpu(device):
    """The gradient of a user op of a GPU input reads that input's length where it is (Shape_i of a GPU value,
    in C), not from a copy on the host; Shape and Shape_i of GPU values give the host ops' int64 values."""
    from opkit.core.builtin_ops import Shape_i, shape_op

    g = GpuArrayType("float64", (None,))("g")
    (grad,) = opkit.grad(to_host(block_sum(g)), [g])
    m = GpuArrayType("float32", (None, None, None))("m")
    f = opkit.function([g, m], [grad, shape_op(m), Shape_i(2)(m)], mode=Mode(device=device))
    assert not any(isinstance(node.op, ToHost) and node.inputs[0] in (g, m) for node in f.maker.fgraph.toposort())
    shape_nodes = [node for node in f.maker.fgraph.toposort() if type(node.op).__name__ in ("Shape", "Shape_i")]
    assert shape_nodes and all(node.op.has_c_code(node) for node in shape_nodes)
    for n in (0, 3):
        got, shape, last = f(on_device(device, np.arange(n, dtype="float64")),
                             on_device(device, np.ones((n, 2, 5), dtype="float32")))
        check_close(to_numpy(got), np.ones(n), True)
        check_close(shape, np.asarray([n, 2, 5], dtype="int64"), True)
        check_close(last, np.asarray(5, dtype="int64"), True)


def test_gpu_shape_ops_infer_their_shapes(interpret):
    from opkit.testing import InferShapeTester

    class Tester(InferShapeTester):  # the Python linker: infer_shape against each op's perform (the kernels' output
        mode = Mode(device=interpret, linker="py")  # shapes are checked against numpy's by the tests above)

    tester = Tester()
    g = GpuArrayType("float64", (None, None))("g")
    n, s, r = ot.lscalar("n"), ot.lvector("s"), ot.lvector("r")
    data = np.arange(12.0).reshape(3, 4)
    # one graph of every op (one module, not one an op), checked for each op on its own: the op is in the compiled
    # outputs, and left out of the graph of the shapes (the later checks hit the cache)
    outputs = [GpuAlloc()(g, n, 3, 4), GpuSumToShape()(g, s), GpuDimShuffle((1, "x", 0))(g), GpuReshape(3)(g, r)]
    for cls in (GpuAlloc, GpuSumToShape, GpuDimShuffle, GpuReshape):
        tester._compile_and_check([g, n, s, r], outputs,
                                  [data, np.int64(2), np.asarray([1, 4]), np.asarray([2, -1, 3])], cls)


def test_debugmode_checks_the_gradient_graph_on_the_gpu(interpret):
    """DebugMode runs each GPU shape op's perform against its declared views (view_map) and fresh outputs."""
    X, b = ot.dmatrix("X"), ot.dvector("b")
    cost = ot.sum(ot.exp(X.T).reshape((-1,)) * b)
    f = opkit.function([X, b], opkit.grad(cost, [X, b]), mode=opkit.DebugMode(device=interpret))
    assert {"GpuDimShuffle", "GpuReshape", "GpuAlloc", "GpuSumToShape"} <= gpu_op_names(f), f.maker.fgraph.toposort()
    data, weights = np.random.default_rng(4).standard_normal((3, 4)), np.arange(12.0)
    gx, gb = f(data, weights)
    want_x = np.exp(data) * weights.reshape(4, 3).T
    check_close(gx, want_x, False, np.abs(want_x) + 1)
    check_close(gb, np.exp(data.T).reshape(-1), False, np.exp(data.T).reshape(-1))


# DebugMode compiles a module of each GPU node: the gradient of a max (a max reduction and a fused comparison: kinds of
# kernel tests/gpu/test_builtin_gpu_ops.py's DebugMode test checks in the default run) is soak (`-m soak`).
@pytest.mark.soak
def test_debugmode_checks_the_gradient_of_a_max_on_the_gpu(interpret):
    X = ot.dmatrix("X")
    f = opkit.function([X], opkit.grad(ot.sum(ot.max(X, axis=0, keepdims=True)), X),
                       mode=opkit.DebugMode(device=interpret))
    assert {"GpuReduce", "GpuElemwise"} <= gpu_op_names(f), f.maker.fgraph.toposort()
    data = np.random.default_rng(4).standard_normal((3, 4))
    check_close(f(data), (data == data.max(axis=0)).astype("float64"), True)
