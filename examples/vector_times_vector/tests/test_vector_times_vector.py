"""VectorTimesVector, used the way a user of the installed package would."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.testing import assert_allclose
from vector_times_vector import VectorTimesVector


def test_multiplies_like_numpy(opkit_rng):
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], VectorTimesVector()(x, y))
    a, b = opkit_rng.random(7), opkit_rng.random(7)
    assert_allclose(a * b, f(a, b))


def test_output_dtype_is_the_upcast_and_strided_inputs_work():
    a, b = ot.fvector("a"), ot.ivector("b")
    out = VectorTimesVector()(a, b)
    assert out.dtype == "float64"
    f = opkit.function([a, b], out)
    av = np.arange(10, dtype="float32")[::2]
    bv = np.arange(5, dtype="int32")
    assert_allclose(av * bv, f(av, bv))


def test_shape_mismatch_raises_the_c_error():
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], VectorTimesVector()(x, y))
    with pytest.raises(ValueError, match=r"Shape mismatch .* x.shape\[0\] == 3 and y.shape\[0\] == 4"):
        f(np.ones(3), np.ones(4))


def test_make_node_rejects_matrices():
    with pytest.raises(TypeError, match="x must be a 1-d vector"):
        VectorTimesVector()(ot.dmatrix("x"), ot.dvector("y"))


def test_make_node_refuses_float16_rather_than_multiplying_bits():
    with pytest.raises(TypeError, match="does not handle float16 .npy_half holds the bits"):
        VectorTimesVector()(ot.tensor("float16", shape=(None,)), ot.dvector("y"))


def test_registered_through_the_entry_point():
    op = opkit.ops.vector_times_vector
    assert isinstance(op, VectorTimesVector)
    info = opkit.ops.info("vector_times_vector")
    assert info["distribution"] == "vector-times-vector"
    assert [p.rsplit("/", 1)[-1] for p in info["c_files"]] == ["vectorTimesVector.c"]

