"""Theano's remaining theano.tensor names (issue 48's census): its TensorType lists, its comparison tolerances
and check_equal_numpy, its private spellings isnan_/isinf_/join_, and its op classes (Join, Split, Nonzero...),
which build opkit's nodes. Each is checked against Theano 1.0's meaning (theano/tensor/basic.py, extra_ops.py,
compile/ops.py) and numpy; the op classes in one FAST_COMPILE function."""

import importlib
import sys

import numpy as np
import pytest

import opkit
import opkit.compat.pytensor.tensor as pt
import opkit.compat.theano.tensor as T
from opkit.core.tensor.shapes.join import Concatenate


def test_type_lists_are_theanos_tensortype_instances():
    expect = {"int": ["int8", "int16", "int32", "int64"], "float": ["float32", "float64"],
              "complex": ["complex64", "complex128"]}
    for kind, dtypes in expect.items():
        assert getattr(T, f"{kind}_types") is getattr(T, f"{kind}_scalar_types")
        for rank, shape in (("scalar", ()), ("vector", (None,)), ("matrix", (None, None))):
            listed = getattr(T, f"{kind}_{rank}_types")
            assert isinstance(listed, tuple) and [t.dtype for t in listed] == dtypes
            assert all(isinstance(t, T.TensorType) and t.shape == shape for t in listed)
            assert getattr(pt, f"{kind}_{rank}_types") is listed  # PyTensor's lists are the same
    assert T.int_types == (T.bscalar, T.wscalar, T.iscalar, T.lscalar)
    assert T.lvector in T.int_vector_types and T.dvector not in T.int_vector_types
    assert T.ivector("i").type in T.int_vector_types  # Theano's check: ``splits.type in int_vector_types``
    assert T.TensorType("float64", (None, None)) in T.float_matrix_types


def test_tolerances_and_check_equal_numpy():
    assert (T.float16_atol, T.float16_rtol, T.float32_atol, T.float32_rtol) == (1e-3, 1e-3, 1e-5, 1e-5)
    assert (T.float64_atol, T.float64_rtol) == (1e-8, 1e-5)  # numpy.allclose's defaults, as Theano's comment says
    a = np.arange(6.0).reshape(2, 3)
    assert T.check_equal_numpy(a, a + 1e-12) and not T.check_equal_numpy(a, a + 1e-9)
    assert not T.check_equal_numpy(a, a.astype("float32"))  # dtype
    assert not T.check_equal_numpy(a, a.ravel())  # shape
    assert not T.check_equal_numpy(np.array([np.nan]), np.array([np.nan]))  # NaN differs, as abs(x - y) < 1e-10
    assert T.check_equal_numpy(np.array([True, False]), np.array([True, False]))
    r1, r2 = np.random.RandomState(3), np.random.RandomState(3)
    assert T.check_equal_numpy(r1, r2)
    r2.rand()
    assert not T.check_equal_numpy(r1, r2)
    assert T.check_equal_numpy(3, 3) and not T.check_equal_numpy("a", "b")


def test_private_spellings_and_pytensor_typing_names():
    assert T.isnan_ is opkit.tensor.isnan and T.isinf_ is opkit.tensor.isinf
    assert isinstance(T.join_, T.Join) and T.default is T.setdefault and isinstance(T.default, T.Default)
    sort_module = importlib.import_module("opkit.compat.pytensor.tensor.sort")
    assert sort_module.KIND_VALUES == ("quicksort", "mergesort", "heapsort", "stable")
    assert "stable" in sort_module.KIND.__args__
    assert pt.TensorLike is not None and sys.modules["opkit.compat.pytensor.tensor.shape"].ShapeValueType


