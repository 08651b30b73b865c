"""The porting rows' names beyond their table rows (tests/tensor/test_language_examples.py runs those): static
shapes, the symbolic forms (a kth variable, a shape vector), the errors of bad arguments (type and message) and
the PyTensor and Theano import paths. Graph-only checks: nothing here compiles C (one function, Python linker)."""

import importlib

import numpy as np
import pytest

import opkit
import opkit.compat.pytensor.tensor as pt
import opkit.compat.theano.tensor as tt
import opkit.tensor as ot

PY_FAST_RUN = opkit.Mode(linker="py", optimizer="fast_run")


def test_static_shapes_are_pytensors():
    x = ot.tensor("float64", (2, 3, 4, 5))
    assert ot.join_dims(x).type.shape == (120,)
    assert ot.join_dims(x, start_axis=1).type.shape == (2, 60)
    assert ot.join_dims(x, start_axis=1, n_axes=2).type.shape == (2, 12, 5)
    assert ot.join_dims(x, start_axis=1, n_axes=0).type.shape == (2, 1, 3, 4, 5)
    y = ot.tensor("float64", (6, 4, 6))
    assert ot.split_dims(y, shape=(2, 3)).type.shape == (2, 3, 4, 6)
    assert ot.split_dims(y, shape=(2, 3), axis=-1).type.shape == (6, 4, 2, 3)
    assert ot.split_dims(ot.tensor("float64", (1, 3)), ()).type.shape == (3,)
    assert ot.topk(ot.tensor("float64", (3, 7)), 2).type.shape[0] == 3
    assert ot.einsum("ij,jk->ik", ot.tensor("float64", (2, 3)), ot.tensor("float64", (3, 4))).ndim == 2


def _cases():
    x, k, n = ot.dmatrix("x"), ot.lscalar("k"), ot.lvector("n", shape=(2,))
    v = ot.dvector("v")
    a = np.array([[3.0, 1.0, 2.0, 5.0], [0.0, 7.0, 7.5, -1.0]])
    packed, shapes = ot.pack(x, v)
    pairs = [
        (ot.topk(x, k), {3: np.array([[5.0, 3.0, 2.0], [7.5, 7.0, 0.0]]), -3: np.array([[1.0, 2.0, 3.0],
                                                                                      [-1.0, 0.0, 7.0]])}),
        (ot.argtopk(x, k, axis=None), {3: np.array([6, 5, 3]), -3: np.array([7, 4, 1])}),
        (ot.split_dims(v, n), {3: np.arange(6.0).reshape(2, 3), -3: np.arange(6.0).reshape(2, 3)}),
        (ot.unpack(packed, shapes)[1], {3: np.arange(6.0), -3: np.arange(6.0)}),
        (shapes[0], {3: np.array([2, 4]), -3: np.array([2, 4])}),
    ]
    return [x, k, n, v], a, pairs


@pytest.fixture(scope="module")
def results():
    inputs, a, pairs = _cases()
    f = opkit.function(inputs, [out for out, _ in pairs], mode=PY_FAST_RUN, on_unused_input="ignore")
    return {kth: list(zip(f(a, kth, np.array([2, 3]), np.arange(6.0)), [w[kth] for _, w in pairs]))
            for kth in (3, -3)}


@pytest.mark.parametrize("kth", [3, -3])
def test_symbolic_kth_shape_vectors_and_pack_round_trip(results, kth):
    for index, (got, want) in enumerate(results[kth]):
        assert got.shape == want.shape, index
        np.testing.assert_array_equal(got, want, err_msg=str(index))


def test_topk_gradient_is_theanos():
    x = ot.dmatrix("x")
    g = opkit.grad((ot.topk(x, 2) * np.array([1.0, 10.0])).sum(), x)
    got = opkit.function([x], g, mode=PY_FAST_RUN)(np.array([[3.0, 1.0, 2.0, 5.0]]))
    np.testing.assert_array_equal(got, [[10.0, 0.0, 0.0, 1.0]])


