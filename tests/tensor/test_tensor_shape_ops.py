"""reshape, dimshuffle/transpose, flatten, basic indexing, concatenate and stack: numpy's results, views, errors."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.core.tensor.shapes.alloc import DimShuffle
from opkit.core.tensor.shapes.join import Concatenate
from opkit.testing import InferShapeTester, verify_grad
from helpers.modes import FAST_RUN_GRAPH

MODES = pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])


def _layouts(value):
    big = np.zeros(tuple(2 * d + 1 for d in value.shape), dtype=value.dtype)
    strided = big[tuple(slice(1, None, 2) for _ in value.shape)]
    strided[...] = value
    flip = tuple(slice(None, None, -1) for _ in value.shape)
    return [value.copy(), np.asfortranarray(value), strided, np.ascontiguousarray(value[flip])[flip]]


@pytest.fixture(scope="module")
def shape_functions():
    x, i, j = ot.dtensor3("x"), ot.lscalar("i"), ot.lscalar("j")
    outputs = {
        "reshape": (x.reshape((-1, 4)), lambda v, i, j: v.reshape(-1, 4)),
        "reshape_sym": (ot.reshape(x, (x.shape[0] * x.shape[1], x.shape[2])), lambda v, i, j: v.reshape(6, 4)),
        "flatten": (ot.flatten(x), lambda v, i, j: v.reshape(-1)),
        "flatten2": (x.flatten(2), lambda v, i, j: v.reshape(2, -1)),
        "dimshuffle": (x.dimshuffle(2, "x", 0, 1), lambda v, i, j: v.transpose(2, 0, 1)[:, None]),
        "T": (x.T, lambda v, i, j: v.T),
        "transpose": (ot.transpose(x, (1, 0, 2)), lambda v, i, j: v.transpose(1, 0, 2)),
        "int": (x[1], lambda v, i, j: v[1]),
        "neg_int": (x[-1], lambda v, i, j: v[-1]),
        "slices": (x[1:5:2, ::-1], lambda v, i, j: v[1:5:2, ::-1]),
        "all_ints": (x[1, 2, 3], lambda v, i, j: v[1, 2, 3]),
        "symbolic": (x[i, j:, ::-1], lambda v, i, j: v[i, j:, ::-1]),
        "symbolic_neg_step": (x[:, ::j], lambda v, i, j: v[:, ::j]),
        "concatenate": (ot.concatenate([x, x * 2], axis=-1), lambda v, i, j: np.concatenate([v, v * 2], -1)),
        "stack": (ot.stack([x[0], x[1]], axis=1), lambda v, i, j: np.stack([v[0], v[1]], 1)),
    }
    names = list(outputs)
    fns = {mode: opkit.function([x, i, j], [outputs[n][0] for n in names], mode=mode)
           for mode in ("FAST_RUN", "FAST_COMPILE")}
    return names, [outputs[n][1] for n in names], fns


@pytest.mark.parametrize("layout", range(4), ids=["c", "fortran", "strided", "reversed"])
def test_shape_ops_match_numpy(shape_functions, layout):
    names, references, fns = shape_functions
    value = _layouts(np.arange(24.0).reshape(2, 3, 4))[layout]
    for mode, f in fns.items():
        for i, j in [(1, 2), (-2, -1)]:
            for name, result, reference in zip(names, f(value, i, j), references):
                np.testing.assert_array_equal(result, reference(value, i, j), err_msg=f"{name} {mode}", strict=True)


@MODES
def test_zero_size_inputs(mode):
    x = ot.dtensor3("x")
    f = opkit.function([x], [x.flatten(), x.flatten(2), x.T, x[:, 1:], ot.concatenate([x, x]), x.reshape((0, 12))],
                       mode=mode)
    value = np.zeros((0, 3, 4))
    expected = [value.reshape(-1), value.reshape(0, 12), value.T, value[:, 1:], np.concatenate([value, value]),
                value.reshape(0, 12)]
    for result, want in zip(f(value), expected):
        np.testing.assert_array_equal(result, want, strict=True)


@pytest.mark.parametrize("build, op_class", [(lambda e: e.dimshuffle(1, "x", 0), DimShuffle),
                                             (lambda e: e.reshape((-1,)), opkit.tensor.Reshape),
                                             (lambda e: e[1:, ::-1][0], opkit.tensor.Subtensor)])
def test_view_ops_have_c_code_and_declare_views(build, op_class):
    x = ot.dmatrix("x")
    f = opkit.function([x], build(ot.exp(x)), mode=FAST_RUN_GRAPH)  # the graph; its C runs in the test below
    nodes = [n for n in f.maker.fgraph.toposort() if isinstance(n.op, op_class)]
    assert nodes and all(op_has_c(n) for n in nodes) and nodes[0].op.view_map == {0: [0]}


@MODES
@pytest.mark.parametrize("build", [
    lambda e: e.dimshuffle(1, "x", 0), lambda e: e.T, lambda e: e[1:, ::-1], lambda e: e[0],
    lambda e: e.reshape((-1,)), lambda e: e.flatten(),
], ids=["dimshuffle", "T", "slice", "int", "reshape", "flatten"])
def test_a_returned_view_is_not_overwritten_by_the_next_call(mode, build):
    x = ot.dmatrix("x")
    f = opkit.function([x], build(ot.exp(x)), mode=mode)
    a, b = np.zeros((2, 3)), np.arange(6.0).reshape(2, 3)
    first = f(a)
    second = f(b)
    np.testing.assert_array_equal(first, build_numpy(build, np.exp(a)))
    np.testing.assert_array_equal(second, build_numpy(build, np.exp(b)))


def build_numpy(build, value):
    """Evaluate the same expression on a constant (opkit's own graph, folded): numpy's answer."""
    return build(ot.constant(value)).eval({})


@MODES
def test_views_of_the_input_are_copies(mode):
    x = ot.dmatrix("x")
    f = opkit.function([x], [x.T, x[0], x.reshape((-1,))], mode=mode)
    value = np.arange(6.0).reshape(2, 3)
    for result in f(value):
        assert not np.shares_memory(result, value)


def test_bad_reshape_size_raises_at_build_time_when_known():
    x = ot.tensor("float64", (2, 3), name="x")
    with pytest.raises(ValueError, match=r"reshape: cannot reshape an array of shape \(2, 3\) \(6 elements\) into "
                                         r"shape \(4,\)"):
        x.reshape((4,))


@MODES
def test_bad_reshape_size_raises_when_run(mode):
    x = ot.dmatrix("x")
    f = opkit.function([x], x.reshape((4, -1)), mode=mode)
    with pytest.raises(ValueError, match=r"cannot reshape an array of shape \(2, 3\) \(6 elements\) into shape "
                                         r"\(4, -1\)"):
        f(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="at most one -1"):
        opkit.function([x], x.reshape((-1, -1)), mode=mode)(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="cannot reshape"):  # numpy cannot deduce -1 next to a 0 either
        np.zeros((0, 3)).reshape(0, -1)
    with pytest.raises(ValueError, match=r"cannot reshape an array of shape \(0, 3\) \(0 elements\)"):
        opkit.function([x], x.reshape((0, -1)), mode=mode)(np.zeros((0, 3)))


@MODES
def test_out_of_range_indices(mode):
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        ot.tensor("float64", (3,))[3]
    x, i = ot.dvector("x"), ot.lscalar("i")
    f = opkit.function([x, i], x[i], mode=mode)
    assert f(np.arange(3.0), -3) == 0.0
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        f(np.arange(3.0), 5)


def test_new_axes_and_ellipsis_index_as_numpy():
    x, s = ot.dtensor3("x"), ot.dscalar("s")
    indices = [(None,), (Ellipsis, None), (0, None, Ellipsis, 1), (None, slice(1, None), None), (Ellipsis,),
               (1, Ellipsis), (Ellipsis, 2), (slice(None), None, 0, None), None]
    f = opkit.function([x, s], [x[i] for i in indices] + [s[None], s[...], s[None, None, ...]])
    value = np.arange(24.0).reshape(2, 3, 4)
    for got, index in zip(f(value, 5.0), indices):
        np.testing.assert_array_equal(got, value[index])
        assert got.shape == value[index].shape
    assert [r.shape for r in f(value, 5.0)[-3:]] == [(1,), (), (1, 1)]


@pytest.mark.parametrize("index, error, message", [
    ((1, 2), IndexError, "too many indices: 2 given for a 1-d tensor"),
    (1.5, TypeError, "index on axis 0 must be an integer or an integer scalar variable"),
    (slice(None, None, 0), ValueError, "slice step cannot be zero"),
    ((Ellipsis, 0, Ellipsis), IndexError, "an index can only have a single ellipsis ('...')"),
    (np.array([0.5]), IndexError, "arrays used as indices must be of integer (or boolean) type"),
])
def test_unsupported_indices_raise_clear_errors(index, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        ot.dvector("x")[index]


def test_concatenate_errors():
    x, m = ot.dvector("x"), ot.dmatrix("m")
    with pytest.raises(ValueError, match=r"concatenate: all tensors must have the same number of dimensions, got "
                                         r"x \(1-d\), m \(2-d\)"):
        ot.concatenate([x, m])
    with pytest.raises(ValueError, match="concatenate: axis 2 is out of range for 2-d tensors"):
        ot.concatenate([m, m], axis=2)
    with pytest.raises(ValueError, match=r"the tensors' lengths on axis 1 differ \(3, 4\)"):
        ot.concatenate([ot.tensor("float64", (2, 3)), ot.tensor("float64", (2, 4))])
    f = opkit.function([m], ot.concatenate([m, m.T]))
    with pytest.raises(ValueError, match=r"concatenate along axis 0 of arrays with shapes \(2, 3\), \(3, 2\)"):
        f(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="stack: all tensors must have the same number of dimensions"):
        ot.stack([x, m])


def test_concatenate_promotes_dtypes_as_numpy():
    a, b = ot.tensor("int8", (None,)), ot.tensor("uint8", (None,))
    c = ot.tensor("float32", (None,))
    out = ot.concatenate([a, b, c])
    assert out.dtype == "float32" and ot.concatenate([a, b]).dtype == "int16"
    va, vb, vc = np.array([-1], np.int8), np.array([255], np.uint8), np.array([0.5], np.float32)
    np.testing.assert_array_equal(out.eval({a: va, b: vb, c: vc}), np.concatenate([va, vb, vc]), strict=True)


def test_dimshuffle_and_transpose_errors():
    x = ot.dmatrix("x")
    with pytest.raises(ValueError, match=r"dimshuffle\(0, 0\) on x \(a 2-d tensor\): give each axis 0..1 exactly "
                                         "once"):
        x.dimshuffle(0, 0)
    with pytest.raises(ValueError, match=r"transpose axes \(0, 2\) are not a permutation of the 2 axes of x"):
        ot.transpose(x, (0, 2))
    with pytest.raises(ValueError, match="flatten: ndim=3 must be between 1 and the 2 dimensions of x"):
        x.flatten(3)


@pytest.mark.parametrize("fun, shapes", [
    (lambda x: x.reshape((3, -1)) * np.arange(4.0), [(2, 6)]),
    (lambda x: x.flatten(2), [(2, 3, 2)]),
    (lambda x: x.dimshuffle(1, "x", 0), [(2, 3)]),
    (lambda x: ot.transpose(x, (2, 0, 1)), [(2, 3, 2)]),
    (lambda x: x[1:, ::-2] * 3, [(3, 5)]),
    (lambda x: x[-1] + x[0, 1:3].sum(), [(3, 4)]),
    (lambda x, y: ot.concatenate([x, y, x], axis=1), [(2, 3), (2, 1)]),
    (lambda x, y: ot.stack([x, y], axis=-1), [(2, 3), (2, 3)]),
])
def test_gradients(fun, shapes):
    rng = np.random.default_rng(0)
    verify_grad(fun, [rng.standard_normal(s) for s in shapes], mode="FAST_COMPILE")


def test_gradient_through_a_symbolic_index():
    x, i = ot.dvector("x"), ot.lscalar("i")
    g = opkit.grad(ot.sum(x[i:] * 2) + x[i], x)
    np.testing.assert_array_equal(g.eval({x: np.zeros(4), i: 1}), [0.0, 3.0, 2.0, 2.0])


class TestShapeOpShapes(InferShapeTester):
    mode = FAST_RUN_GRAPH  # infer_shape under FAST_RUN's rewrites; the ops' C results are numpy's (tested above)

    def test_reshape(self):
        x, n = ot.dmatrix("x"), ot.lscalar("n")
        self._compile_and_check([x, n], [x.reshape((n, -1)), x.reshape((-1,)), x.flatten()],
                                [self.rng.rand(4, 6), 3], opkit.tensor.Reshape)

    def test_dimshuffle(self):
        x = ot.dtensor3("x")
        self._compile_and_check([x], [x.dimshuffle(2, "x", 0, 1), x.T], [self.rng.rand(2, 3, 4)], DimShuffle)

    def test_subtensor(self):
        x, i, j = ot.dmatrix("x"), ot.lscalar("i"), ot.lscalar("j")
        self._compile_and_check([x, i, j], [x[1], x[i:, ::j], x[1:5:2, ::-1], x[-1, i]],
                                [self.rng.rand(7, 5), 2, -2], opkit.tensor.Subtensor)

    def test_concatenate_and_stack(self):
        x, y = ot.dmatrix("x"), ot.dmatrix("y")
        self._compile_and_check([x, y], [ot.concatenate([x, y], axis=1), ot.stack([x, x], axis=2)],
                                [self.rng.rand(2, 3), self.rng.rand(2, 5)], Concatenate)
