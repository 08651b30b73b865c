"""zeros, ones, alloc, zeros_like, ones_like, arange and TensorVariable.zeros_like against numpy."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.tensor.shapes.alloc import Alloc
from opkit.core.tensor.shapes.creation import ARange
from opkit.testing import InferShapeTester, verify_grad
from helpers.modes import FAST_RUN_GRAPH

MODES = pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])


@MODES
def test_zeros_ones_and_alloc(mode):
    n, m = ot.lscalar("n"), ot.lscalar("m")
    v = ot.dvector("v")
    f = opkit.function([n, m, v], [ot.zeros((n, 3)), ot.ones((2, m), dtype="int8"), ot.zeros(n, dtype="bool"),
                                   ot.alloc(v, n, v.shape[0]), ot.ones(ot.stack([n, m])), ot.zeros(())], mode=mode)
    results = f(2, 0, np.arange(3.0))
    floatx = opkit.config.floatX
    expected = [np.zeros((2, 3), floatx), np.ones((2, 0), np.int8), np.zeros(2, bool),
                np.broadcast_to(np.arange(3.0), (2, 3)), np.ones((2, 0), floatx), np.zeros((), floatx)]
    for result, want in zip(results, expected):
        np.testing.assert_array_equal(result, want, strict=True)


@MODES
def test_like_constructors_and_the_method(mode):
    x = ot.tensor("int16", (None, None), name="x")
    f = opkit.function([x], [ot.zeros_like(x), ot.ones_like(x), x.zeros_like(), x.zeros_like("float32"),
                             ot.ones_like(x, dtype="complex64"), x.ones_like()], mode=mode)
    value = np.asfortranarray(np.arange(6, dtype=np.int16).reshape(2, 3))[:, ::-1]
    expected = [np.zeros_like(value), np.ones_like(value), np.zeros_like(value), np.zeros((2, 3), np.float32),
                np.ones((2, 3), np.complex64), np.ones_like(value)]
    for result, want in zip(f(value), expected):
        np.testing.assert_array_equal(result, want, strict=True)


@MODES
@pytest.mark.parametrize("args, kwargs", [
    ((5,), {}), ((2, 9), {}), ((2, 9, 3), {}), ((9, 2, -2), {}), ((0.5, 3), {}), ((1, 2, 0.3), {}),
    ((5, 2), {}), ((5,), {"dtype": "float32"}), ((-3, 3), {"dtype": "int8"}),
])
def test_arange_with_constants_matches_numpy(mode, args, kwargs):
    result = opkit.function([], ot.arange(*args, **kwargs), mode=mode)()
    np.testing.assert_array_equal(result, np.arange(*args, **kwargs), strict=True)


@MODES
def test_arange_with_symbolic_bounds(mode):
    start, stop, step = ot.lscalar("start"), ot.lscalar("stop"), ot.lscalar("step")
    out = ot.arange(start, stop, step)
    assert out.dtype == "int64"
    f = opkit.function([start, stop, step], [out, out.shape[0]], mode=mode)
    for args in [(0, 5, 1), (5, 0, -2), (3, 3, 1), (0, 10, 3)]:
        values, length = f(*args)
        np.testing.assert_array_equal(values, np.arange(*args), strict=True)
        assert length == len(np.arange(*args))
    with pytest.raises(ValueError, match="arange: step must not be zero"):
        f(0, 5, 0)
    assert ot.arange(ot.dscalar("s")).dtype == "float64"


def test_constructor_errors():
    with pytest.raises(TypeError, match="zeros: 'int3' is not a numeric dtype"):
        ot.zeros((2,), dtype="int3")
    with pytest.raises(ValueError, match=r"ones: negative dimensions are not allowed, got shape \(2, -1\)"):
        ot.ones((2, -1))
    with pytest.raises(ValueError, match="zeros: the length of the shape vector"):
        ot.zeros(ot.lvector("s"))
    with pytest.raises(TypeError, match="arange: start must be a real scalar"):
        ot.arange(ot.dvector("v"), 3)


def test_alloc_gradient():
    verify_grad(lambda v: ot.alloc(v, 3, 2) * np.arange(6.0).reshape(3, 2), [np.array([1.0, 2.0])],
                mode="FAST_COMPILE")


class TestConstructorShapes(InferShapeTester):
    mode = FAST_RUN_GRAPH  # infer_shape under FAST_RUN's rewrites; the ops' C results are numpy's (tested above)

    def test_alloc(self):
        n = ot.lscalar("n")
        self._compile_and_check([n], [ot.zeros((n, 3)), ot.ones((2, n), dtype="int32")], [4], Alloc)

    def test_arange(self):
        start, stop = ot.lscalar("start"), ot.lscalar("stop")
        self._compile_and_check([start, stop], [ot.arange(start, stop)], [2, 9], ARange)
