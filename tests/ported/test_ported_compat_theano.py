"""opkit.compat.theano: Theano's module paths for opkit's names, its linker names, its documented no-ops."""

import numpy as np
import pytest

import opkit
import opkit.compat.theano as theano
import opkit.tensor as ot
from opkit.compat.theano import gof
from opkit.compat.theano.tensor import opt
from ported.theano.nnet import softmax


def np_softmax(v):
    e = np.exp(v - v.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("linker", [gof.CLinker, gof.OpWiseCLinker, gof.PerformLinker, gof.DualLinker])
def test_theanos_linker_names_run_a_ported_op(linker):
    x = ot.dmatrix("x")
    f = theano.function([x], softmax(x) * 2, mode=theano.Mode(linker=linker()))
    v = np.random.default_rng(0).normal(size=(3, 4))
    np.testing.assert_allclose(f(v), np_softmax(v) * 2, rtol=1e-12)


def test_the_names_are_opkits_own():
    assert theano.Op is opkit.Op and gof.Apply is opkit.Apply and gof.ParamsType is opkit.ParamsType
    assert theano.tensor.as_tensor_variable is ot.as_tensor_variable
    assert theano.tensor.basic.TensorType is ot.TensorType and theano.tensor.type.TensorType is ot.TensorType
    # theano.config reads opkit's flags (cxx: the compiler found, as Theano's config says it; opkit.compat.config)
    assert theano.config.floatX == opkit.config.floatX and theano.config.mode == opkit.config.mode
    with theano.config.change_flags(floatX="float32"):
        assert opkit.config.floatX == "float32"
    assert theano.config.cxx and theano.scalar.int32 is opkit.scalar.int32
    assert gof.CLinker().make_runner and gof.MethodNotDefined is gof.utils.MethodNotDefined


def test_rewrite_registration_is_a_documented_no_op():
    def rewrite(node):
        raise AssertionError("never run")

    assert opt.register_canonicalize(rewrite) is rewrite
    assert opt.register_specialize("stabilize", "fast_compile")(rewrite) is rewrite
    assert gof.local_optimizer([ot.Elemwise])(rewrite) is rewrite
    assert theano.compile.optdb.register("name", rewrite, "fast_run") is rewrite
    x = ot.dvector("x")
    assert gof.opt.copy_stack_trace(x, x * 2) is not None


def test_what_opkit_does_not_have_says_so():
    with pytest.raises(NotImplementedError, match="opkit has no scan op"):
        theano.scan(fn=lambda v: v, sequences=[ot.dvector()])
    with pytest.raises(gof.MethodNotDefined):
        theano.scalar.exp.c_code_contiguous_raw("float64", "n", "i", "o")


def test_theanos_tensor_helpers():
    from opkit.compat.theano.tensor import extract_constant, int_dtypes, shape_padleft

    assert "int64" in int_dtypes and "uint8" not in int_dtypes
    assert extract_constant(ot.constant(np.int64(3))) == 3
    x = ot.dvector("x")
    assert extract_constant(x) is x
    assert shape_padleft(x, 2).broadcastable == (True, True, False)


def test_values_eq_approx_ignoring_infinities_or_nans():
    from opkit.compat.theano.tensor.type import values_eq_approx_remove_inf, values_eq_approx_remove_nan

    assert values_eq_approx_remove_inf(np.array([1.0, np.inf, 3.0]), np.array([1.0, 7.0, 3.0 + 1e-12]))
    assert not values_eq_approx_remove_inf(np.array([1.0, np.inf]), np.array([2.0, 7.0]))
    assert values_eq_approx_remove_nan(np.array([np.nan, 2.0]), np.array([5.0, 2.0]))
    assert not values_eq_approx_remove_nan(np.array([1.0]), np.array([1.0, 2.0]))


def test_pytensor_helpers_join_flip_blockwise():
    from opkit.compat.pytensor.tensor import Blockwise, flip, join, pad
    from ported.pytensor.conv import Convolve1d

    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    f = opkit.function([x, y], [join(1, x, y), flip(x), flip(x, axis=1)])
    a, b = np.arange(6.0).reshape(2, 3), np.ones((2, 2))
    got = f(a, b)
    np.testing.assert_array_equal(got[0], np.concatenate([a, b], axis=1))
    np.testing.assert_array_equal(got[1], a[::-1, ::-1])
    np.testing.assert_array_equal(got[2], a[:, ::-1])
    blockwise = Blockwise(Convolve1d())
    v, k = ot.dvector("v"), ot.dvector("k")
    np.testing.assert_allclose(opkit.function([v, k], blockwise(v, k, True))(np.ones(3), np.ones(2)), [1, 2, 2, 1])
    with pytest.raises(NotImplementedError, match="opkit does not have"):
        blockwise(x, k, True)
    with pytest.raises(NotImplementedError, match="no Pad op"):
        pad(x, 1)
