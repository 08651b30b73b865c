"""Gradients of inputs numpy broadcast when the graph ran: an axis of static length None that was 1.

opkit's elementwise ops (and alloc, fill, inc_subtensor's y) broadcast a run-time length 1 as numpy
does; the gradient of such an input is summed back to its run-time shape by SumToShape
(opkit/core/tensor/shapes/sum_to_shape.py). The oracle: numpy central finite differences of the same
numpy expression, and opkit.testing.verify_grad, in FAST_RUN (C), FAST_COMPILE and DebugMode.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from helpers.modes import FAST_RUN_GRAPH

import opkit
import opkit.tensor as ot
from opkit.core.graph import ancestors
from opkit.core.tensor.shapes.alloc import Alloc
from opkit.core.tensor.shapes.fill import fill
from opkit.core.tensor.shapes.sum_to_shape import SumToShape, sum_to_shape
from opkit.testing import verify_grad

MODES = ("FAST_RUN", "FAST_COMPILE", "DebugMode")

# name: (opkit expression, numpy expression, number of inputs)
OPS = {
    "add": (lambda a, b: a + b, lambda a, b: a + b, 2),
    "sub": (lambda a, b: a - b, lambda a, b: a - b, 2),
    "mul": (lambda a, b: a * b, lambda a, b: a * b, 2),
    "true_div": (lambda a, b: a / b, lambda a, b: a / b, 2),
    "pow": (lambda a, b: a ** b, lambda a, b: a ** b, 2),
    "maximum": (ot.maximum, np.maximum, 2),
    "switch": (lambda c, a, b: ot.switch(c > 1.2, a, b), lambda c, a, b: np.where(c > 1.2, a, b), 3),
    "clip": (lambda a, lo, hi: ot.clip(a * 3, lo, hi + 2), lambda a, lo, hi: np.clip(a * 3, lo, hi + 2), 3),
    "fused": (lambda a, b, c: ot.exp(a * b) + c / (1 + b ** 2) - ot.sqrt(a) * c,
              lambda a, b, c: np.exp(a * b) + c / (1 + b ** 2) - np.sqrt(a) * c, 3),
}
# cost of the op's result r: (opkit, numpy), w a fixed array of r's shape
COSTS = {
    "sum": (lambda r, w: (r * w).sum(), lambda r, w: (r * w).sum()),
    "sum_axis0": (lambda r, w: (r.sum(axis=0) * w[0]).sum(), lambda r, w: (r.sum(axis=0) * w[0]).sum()),
    "max_axis_last": (lambda r, w: (r * w).max(axis=-1).sum(), lambda r, w: (r * w).max(axis=-1).sum()),
}


def untyped(ndim):
    """A float64 variable whose type states no length (every axis may be 1 when the graph runs)."""
    return ot.TensorType("float64", (None,) * ndim)()


def finite_difference(fn, values, eps=1e-6):
    """Central finite differences of the scalar numpy function `fn` for each array in `values`."""
    grads = []
    for k, value in enumerate(values):
        grad = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            plus = [v.copy() for v in values]
            minus = [v.copy() for v in values]
            plus[k][index] += eps
            minus[k][index] -= eps
            grad[index] = (fn(*plus) - fn(*minus)) / (2 * eps)
        grads.append(grad)
    return grads


@st.composite
def broadcast_case(draw, nin):
    """An output shape and, per input, a shape that numpy broadcasts to it (some axes 1, some leading ones gone)."""
    out = draw(st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=3))
    shapes = []
    for _ in range(nin):
        ndim = draw(st.integers(1, len(out)))
        shapes.append(tuple(draw(st.sampled_from([1, n])) for n in out[len(out) - ndim:]))
    return shapes


def _values(shapes, seed):
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.5, 2.0, size=s) for s in shapes]


def _all_grads(shapes, cost, weights, mode):
    """One function: the gradient of every op of OPS (a two-input op takes the first two inputs), each op's cost
    weighted by its own fixed array; outputs [op][input]."""
    inputs = [untyped(len(s)) for s in shapes]
    outputs = []
    for op in sorted(OPS):
        used = inputs[:OPS[op][2]]
        outputs.append(opkit.grad(COSTS[cost][0](OPS[op][0](*used), ot.constant(weights[op])), used))
    f = opkit.function(inputs, [g for grads in outputs for g in grads], mode=mode)
    counts = [OPS[op][2] for op in sorted(OPS)]

    def run(*values):
        flat, out = list(f(*values)), []
        for count in counts:
            out.append(flat[:count])
            del flat[:count]
        return out
    return run


# One module per drawn case holds the gradients of every op (not one per op and case). DebugMode (C against
# perform on every node) runs the same graphs in test_verify_grad_... below; the drawn finite-difference cases
# run the Python path, and the C path under `-m soak` (a module of every op's gradient per drawn case: the C of
# these gradients runs in the default run through test_verify_grad_of_every_op_...[FAST_RUN]).
@pytest.mark.parametrize("mode", [pytest.param("FAST_RUN", marks=pytest.mark.soak), "FAST_COMPILE"])
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_gradient_matches_numpy_finite_differences(mode, data):
    shapes = data.draw(broadcast_case(3), "shapes")
    cost = data.draw(st.sampled_from(sorted(COSTS)), "cost")
    values = _values(shapes, data.draw(st.integers(0, 2 ** 16), "seed"))
    weights = {op: np.random.default_rng(7).uniform(-1, 1, size=np.broadcast_shapes(*shapes[:OPS[op][2]]))
               for op in OPS}
    got = _all_grads(shapes, cost, weights, mode)(*values)
    for op, op_grads in zip(sorted(OPS), got):
        used = values[:OPS[op][2]]

        def numpy_cost(*vs, op=op):
            return COSTS[cost][1](OPS[op][1](*vs), weights[op])

        for k, (g, want) in enumerate(zip(op_grads, finite_difference(numpy_cost, used))):
            assert g.shape == used[k].shape, f"{op}, input {k}: gradient of shape {g.shape} for {used[k].shape}"
            np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6, err_msg=f"{op}, input {k}")


def _runtime_broadcast_fn(op):
    """OPS[op] on inputs whose static length-1 axes are erased (reshape to their own shape): verify_grad's
    inputs state length 1 where the point has it, which would make the broadcast a static one."""
    return lambda *inputs: OPS[op][0](*[ot.reshape(v, v.shape) for v in inputs])


SHAPES = [(2, 1, 3), (1, 4, 1), (4, 3)]  # every op's result is (2, 4, 3)


def _every_op_stacked(*inputs):
    """Every op of OPS on the same inputs (a two-input op takes the first two), stacked: one graph, one module."""
    return ot.stack([_runtime_broadcast_fn(op)(*inputs[:OPS[op][2]]) for op in sorted(OPS)])


# DebugMode compiles a module per node, as many for the stack as for the ops one by one: it runs them one by one
# below (soak), and the other tests of this file run it on SumToShape.
@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_verify_grad_of_every_op_with_a_length_one_axis_its_type_does_not_state(mode):
    """The gradient of the stacked results of every op: one verify_grad (three modules), not one per op."""
    assert all(None in v.type.shape for v in [_runtime_broadcast_fn(op)(*[untyped(len(s)) for s in SHAPES[:n]])
                                             for op, (_, _, n) in OPS.items()])
    verify_grad(_every_op_stacked, _values(SHAPES, 3), rng=np.random.default_rng(0), mode=mode)


# One op at a time: where the stacked test above fails, these name the op (FAST_COMPILE runs perform, no compile;
# the compiled modes are soak: `-m soak`).
@pytest.mark.parametrize("mode", [pytest.param(m, marks=pytest.mark.soak) if m != "FAST_COMPILE" else m
                                  for m in MODES])
@pytest.mark.parametrize("op", sorted(OPS))
def test_verify_grad_with_a_length_one_axis_its_type_does_not_state(op, mode):
    shapes = SHAPES[:OPS[op][2]]
    fn = _runtime_broadcast_fn(op)
    assert all(None in v.type.shape for v in [fn(*[untyped(len(s)) for s in shapes])])
    verify_grad(fn, _values(shapes, 3), rng=np.random.default_rng(0), mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_the_reported_case(mode):
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], [x * y, opkit.grad((x * y).sum(), x)], mode=mode)
    product, gx = f(np.array([2.0]), np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(product, [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(gx, [6.0])
    np.testing.assert_array_equal(f(np.array([2.0, 1.0, 1.0]), np.array([1.0, 2.0, 3.0]))[1], [1.0, 2.0, 3.0])


@pytest.mark.parametrize("mode", MODES)
def test_zero_size_outputs(mode):
    """(1,) broadcast to (0,): the gradient is zeros of shape (1,); (0,) with (1, 0): summed over the leading axis."""
    x, y = ot.dvector("x"), ot.dmatrix("y")
    f = opkit.function([x, y], opkit.grad((x * y).sum(), [x, y]), mode=mode)
    gx, gy = f(np.array([2.0]), np.zeros((3, 0)))
    assert gx.shape == (1,) and gy.shape == (3, 0)
    np.testing.assert_array_equal(gx, [0.0])
    gx, gy = f(np.zeros(0), np.ones((1, 1)))
    assert gx.shape == (0,) and gy.shape == (1, 1)
    np.testing.assert_array_equal(gy, [[0.0]])


@pytest.mark.parametrize("mode", MODES)
def test_alloc_fill_and_inc_subtensor_gradients(mode):
    v, m, n = ot.dvector("v"), ot.dmatrix("m"), ot.lscalar("n")
    w = ot.constant(np.arange(12.0).reshape(4, 3))
    costs = [(ot.alloc(v, 4, n) * w).sum(), (fill(m, v) * w).sum(),
             (ot.set_subtensor(m[1:], v) * w).sum(), (ot.inc_subtensor(m[:, 1:], v) * 1.0).sum()]
    f = opkit.function([v, m, n], [opkit.grad(c, v) for c in costs], mode=mode)
    ga, gf, gs, gi = f(np.array([1.0]), np.ones((4, 3)), 3)
    np.testing.assert_array_equal(ga, [np.arange(12.0).sum()])
    np.testing.assert_array_equal(gf, [np.arange(12.0).sum()])
    np.testing.assert_array_equal(gs, [np.arange(3.0, 12.0).sum()])
    np.testing.assert_array_equal(gi, [8.0])


def _sum_to_shape_nodes(outputs):
    return [v.owner for v in ancestors(outputs) if v.owner is not None and isinstance(v.owner.op, SumToShape)]


def test_no_node_added_where_no_axis_can_be_broadcast_when_the_graph_runs():
    """Static shapes, static length 1, unary ops, x with itself, x with numbers: the graph is as before."""
    s3, s3b = ot.TensorType("float64", (3,))("s3"), ot.TensorType("float64", (3,))("s3b")
    x, row, col = ot.dmatrix("x"), ot.TensorType("float64", (1, None))("row"), ot.dcol("c") \
        if hasattr(ot, "dcol") else ot.TensorType("float64", (None, 1))("c")
    cases = [((s3 * s3b).sum(), [s3, s3b]), (ot.exp(x).sum(), [x]), ((x * x + x / 2.0).sum(), [x]),
             ((x ** 2 - 1).sum(), [x]), ((row * col).sum(), [row, col]), (ot.maximum(row, 1.0).sum(), [row])]
    for cost, wrt in cases:
        assert _sum_to_shape_nodes(opkit.grad(cost, wrt)) == [], cost


def test_a_node_only_where_an_axis_may_be_broadcast():
    x, row = ot.dmatrix("x"), ot.TensorType("float64", (1, None))("row")
    gx, grow = opkit.grad((x * row).sum(), [x, row])
    assert len(_sum_to_shape_nodes([gx])) == 1  # x's axis 1 may be 1 where row's is longer
    assert len(_sum_to_shape_nodes([grow])) == 1  # row's axis 1 may be 1 where x's is longer


@pytest.mark.parametrize("mode", MODES)
def test_results_that_share_a_gradient_buffer_are_not_aliased(mode):
    """x + y: both gradients are the same g where nothing broadcast (SumToShape returns its input)."""
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], opkit.grad((x + y).sum(), [x, y]), mode=mode)
    gx, gy = f(np.ones(3), np.ones(3))
    gx[0] = 5.0
    np.testing.assert_array_equal(gy, [1.0, 1.0, 1.0])
    gx2, _ = f(np.ones(3), np.ones(3))
    np.testing.assert_array_equal(gx, [5.0, 1.0, 1.0])
    np.testing.assert_array_equal(gx2, [1.0, 1.0, 1.0])


# The dtypes of the default run's function: a float, a signed integer, bool and complex; the others compile the same
# C for another type of the same kind (soak: "rest").
OP_DTYPES = {"default": ("float64", "int8", "bool", "complex128"),
             "rest": ("float16", "float32", "complex64", "uint16", "int64")}
LAYOUTS = {"c": lambda v: v, "fortran": np.asfortranarray, "negative": lambda v: v[::-1, :, ::-1],
           "strided": lambda v: np.repeat(v, 2, axis=2)[:, :, ::2], "empty": lambda v: v[:, :0]}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("group", sorted(OP_DTYPES))
def test_the_op_against_numpy(group, mode):
    """One function per mode and group of dtypes: each dtype's array summed to the same target shape."""
    dtypes = OP_DTYPES[group]
    gs = [ot.TensorType(dtype, (None, None, None))(f"g_{dtype}") for dtype in dtypes]
    s = ot.lvector("s")
    f = opkit.function([*gs, s], [sum_to_shape(g, s) for g in gs], mode=mode)
    base = np.random.default_rng(1).uniform(-3, 3, size=(2, 3, 4)) * 4
    for name, layout in LAYOUTS.items():
        values = [layout(base.astype(dtype)) for dtype in dtypes]
        shape = values[0].shape
        for target in [(1, 3, 4), (2, 1, 1), (1, 1, 1), shape]:
            target = tuple(t if t == 1 else n for t, n in zip(target, shape))
            axes = tuple(axis for axis, t in enumerate(target) if t != shape[axis])
            for dtype, v, got in zip(dtypes, values, f(*values, np.array(target))):
                want = np.add.reduce(v, axis=axes, dtype=dtype, keepdims=True) if axes else v
                assert got.dtype == np.dtype(dtype) and got.shape == target, (dtype, name)
                np.testing.assert_array_equal(got, want, err_msg=f"{dtype} {name} to {target}")


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_the_op_refuses_a_shape_it_cannot_sum_to(mode):
    g, s = ot.dmatrix("g"), ot.lvector("s")
    f = opkit.function([g, s], sum_to_shape(g, s), mode=mode)
    with pytest.raises(ValueError, match=r"sum_to_shape: cannot sum an array of shape \(2, 3\) to the shape "
                                         r"\(2, 2\): each target length must be the array's or 1"):
        f(np.ones((2, 3)), np.array([2, 2]))
    with pytest.raises(ValueError, match="sum_to_shape: the shape vector has 3 entries for a 2-d array"):
        f(np.ones((2, 3)), np.array([2, 3, 1]))


