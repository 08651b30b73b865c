"""Theano's and PyTensor's ways of writing a static shape: `TensorType(dtype, broadcastable)` with bools,
`broadcastable=`, `shape=`; everywhere a shape is read (TensorType, clone, __call__, constructors), and
the shape a compiled function reports for an op output typed that way (issue 34, item 1)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import opkit
import opkit.tensor as ot
from opkit import Apply, Op

BOOLS = [np.bool_(True), np.bool_(False), True, False]


@pytest.mark.parametrize("bcast, shape", [
    ([False, False, False, False], (None, None, None, None)),
    ((True, False), (1, None)),
    ([np.True_, np.False_], (1, None)),
    (np.array([False, True, False]), (None, 1, None)),
    ((False,), (None,)),
    ((True,), (1,)),
    ([], ()),
    ((), ()),
])
def test_theano_positional_broadcastable_is_read_as_broadcastable(bcast, shape):
    t = ot.TensorType("float64", bcast)
    assert t.shape == shape and t.ndim == len(shape)
    assert t.broadcastable == tuple(s == 1 for s in shape)
    assert ot.TensorType("float64", broadcastable=bcast) == t
    assert ot.TensorType("float64", shape=bcast) == t  # PyTensor maps bools given as shape= the same way


@given(st.lists(st.sampled_from(BOOLS), max_size=6))
def test_any_bool_sequence_maps_true_to_one_and_false_to_unknown(bcast):
    t = ot.TensorType("float32", bcast)
    assert t.shape == tuple(1 if b else None for b in bcast)
    assert ot.TensorType("float32", broadcastable=bcast) == t


@given(st.lists(st.one_of(st.none(), st.integers(0, 5)), max_size=6))
def test_pytensor_shape_form_is_kept(shape):
    t = ot.TensorType("int32", shape)
    assert t.shape == tuple(shape)
    assert ot.TensorType("int32", shape=tuple(shape)) == t
    assert ot.TensorType("int32", np.array(shape, dtype=object) if shape else ()) == t


def test_theano_argument_order_name_is_third():
    t = ot.TensorType("float64", (False, True), "my_type")
    assert t.name == "my_type" and t.shape == (None, 1)
    assert ot.TensorType("float64", (2, 3), "n").name == "n"


def test_broadcastable_keyword_takes_theano_zero_one_ints():
    assert ot.TensorType("float64", broadcastable=[0, 1]).shape == (None, 1)


@pytest.mark.parametrize("shape", [(False, 3), [True, None], (np.False_, 2, None), (None, np.True_)])
def test_mixed_bools_and_lengths_is_an_error_naming_both_forms(shape):
    with pytest.raises(TypeError, match=r"^TensorType: shape .* mixes bools with lengths\. A sequence of bools "
                                        r"is Theano's broadcastable form .*opkit does not guess which was meant\."
                                        r"\nHint: pass one form, e.g\. shape="):
        ot.TensorType("float64", shape)


def test_mixed_forms_hint_gives_the_broadcastable_reading():
    with pytest.raises(TypeError, match=r"shape=\(None, 3\) \(if the bools meant broadcastable\)"):
        ot.TensorType("float64", [False, 3])


@pytest.mark.parametrize("bcast, entry", [([None, True], "None"), ([2, False], "2"), ([1.0], "1.0")])
def test_broadcastable_keyword_takes_only_bools(bcast, entry):
    with pytest.raises(TypeError, match=rf"^TensorType: broadcastable entry \d is {entry}; broadcastable entries "
                                        rf"are bools \(True: length 1, False: unknown length\)\.\nHint: to give "
                                        rf"lengths, pass shape="):
        ot.TensorType("float64", broadcastable=bcast)


def test_shape_and_broadcastable_together_must_agree():
    assert ot.TensorType("float64", (1, None, 3), broadcastable=(True, False, False)).shape == (1, None, 3)
    for shape, bcast in [((None,), (True,)), ((1,), (False,)), ((2, 3), (False,)), ((1, 1), (True, False))]:
        with pytest.raises(ValueError, match=r"^TensorType: shape=.* and broadcastable=.* disagree \(broadcastable "
                                             r"is True exactly where the length is 1\)\.\nHint: pass only one"):
            ot.TensorType("float64", shape, broadcastable=bcast)


def test_missing_or_malformed_shape_errors():
    with pytest.raises(TypeError, match=r"^TensorType needs shape=\(\.\.\.\) \(ints and None\) or "
                                        r"broadcastable=\[\.\.\.\] \(bools\)$"):
        ot.TensorType("float64")
    with pytest.raises(TypeError, match=r"^TensorType: shape must be a tuple of ints and None"):
        ot.TensorType("float64", "ab")
    with pytest.raises(TypeError, match=r"^TensorType: broadcastable must be a tuple of bools"):
        ot.TensorType("float64", broadcastable=True)
    with pytest.raises(ValueError, match=r"^TensorType: shape entry 1 is -2; lengths cannot be negative"):
        ot.TensorType("float64", (1, -2))


def test_clone_reads_both_forms():
    t = ot.TensorType("float64", (None, None))
    assert t.clone(shape=(False, True)).shape == (None, 1)
    assert t.clone(shape=(2, 1)).shape == (2, 1)
    assert t.clone(broadcastable=[True, False]).shape == (1, None)
    assert t.clone(dtype="float32") == ot.TensorType("float32", (None, None))
    assert t.clone(shape=[]).shape == ()
    with pytest.raises(TypeError, match="mixes bools with lengths"):
        t.clone(shape=(True, 2))


def test_type_call_and_constructors_read_both_forms():
    assert ot.dmatrix("m", shape=(True, False)).type.shape == (1, None)
    assert ot.matrix(shape=[np.False_, np.True_]).type.shape == (None, 1)
    assert ot.tensor("float32", (False, False, True)).type.shape == (None, None, 1)
    assert ot.tensor("float32", broadcastable=(False, True)).type.shape == (None, 1)
    assert ot.tensor("float32", ()).type.shape == ()
    assert ot.dvectors("ab", shape=(False,))[0].type.shape == (None,)
    with pytest.raises(ValueError, match=r"^matrix: shape \(1, None, None\) has 3 entries but a matrix has 2"):
        ot.matrix(shape=(True, False, False))
    with pytest.raises(TypeError, match=r"^vector: shape \(False, 2\) mixes bools with lengths"):
        ot.vector(shape=(False, 2))


def test_pickled_type_keeps_its_shape():
    import pickle

    t = ot.TensorType("float64", [False, True], "named")
    assert pickle.loads(pickle.dumps(t)) == t


class _Spread4(Op):
    """A Theano-style op: its output type is declared with Theano's positional broadcastable."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [ot.TensorType(x.dtype, [False, False, False, False])()])

    def perform(self, node, inputs, outputs):
        (x,) = inputs
        outputs[0][0] = np.broadcast_to(x, (2, 4, 6, 7)).copy()


class _Spread4C(_Spread4):
    def c_code_cache_version(self):
        return (1,)

    def c_code(self, node, name, inp, out, sub):
        x, z, fail = inp[0], out[0], sub["fail"]
        return f"""
        {{
            npy_intp dims[4] = {{2, 4, 6, 7}};
            Py_XDECREF({z});
            {z} = (PyArrayObject*)PyArray_ZEROS(4, dims, PyArray_TYPE({x}), 0);
            if (!{z}) {fail};
            if (PyArray_CopyInto({z}, {x}) != 0) {fail};
        }}
        """


@pytest.mark.parametrize("op", [_Spread4(), _Spread4C()], ids=["perform", "c_code"])
@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_function_returns_the_real_shape_of_an_output_typed_with_bools(op, mode):
    x = ot.dvector("x")
    y = op(x)
    assert y.type.shape == (None,) * 4
    f = opkit.function([x], [y, y.shape, y.shape[3]], mode=mode)
    data = np.arange(7.0)
    value, shape, last = f(data)
    np.testing.assert_array_equal(value, np.broadcast_to(data, (2, 4, 6, 7)))
    np.testing.assert_array_equal(shape, [2, 4, 6, 7])
    assert int(last) == 7