@pytest.mark.parametrize("call, error, words", [
    (lambda x: ot.join_dims(x, 3), IndexError, "join_dims: axis 3 is out of bounds for array of dimension 2"),
    (lambda x: ot.join_dims(x, 1, 2), ValueError, "join_dims: asked to join dimensions 1 to 2, but"),
    (lambda x: ot.join_dims(x, 0, -1), ValueError, "join_dims: n_axes must be non-negative"),
    (lambda x: ot.join_dims(x, 0.5), TypeError, "join_dims: start_axis must be an integer"),
    (lambda x: ot.split_dims(x, (2, 3), axis=2), np.exceptions.AxisError, "axis 2 is out of bounds"),
    (lambda x: ot.split_dims(x, (2.0, 3)), TypeError, "split_dims: shape entries must be integers"),
    (lambda x: ot.split_dims(x, ot.lvector("s")), ValueError, "the length of the shape vector"),
    (lambda x: ot.split_dims(x, ot.dvector("s")), TypeError, "split_dims: shape must be integers"),
    (lambda x: ot.pack(x, x[0], keep_axes=(0, -1)), ValueError, "pack: input 1 (zero indexed) has 1 dimensions, "
                                                                "but keep_axes=(0, -1) assumes at least 2 dimensions"),
    (lambda x: ot.pack(x, keep_axes=[]), ValueError, "keep_axes=[] is ambiguous"),
    (lambda x: ot.pack(x, keep_axes=(1,)), ValueError, "the first positive axis must be 0"),
    (lambda x: ot.pack(x, keep_axes=(-1, 0)), ValueError, "negative axes must come after positive ones"),
    (lambda x: ot.pack(x, keep_axes=(-2,)), ValueError, "the last negative axis must be -1"),
    (lambda x: ot.pack(x, keep_axes="0"), TypeError, "keep_axes must be an int, a sequence of ints, or None"),
    (lambda x: ot.pack(), ValueError, "pack needs at least one tensor"),
    (lambda x: ot.unpack(x, [(2,)]), ValueError, "unpack: keep_axes=None needs a 1-d packed input"),
    (lambda x: ot.unpack(x, [(2,)], keep_axes=(0, 1)), ValueError, "exactly one more dimension than keep_axes"),
    (lambda x: ot.einsum("ij,jk", x), ValueError, "einsum: the subscripts 'ij,jk' name 2 operand(s), got 1"),
    (lambda x: ot.einsum("ijk", x), ValueError, "einsum: operand 0 has 2 dimensions but its subscripts 'ijk' name 3"),
    (lambda x: ot.einsum("i1", x), ValueError, "einsum: invalid subscript character(s) ['1']"),
    (lambda x: ot.einsum("ij->ii", x), ValueError, "einsum: output subscripts 'ii' name a letter twice"),
    (lambda x: ot.einsum("ij->k", x), ValueError, "einsum: output letters ['k'] are in no operand"),
    (lambda x: ot.einsum("...i->i", x), ValueError, "einsum: the operands have broadcast axes ('...') but the "
                                                    "output 'i' does not"),
    (lambda x: ot.einsum(3, x), TypeError, "einsum: subscripts must be a string"),
    (lambda x: ot.einsum("ij"), ValueError, "einsum: no operands"),
    (lambda x: ot.interp(x, x[0], x[1], period=2.0), NotImplementedError, "interp: period="),
    (lambda x: ot.interpolate1d(x[0], x[1], method="linera"), ValueError, "interpolate1d: unknown method "
                                                                         "'linera'; methods: linear, nearest, first, "
                                                                         "last, mean (did you mean 'linear'?)"),
    (lambda x: ot.interpolate1d(x, x), ValueError, "interpolate1d: x and y must be 1-d, got 2 and 2 dimensions"),
    (lambda x: ot.vectorize(3), TypeError, "vectorize: func must be callable"),
    (lambda x: ot.vectorize(ot.exp, "(a)->"), ValueError, "vectorize: not a valid gufunc signature: '(a)->'"),
    (lambda x: ot.vectorize(ot.exp, "(a)->(a)")(x, x), ValueError, "vectorize: 2 input(s), the signature "
                                                                   "'(a)->(a)' has 1"),
    (lambda x: ot.vectorize(ot.exp, "(a,b,c)->()")(x), ValueError, "fewer than the signature's 3 core dimensions"),
    (lambda x: ot.vectorize(ot.exp, "(a)->(a)")(x), NotImplementedError, "vectorize: the batch axes of x (shape "
                                                                         "(None, None)) have lengths not known"),
    (lambda x: ot.vectorize(lambda v: (v, v), "(a)->(a)")(x[0]), ValueError, "func returned 2 output(s), the "
                                                                             "signature '(a)->(a)' has 1"),
    (lambda x: ot.vectorize(ot.exp)(np.ones(2)), TypeError, "vectorize: inputs must be TensorVariables"),
    (lambda x: ot.topk(x, 0), ValueError, "topk: kth must not be 0"),
    (lambda x: ot.topk(ot.tensor("float64", (2, 3)), 4), ValueError, "topk: kth=4 is larger than the length 3 of "
                                                                     "axis 1"),
    (lambda x: ot.argtopk(x, 1, idx_dtype="float32"), TypeError, "argtopk: idx_dtype must be an integer dtype"),
    (lambda x: ot.topk(x, 1, axis=2), np.exceptions.AxisError, "axis 2 is out of bounds"),
    (lambda x: ot.topk(x, 1, axis=0.5), TypeError, "topk: axis must be an integer or None"),
    (lambda x: ot.topk_and_argtopk(x, x[0, 0]), TypeError, "topk_and_argtopk: kth must be an integer or an integer "
                                                           "scalar"),
    (lambda x: ot.topk(x[0, 0], 1), ValueError, "topk: x must have at least one dimension"),
    (lambda x: ot.row(shape=(3, None)), ValueError, "row: the first dimension of a row must have static length 1"),
])
def test_bad_arguments_raise_errors_that_name_them(call, error, words):
    with pytest.raises(error) as caught:
        call(ot.dmatrix("x"))
    assert words in str(caught.value)