def test_the_op_refuses_a_wrong_shape_type_when_the_graph_is_built():
    g = ot.dmatrix("g")
    with pytest.raises(TypeError, match=r"SumToShape: the shape must be an int64 vector of 2 entries \(g's dimensions\), got s of type "):
        sum_to_shape(g, ot.dvector("s"))
    with pytest.raises(ValueError, match=r"sum_to_shape: cannot sum an array of shape \(2, 3\) to the shape "
                                         r"\(2, 2\)"):
        sum_to_shape(ot.TensorType("float64", (2, 3))(), ot.constant(np.array([2, 2])))


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_the_op_gradient_and_shape(mode):
    g, s = ot.dmatrix("g"), ot.lvector("s")
    summed = sum_to_shape(g, s)
    f = opkit.function([g, s], [opkit.grad((summed * summed).sum(), g), summed.shape], mode=mode)
    value = np.arange(6.0).reshape(2, 3)
    grad, shape = f(value, np.array([1, 3]))
    np.testing.assert_array_equal(grad, np.broadcast_to(2 * value.sum(axis=0), (2, 3)))
    np.testing.assert_array_equal(shape, [1, 3])


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_r_op_of_an_input_broadcast_when_the_graph_runs(mode):
    """J @ v has the output's shape when x (and its eval point) of length 1 was broadcast to y's length."""
    x, y, v = ot.dvector("x"), ot.dvector("y"), ot.dvector("v")
    outputs = [opkit.Rop(x + y, x, v), opkit.Rop(x * y, x, v), opkit.Rop(x - y, x, v)]
    f = opkit.function([x, y, v], outputs, mode=mode)
    add, mul, sub = f(np.array([1.0]), np.array([1.0, 2.0, 3.0]), np.array([2.0]))
    np.testing.assert_array_equal(add, [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(mul, [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(sub, [2.0, 2.0, 2.0])


def test_r_op_of_a_unary_op_adds_no_node():
    x, v = ot.dvector("x"), ot.dvector("v")
    r = opkit.Rop(ot.exp(x) * 2.0, x, v)
    graph = opkit.function([x, v], r, mode=FAST_RUN_GRAPH).maker.fgraph  # FAST_RUN's graph: nothing runs here
    assert not any(isinstance(node.op, Alloc) for node in graph.toposort())


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_the_inferred_shape_keeps_the_op_errors(mode):
    """Only the shape of SumToShape's result is computed: the shape still raises the op's errors."""
    g, s = ot.dmatrix("g"), ot.lvector("s")
    f = opkit.function([g, s], sum_to_shape(g, s).shape, mode=mode)
    np.testing.assert_array_equal(f(np.ones((2, 3)), np.array([1, 3])), [1, 3])
    with pytest.raises(ValueError, match=r"sum_to_shape: cannot sum an array of shape \(2, 3\) to the shape "
                                         r"\(2, 2\): each target length must be the array's or 1"):
        f(np.ones((2, 3)), np.array([2, 2]))
    with pytest.raises(ValueError, match="sum_to_shape: the shape vector has 3 entries for a 2-d array"):
        f(np.ones((2, 3)), np.array([2, 3, 1]))