def test_op_classes_build_opkits_nodes_with_theanos_and_numpys_numbers():
    x, t3, v = T.dmatrix("x"), T.dtensor3("t3"), T.dvector("v")
    splits, reps, perm, idx, n = T.lvector("splits"), T.lvector("reps"), T.lvector("perm"), T.lvector("idx"), \
        T.lscalar("n")

    joined = T.Join()(1, x, x)
    assert isinstance(joined.owner.op, Concatenate)  # opkit's node, not a Join node
    pieces = T.Split(3)(v, 0, splits)
    max_, argmax = T.MaxAndArgmax([2, 0])(t3)
    broadcast = T.Rebroadcast((0, True))(x[:1])
    assert broadcast.type.broadcastable == (True, False)
    assert T.Rebroadcast((0, False))(broadcast).type.broadcastable == (False, False)
    outputs = [
        joined, T.join_(0, x, x), *pieces, max_, argmax,
        T.Flatten(2)(t3), T.Flatten()(x),
        T.Tile(2)(x, [2, 3]), T.Tile(3)(x, reps),  # a symbolic reps of length ndim
        T.Tri("int32")(n, n + 1, -1),
        T.Nonzero()(x),
        T.PermuteRowElements()(x, perm, True), T.PermuteRowElements()(x, perm, 0),
        T.AllocEmpty("float32")(n, 2),
        broadcast, T.Rebroadcast((0, False))(broadcast),
        T.DiffOp(2, 0)(x), T.DiffOp(1)(v), T.DiffOp(0)(v),
        T.Default()(x, x + 1),
        T.Choose("clip")(idx, x),
        T.grad(T.DiffOp(1)(v).sum() + T.Join()(0, v, v).max(), v),  # the nodes have opkit's gradients
    ]
    assert T.Nonzero()(x).dtype == "int64" and outputs[11].dtype == "int32"
    assert T.Tri()(n, n, 0).dtype == opkit.config.floatX and outputs[15].dtype == "float32"
    assert max_.dtype == "float64" and argmax.dtype == "int64"

    f = opkit.function([x, t3, v, splits, reps, perm, idx, n], outputs, mode="FAST_COMPILE")
    X = np.array([[0.0, 2.5, -1.0], [3.0, 0.0, 4.0]])
    T3 = np.random.RandomState(0).randn(3, 4, 5)
    V = np.array([1.0, 4.0, 9.0, 16.0, 25.0, 36.0])
    P = np.array([2, 0, 1])
    got = iter(f(X, T3, V, np.array([3, 2, 1]), np.array([2, 1, 2]), P, np.array([1, 0, 5]), 3))
    np.testing.assert_array_equal(next(got), np.concatenate([X, X], axis=1))
    np.testing.assert_array_equal(next(got), np.concatenate([X, X], axis=0))
    for want in np.split(V, [3, 5]):
        np.testing.assert_array_equal(next(got), want)
    np.testing.assert_array_equal(next(got), T3.max(axis=(0, 2)))
    # Theano's argmax over several axes: kept axes in front, the reduced ones flattened in order
    np.testing.assert_array_equal(next(got), T3.transpose(1, 0, 2).reshape(4, -1).argmax(-1))
    np.testing.assert_array_equal(next(got), T3.reshape(3, 20))
    np.testing.assert_array_equal(next(got), X.ravel())
    np.testing.assert_array_equal(next(got), np.tile(X, (2, 3)))
    np.testing.assert_array_equal(next(got), np.tile(X, (2, 1, 2)))
    tri = next(got)
    np.testing.assert_array_equal(tri, np.tri(3, 4, -1, dtype="int32"))
    assert tri.dtype == np.int32
    np.testing.assert_array_equal(next(got), np.vstack(np.nonzero(X)))
    np.testing.assert_array_equal(next(got), X[:, np.argsort(P)])  # inverse: x[i, perm[j]] goes to j
    np.testing.assert_array_equal(next(got), X[:, P])
    empty = next(got)
    assert empty.shape == (3, 2) and empty.dtype == np.float32
    np.testing.assert_array_equal(next(got), X[:1])
    np.testing.assert_array_equal(next(got), X[:1])
    np.testing.assert_array_equal(next(got), np.diff(X, 2, 0))
    np.testing.assert_array_equal(next(got), np.diff(V))
    np.testing.assert_array_equal(next(got), V)
    np.testing.assert_array_equal(next(got), X)  # opkit's inputs are never None: x itself
    np.testing.assert_array_equal(next(got), np.choose(np.array([1, 0, 5]), X, mode="clip"))
    # diff's sum is v[-1] - v[0]; the max's gradient goes to every maximum (Theano's: g * eq(x, max)), both 36s
    np.testing.assert_array_equal(next(got), [-1.0, 0, 0, 0, 0, 3.0])
    assert T.Nonzero()(T.dvector()).type.shape[0] == 1


def test_op_classes_give_clear_errors_for_bad_arguments():
    x, v, n = T.dmatrix("x"), T.dvector("v"), T.lscalar("n")
    with pytest.raises(TypeError, match="Join: axis must be an integer known"):
        T.Join()(n, x, x)
    with pytest.raises(ValueError, match="Cannot join an empty list"):
        T.Join()(0)
    with pytest.raises(TypeError, match="Join cannot handle arguments of dimension 0"):
        T.Join()(0, T.dscalar(), T.dscalar())
    with pytest.raises(TypeError, match="splits must be an integer vector"):
        T.Split(2)(v, 0, T.dvector())
    with pytest.raises(NotImplementedError, match="call the op"):
        T.Split(2).make_node(v, 0, T.lvector())
    with pytest.raises(ValueError, match="invalid output ndimensions"):
        T.Flatten(3)(x)
    with pytest.raises(ValueError, match="not ndim=3"):
        T.Tile(3)(x, [2, 2])
    with pytest.raises(ValueError, match="Nonzero only supports non-scalar"):
        T.Nonzero()(T.dscalar())
    with pytest.raises(TypeError, match="must be integers"):
        T.PermuteRowElements()(x, v, False)
    with pytest.raises(TypeError, match="AllocEmpty: dtype must be a string"):
        T.AllocEmpty(np.float32)
    with pytest.raises(TypeError, match="each length must be an integer scalar"):
        T.AllocEmpty("float64")(T.dscalar())
    with pytest.raises(TypeError, match="Rebroadcast needs bool"):
        T.Rebroadcast((0, 1))
    with pytest.raises(ValueError, match="non-existent dimension"):
        T.Rebroadcast((2, True))(x)
    with pytest.raises(ValueError, match="out of bounds"):
        T.DiffOp(1, 2)(x)
    with pytest.raises(TypeError, match="same type"):
        T.Default()(x, T.fmatrix())
    with pytest.raises(ValueError, match="out of bounds"):
        T.MaxAndArgmax([2])(x)
    assert T.Rebroadcast((1, True), (0, False)) == T.Rebroadcast((0, False), (1, True))
    assert str(T.Rebroadcast((1, True))) == "Rebroadcast{?,1}" and str(T.Split(3)) == "Split{3}"
    assert hash(T.Rebroadcast((1, True))) == hash(T.Rebroadcast((1, True)))