def test_the_names_at_pytensors_and_theanos_paths():
    for name in ("einsum", "interp", "interpolate1d", "join_dims", "split_dims", "pack", "unpack", "vectorize"):
        assert getattr(pt, name) is getattr(ot, name), name
    theano_sort = importlib.import_module("opkit.compat.theano.tensor.sort")
    for name in ("topk", "argtopk", "topk_and_argtopk"):
        assert getattr(tt, name) is getattr(ot, name) is getattr(theano_sort, name), name


def test_linalg_gradients_and_paths():
    from opkit.testing import verify_grad

    a = np.array([[2.0, 0.5, -0.25], [0.5, 3.0, 0.75], [1.0, -0.5, 2.5]])
    # Cholesky's gradient assumes a symmetric input: checked through r @ r.T (PyTensor's test)
    verify_grad(lambda r: ot.cholesky(ot.dot(r, r.T) + ot.eye(3)), [a], rng=np.random.default_rng(0),
                mode="FAST_COMPILE")
    with pytest.raises(NotImplementedError, match="eigh: opkit does not implement the gradient of Eigh"):
        m = ot.dmatrix()
        opkit.grad(ot.eigh(m)[0].sum(), m)
    linalg = importlib.import_module("opkit.compat.pytensor.tensor.linalg")
    nlinalg = importlib.import_module("opkit.compat.theano.tensor.nlinalg")
    assert linalg.inv is ot.matrix_inverse is nlinalg.matrix_inverse and linalg.norm is ot.norm
    assert nlinalg.det is ot.det and nlinalg.SVD is ot.SVD
    m = ot.dmatrix("m")
    f = opkit.function([m], [nlinalg.matrix_dot(m, m, m), ot.svd(m, compute_uv=False)], mode=PY_FAST_RUN)
    dot3, s = f(a)
    np.testing.assert_allclose(dot3, a @ a @ a)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False))


@pytest.mark.parametrize("call, error, words", [
    (lambda x: ot.det(x[0]), ValueError, "det: x must be a matrix (2-d), got"),
    (lambda x: ot.matrix_inverse(ot.tensor("float64", (2, 3))), ValueError, "matrix_inverse: x must be square, got "
                                                                             "static shape (2, 3)"),
    (lambda x: ot.solve(x, x[None]), ValueError, "solve: b must be a vector or a matrix"),
    (lambda x: ot.eigh(x, UPLO="X"), ValueError, "eigh: UPLO must be 'L' or 'U'"),
    (lambda x: ot.norm(x, "bad"), ValueError, "norm: invalid norm order 'bad' for matrices"),
    (lambda x: ot.norm(x[0], "fro"), ValueError, "norm: invalid norm order 'fro' for vectors"),
    (lambda x: ot.norm(x, axis=(0, 0)), ValueError, "norm: duplicate axes given"),
    (lambda x: ot.norm(x, 2, axis=1.5), TypeError, "norm: axis must be None, an integer or a pair of integers"),
    (lambda x: ot.norm(ot.dtensor3(), 1), ValueError, "norm: ord=1 without axis needs a vector or a matrix"),
])
def test_bad_linalg_arguments(call, error, words):
    with pytest.raises(error) as caught:
        call(ot.dmatrix("x"))
    assert words in str(caught.value)
