"""Trust 3, API items: shape= on every typed constructor, eval/givens on intermediates, grad wrt constants,
0-d known gradients."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.tensor.constructors import plural_constructors
from opkit.core.tensor.type import named_types

# ---------------------------------------------------------------- T6: shape= on every typed constructor

_GENERIC = {"scalar": 0, "vector": 1, "matrix": 2, "tensor3": 3, "tensor4": 4}


def _ndim_of(name):
    """Return the ndim a constructor name stands for (dvector -> 1, fmatrices -> 2)."""
    for kind, ndim in _GENERIC.items():
        if kind in name or (kind == "matrix" and "matrices" in name):
            return ndim
    raise AssertionError(name)


TYPED = sorted(named_types())
PLURALS = sorted(plural_constructors(named_types()))


def test_every_constructor_is_enumerated():
    """The lists below cover every public constructor name of opkit.tensor (a new one must be added)."""
    public = {name for name in ot.__all__ if any(kind in name for kind in (*_GENERIC, "matrices"))
              and callable(getattr(ot, name))}
    assert public == set(TYPED) | set(PLURALS) | set(_GENERIC)
    assert len(TYPED) == 20 and len(PLURALS) == 25


@pytest.mark.parametrize("name", TYPED)
def test_typed_constructor_takes_shape(name):
    make, ndim = getattr(ot, name), _ndim_of(name)
    shape = tuple(range(2, 2 + ndim))
    v = make("v", shape=shape)
    assert v.name == "v" and v.type.shape == shape and v.dtype == make.dtype
    assert make.shape == (None,) * ndim  # the module-level type itself is unchanged
    partial = make(shape=(None,) * ndim)
    assert partial.type == make and partial.name is None
    article = "an" if name[0] in "aeiou" else "a"
    with pytest.raises(ValueError, match=rf"^{name}: shape \(1, 2, 3, 4, 5\) has 5 entries but {article} {name} "
                                         rf"has {ndim} dimensions?\.\nHint: pass one entry per dimension"):
        make("v", shape=(1, 2, 3, 4, 5))
    with pytest.raises(TypeError, match=rf"^{name}: shape must be a tuple of ints and None"):
        make("v", shape=3)
    if ndim:
        with pytest.raises(ValueError, match=rf"^{name}: shape entry 0 is -1; lengths cannot be negative"):
            make(shape=(-1,) + (None,) * (ndim - 1))
        with pytest.raises(ValueError, match=rf"^{name}: shape \({', '.join(['None'] * (ndim + 1))},?\) has "
                                             rf"{ndim + 1} entries"):
            make(shape=(None,) * (ndim + 1))


@pytest.mark.parametrize("name", PLURALS)
def test_plural_constructor_takes_shape(name):
    make, ndim = getattr(ot, name), _ndim_of(name)
    shape = (3,) * ndim
    a, b = make("a", "b", shape=shape)
    assert (a.name, b.name) == ("a", "b") and a.type.shape == b.type.shape == shape
    assert make("c", shape=shape).type.shape == shape
    assert [v.type.shape for v in make(2, shape=shape)] == [shape, shape]
    with pytest.raises(ValueError, match=r"has 5 entries but an? \w+ has"):
        make("a", "b", shape=(1, 2, 3, 4, 5))


def test_shape_on_a_type_with_static_lengths():
    typ = ot.TensorType("float64", (3, None))
    assert typ("m", shape=(None, 4)).type.shape == (3, 4)
    assert typ("m", shape=(3, 4)).type.shape == (3, 4)
    with pytest.raises(ValueError, match=r"^TensorType\(float64, shape=\(3, None\)\): shape entry 0 is 4 but "
                                         r"TensorType\(float64, shape=\(3, None\)\) has length 3 on axis 0$"):
        typ("m", shape=(4, 4))
    with pytest.raises(ValueError, match=r"shape \(1,\) has 1 entry but a TensorType\(float64, shape=\(3, None\)\) "
                                         r"has 2 dimensions"):
        typ("m", shape=(1,))


def test_the_readme_line_runs_and_checks_the_length():
    v = ot.dvector("v", shape=(3,))
    f = opkit.function([v], v * 2)
    np.testing.assert_array_equal(f([1.0, 2.0, 3.0]), [2.0, 4.0, 6.0])
    with pytest.raises(TypeError, match=r"axis 0 must be 3"):
        f([1.0, 2.0])


# ---------------------------------------------------------------- T9: eval on intermediates and by name

DTYPES = ["bool", "int8", "int32", "int64", "uint8", "uint16", "float16", "float32", "float64", "complex64",
          "complex128"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_eval_replaces_an_intermediate_result_every_dtype(dtype):
    x, w = ot.vector("x", dtype=dtype), ot.vector("w", dtype=dtype)
    y = x + w
    y.name = "y"
    z = y * w
    given, weights = np.array([1, 0, 1], dtype), np.array([1, 1, 0], dtype)
    want = given * weights
    for key in (y, "y"):
        result = z.eval({key: given, w: weights}, mode="FAST_COMPILE")
        np.testing.assert_array_equal(result, want, strict=True)
    p = y.type()
    f = opkit.function([p, w], z, givens={y: p}, mode="FAST_COMPILE")
    np.testing.assert_array_equal(f(given, weights), want, strict=True)


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", "DebugMode"])
def test_eval_on_intermediates_in_every_mode_agrees_with_givens(mode):
    x = ot.dvector("x")
    y = ot.exp(x)
    y.name = "y"
    z = y * 2 + x.sum()
    y_value, x_value = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    want = y_value * 2 + x_value.sum()
    np.testing.assert_array_equal(z.eval({y: y_value, x: x_value}, mode=mode), want)
    np.testing.assert_array_equal(z.eval({"y": y_value, "x": x_value}, mode=mode), want)
    p = y.type("p")
    f = opkit.function([p, x], z, givens={y: p}, mode=mode)
    np.testing.assert_array_equal(f(y_value, x_value), want)
    np.testing.assert_array_equal(z.eval({"x": x_value}, mode=mode), np.exp(x_value) * 2 + x_value.sum())
    np.testing.assert_array_equal(z.eval({z: y_value}, mode=mode), y_value)  # the output itself


def test_eval_on_a_shared_variable_sets_it_for_that_call_only():
    s = opkit.shared(np.array([1.0, 2.0]), name="s")
    out = s * 3
    np.testing.assert_array_equal(out.eval({s: np.array([5.0, 6.0])}), [15.0, 18.0])
    np.testing.assert_array_equal(out.eval({"s": np.array([0.0, 1.0])}), [0.0, 3.0])
    np.testing.assert_array_equal(out.eval(), [3.0, 6.0])
    np.testing.assert_array_equal(s.get_value(), [1.0, 2.0])


def test_eval_key_errors():
    x = ot.dvector("x")
    c = ot.as_tensor_variable(2.0)
    a1, a2 = ot.dscalar("a"), ot.dscalar("a")
    z = x * c + a1 + a2
    with pytest.raises(TypeError, match=r"^eval: 2.0 is a constant; its value cannot be set.\nHint: build the graph "
                                        r"with a variable"):
        z.eval({c: 3.0, x: [1.0], a1: 0.0, a2: 0.0})
    with pytest.raises(ValueError, match=r"^eval: no variable named 'nope' in the graph of add.out.\nHint: pass the "
                                         r"variable itself as the key, or check its .name.$"):
        z.eval({"nope": 1.0})
    with pytest.raises(ValueError, match=r"^eval: 2 variables are named 'a' in the graph of add.out, so the name "
                                         r"does not say which one to set.\nHint: pass the variable itself"):
        z.eval({"a": 1.0})
    with pytest.raises(TypeError, match=r"^eval: the key 3 is neither a Variable nor the name of one$"):
        z.eval({3: 1.0})
    with pytest.raises(ValueError, match=r"^eval: x is given twice \(once by name, once as a variable\)$"):
        z.eval({"x": [1.0], x: [2.0]})
    y = x * 2
    with pytest.raises(TypeError, match=r"expected TensorType\(float64, vector\).*wrong number of dimensions"):
        (y + 1).eval({y: [[1.0]]})


def test_function_refuses_an_intermediate_input_and_says_how_to_use_givens():
    x = ot.dvector("x")
    y = x * 2
    with pytest.raises(TypeError, match=r"^input 0 \(mul.out\) is computed by mul; function inputs must be free "
                                        r"variables.\nHint: .*givens=\{mul.out: v\}"):
        opkit.function([y], y + 1)
    v = y.type()
    np.testing.assert_array_equal(opkit.function([v], y + 1, givens={y: v})([1.0, 2.0]), [2.0, 3.0])


# ---------------------------------------------------------------- T10: the gradient with respect to a constant

@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", "DebugMode"])
def test_grad_wrt_a_python_number_constant(dtype, mode):
    x = ot.vector("x", dtype=dtype)
    c = ot.as_tensor_variable(2.0)  # a Python float: retyped to x's dtype where they meet (NEP 50)
    cost = (x * c + c * c).sum()
    g = opkit.grad(cost, c)
    assert g.dtype == "float64" and g.ndim == 0
    x_value = np.array([1.0, 2.0, 4.0], dtype)
    result = opkit.function([x], g, mode=mode)(x_value)
    # c * c is broadcast over the 3 elements of x: d/dc of 3 c^2 is 6c.
    np.testing.assert_allclose(result, x_value.astype(float).sum() + 6 * 2.0, rtol=1e-3)


def test_grad_wrt_python_int_constant_and_an_array_constant():
    x = ot.fvector("x")
    i = ot.as_tensor_variable(3)  # int64, retyped to float32 by x * i: the gradient flows as through a cast
    g = opkit.grad((x * i).sum(), i)
    assert g.dtype == "float32"
    np.testing.assert_allclose(g.eval({x: np.array([1.0, 2.0], "float32")}), 3.0)
    c = ot.constant(np.array([1.0, 2.0]))
    g, gx = opkit.grad((ot.dvector("y") * c).sum() + (c ** 2).sum(), [c, x], disconnected_inputs="ignore")
    np.testing.assert_allclose(g.eval({"y": np.array([5.0, 7.0])}), [5.0 + 2.0, 7.0 + 4.0])


_USES_OF_A_CONSTANT = {
    "dot": lambda c, x: ot.dot(c, x), "concatenate": lambda c, x: (ot.concatenate([c, x]) ** 2).sum(),
    "maximum": lambda c, x: ot.maximum(c, x).sum(), "subtensor": lambda c, x: c[0] * x.sum(),
    "stack": lambda c, x: (ot.stack([c, x]) * 3).sum(), "reshape": lambda c, x: ot.reshape(c, (2, 1)).sum() * x.sum(),
    "pow": lambda c, x: (x ** c).sum(), "prod": lambda c, x: ot.prod(c) * x.sum(), "mean": lambda c, x: ot.mean(c * x),
    "where": lambda c, x: ot.where(x > 1, c, x).sum(), "clip": lambda c, x: ot.clip(c, 0.0, 1.5).sum() * x.sum(),
    "dimshuffle": lambda c, x: (c.dimshuffle("x", 0) * x).sum(), "cast": lambda c, x: ot.cast(c, "float32").sum(),
    "alloc": lambda c, x: ot.alloc(c, 3, 2).sum() * x.sum(), "specify_shape": lambda c, x: (ot.specify_shape(c, (2,)) * x).sum(),
    "python_number": lambda c, x: (c * 2.5 + x).sum(),
}


@pytest.mark.parametrize("name", sorted(_USES_OF_A_CONSTANT))
def test_grad_wrt_a_constant_equals_grad_wrt_a_variable_of_that_value(name):
    build, value = _USES_OF_A_CONSTANT[name], np.array([1.0, 2.0])
    x, v = ot.dvector("x"), ot.dvector("v")
    c = ot.constant(value)
    x_value = np.array([0.5, 3.0])
    via_constant = opkit.function([x], opkit.grad(build(c, x), c), mode="FAST_COMPILE",
                                  on_unused_input="ignore")(x_value)
    via_variable = opkit.function([x, v], opkit.grad(build(v, x), v), mode="FAST_COMPILE",
                                  on_unused_input="ignore")(x_value, value)
    np.testing.assert_array_equal(via_constant, via_variable)


def test_a_constant_the_cost_does_not_use_is_still_disconnected():
    x, c = ot.dscalar("x"), ot.as_tensor_variable(2.0)
    with pytest.raises(opkit.gradient.DisconnectedInputError, match=r"the cost does not depend on wrt\[0\] \(2.0\)"):
        opkit.grad(x * 3.0, c)


# ---------------------------------------------------------------- T12: known_grads and eval points broadcast

@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_known_grads_takes_a_0d_gradient_for_an_nd_output(dtype):
    m = ot.matrix("m", dtype=dtype)
    out = ot.exp(m) * 2
    g = ot.scalar("g", dtype=dtype)
    m_value = np.zeros((2, 3), dtype)
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = opkit.function([m, g], opkit.grad(None, m, known_grads={out: g}), mode=mode)
        np.testing.assert_allclose(f(m_value, 3.0), np.full((2, 3), 6.0, dtype), rtol=1e-3)
        lop = opkit.function([m, g], opkit.Lop(out, m, g), mode=mode)
        np.testing.assert_allclose(lop(m_value, 3.0), np.full((2, 3), 6.0, dtype), rtol=1e-3)
    for number in (1.0, np.float64(1.0), np.array(1.0)):
        result = opkit.grad(None, m, known_grads={out: number}).eval({m: m_value}, mode="FAST_COMPILE")
        np.testing.assert_allclose(result, np.full((2, 3), 2.0), rtol=1e-3)
        assert result.dtype == dtype


def test_known_grads_broadcast_a_lower_rank_gradient_numpy_style():
    m, v = ot.dmatrix("m"), ot.dvector("v")
    out = m * 2
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = opkit.function([m, v], opkit.grad(None, m, known_grads={out: v}), mode=mode)
        np.testing.assert_array_equal(f(np.zeros((2, 3)), np.array([1.0, 2.0, 3.0])), [[2, 4, 6], [2, 4, 6]])
        op = "alloc" if mode == "FAST_RUN" else "fill"
        with pytest.raises(ValueError, match=rf"^{op}: cannot broadcast a value of shape \(2,\) to the shape "
                                             r"\(2, 3\): numpy's broadcasting needs"):
            f(np.zeros((2, 3)), np.array([1.0, 2.0]))


def test_gradient_points_with_too_many_dimensions_or_for_rop():
    m = ot.dmatrix("m")
    out = m * 2
    with pytest.raises(ValueError, match=r"^known_grads\[mul.out\] has 3 dimensions but mul.out has 2\nHint: give "
                                         r"it at most 2 dimensions; fewer are broadcast to mul.out's shape.$"):
        opkit.grad(None, m, known_grads={out: np.ones((1, 2, 3))})
    with pytest.raises(ValueError, match=r"^eval_points\[0\] has 3 dimensions but mul.out has 2\nHint: give it at "
                                         r"most 2"):
        opkit.Lop(out, m, np.ones((1, 2, 3)))
    # Rop's eval points are tangents of wrt: PyTensor, too, wants them with wrt's dimensions.
    with pytest.raises(ValueError, match=r"^eval_points\[0\] has 0 dimensions but m has 2\nHint: give it 2 "
                                         r"dimensions, the shape of m.$"):
        opkit.Rop(out, m, 1.0)
