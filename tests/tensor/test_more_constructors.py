"""PyTensor's rows, cols and ranks 5 to 7 (row, col, tensor5..7, their d/f/i/l/b/w/c/z forms and plurals), and the
complex constructors: static shapes, dtypes, errors, and one compiled function over complex and rank-7 inputs."""

import numpy as np
import pytest

import opkit
import opkit.compat.pytensor.tensor as pt
import opkit.compat.theano.tensor as tt
import opkit.tensor as ot

DTYPES = {"d": "float64", "f": "float32", "i": "int32", "l": "int64", "b": "int8", "w": "int16", "c": "complex64",
          "z": "complex128"}
SHAPES = {"row": (1, None), "col": (None, 1), "tensor5": (None,) * 5, "tensor6": (None,) * 6,
          "tensor7": (None,) * 7, "scalar": (), "vector": (None,), "matrix": (None, None)}


@pytest.mark.parametrize("prefix", sorted(DTYPES))
def test_named_types_have_pytensors_dtype_and_static_shape(prefix):
    for kind, shape in SHAPES.items():
        for namespace in (pt, tt):
            named = getattr(namespace, prefix + kind)
            assert (named.dtype, named.shape) == (DTYPES[prefix], shape), (prefix + kind, namespace.__name__)
        if prefix in "dfil" and kind in ("row", "col", "tensor5", "tensor6", "tensor7"):
            assert getattr(ot, prefix + kind) is getattr(pt, prefix + kind)


def test_generic_constructors_and_plurals():
    assert ot.row("r").type.shape == (1, None) and ot.col("c").type.shape == (None, 1)
    assert ot.row(dtype="int8").dtype == "int8" and ot.col(shape=(3, 1)).type.shape == (3, 1)
    assert ot.tensor5("t").ndim == 5 and ot.tensor7(dtype="complex64").dtype == "complex64"
    assert ot.tensor6(shape=(1, 2, 3, None, None, 4)).type.shape == (1, 2, 3, None, None, 4)
    a, b = ot.dtensor5s("a", "b")
    assert (a.name, b.name, a.type) == ("a", "b", ot.dtensor5)
    assert [v.type.shape for v in ot.drows("xy")] == [(1, None), (1, None)]
    assert len(ot.ftensor7s(3)) == 3 and ot.lcols("c").type == ot.lcol and ot.rows("r").type.shape == (1, None)
    assert ot.itensor6s("a", "b")[1].dtype == "int32" and ot.cols(2)[0].type.shape == (None, 1)
    assert pt.tensor5s is ot.tensor5s and tt.dtensor7s is ot.dtensor7s


@pytest.mark.parametrize("call, error, words", [
    (lambda: ot.row(shape=(2, None)), ValueError, "row: the first dimension of a row must have static length 1, "
                                                  "got 2"),
    (lambda: ot.col(shape=(None, None)), ValueError, "col: the second dimension of a col must have static length 1"),
    (lambda: ot.tensor5(shape=(None,) * 4), ValueError, "tensor5: shape (None, None, None, None) has 4 entries but "
                                                        "a tensor5 has 5 dimensions"),
    (lambda: ot.drow("r", shape=(3, None)), ValueError, "has length 1 on axis 0"),
    (lambda: ot.dtensor6s(1.5), TypeError, ""),
])
def test_bad_shapes_raise(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_complex_and_high_rank_inputs_compute():
    z, c = pt.zvector("z"), pt.cmatrix("c")
    r, k = ot.drow("r"), ot.dcol("k")
    t7 = ot.dtensor7("t7")
    f = opkit.function([z, c, r, k, t7], [z + z * 2j, c.sum(axis=0), r + k, t7.sum(axis=(0, 6)), t7 * 2],
                       mode=opkit.Mode(linker="py", optimizer="fast_run"))  # about the types: no C compile
    zv = np.array([1 + 2j, -3j])
    cv = np.array([[1 + 1j, 2], [3j, 4]], dtype="complex64")
    rv, kv = np.arange(3.0)[None, :], np.arange(2.0)[:, None]
    tv = np.arange(2 * 1 * 2 * 1 * 3 * 1 * 2, dtype="float64").reshape(2, 1, 2, 1, 3, 1, 2)
    got = f(zv, cv, rv, kv, tv)
    want = [zv + zv * 2j, cv.sum(axis=0), rv + kv, tv.sum(axis=(0, 6)), tv * 2]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-6)
    with pytest.raises(TypeError):
        f(zv, cv, np.ones((2, 3)), kv, tv)  # a row's first axis has length 1
