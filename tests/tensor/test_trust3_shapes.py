"""Issue 21.2 and 21.4: a shape is never more permissive than running the op; reductions of 0-size arrays.

FAST_RUN replaces ``out.shape`` by what each op's ``infer_shape`` computes; the
checks the op makes (reshape's element count, an index in bounds, equal lengths
to join, dot's alignment, broadcasting, max of an empty axis) must stay, with
the op's own error. Every reduction, its gradient and its C code give numpy's
result (or numpy's error) for 0-size inputs on each axis.
"""

import inspect
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opkit
import opkit.tensor as ot
from opkit.core.op import Op

MODES = ["FAST_RUN", "FAST_COMPILE"]
# FAST_RUN's rewrites (shape inference included) on the Python linker: Assert and Depend's perform
PY_FAST_RUN = opkit.Mode(linker="py", optimizer="fast_run")
REDUCTIONS = ["sum", "prod", "mean", "max", "min", "argmax", "argmin"]
EMPTY_MATRICES = [(0, 3), (3, 0), (0, 0), (2, 3)]


def _outcome(call):
    """Return ("ok", value) or ("raises", exception class, message) for `call()`."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy's mean of an empty axis
            return ("ok", call())
    except (ValueError, IndexError) as error:
        return ("raises", type(error), str(error))


# -- 21.2: the issue's cases, in both modes, with the op's own message ------------------------------------------

def _issue_cases():
    m = ot.dmatrix("m")
    v = ot.dvector("v")
    n = ot.dmatrix("n")
    return [
        ("reshape", [v], v.reshape((5,)), [np.zeros(6)], ValueError, "cannot reshape an array of shape (6,)"),
        ("index", [m], m[5], [np.zeros((2, 3))], IndexError, "index 5 is out of bounds for axis 0 with size 2"),
        ("concatenate", [m], ot.concatenate([m, m.T]), [np.zeros((2, 3))], ValueError,
         "along dimension 1, the array at index 0 has size 3 and the array at index 1 has size 2"),
        ("stack", [m, n], ot.stack([m, n]), [np.zeros((2, 3)), np.zeros((3, 2))], ValueError,
         "all the input array dimensions except for the concatenation axis must match exactly"),
        ("dot", [m, v], ot.dot(m, v), [np.zeros((2, 3)), np.zeros(4)], ValueError,
         "shapes (2,3) and (4,) not aligned: 3 (dim 1) != 4 (dim 0)"),
        ("max of empty", [m], ot.max(m, axis=0), [np.zeros((0, 3))], ValueError,
         "zero-size array to reduction operation maximum which has no identity"),
        ("argmax of empty", [m], ot.argmax(m, axis=0), [np.zeros((0, 3))], ValueError,
         "attempt to get argmax of an empty sequence"),
        ("broadcast", [m, n], m + n, [np.zeros((2, 3)), np.zeros((3, 3))], ValueError, "broadcast"),
        ("specify_shape", [m], ot.specify_shape(m, (2, None)), [np.zeros((3, 3))], ValueError,
         "specify_shape: expected shape (2, ?), got (3, 3) (axis 0 has length 3, not 2)"),
    ]


@pytest.mark.parametrize("mode", MODES + [PY_FAST_RUN, "DebugMode"])
def test_the_shape_of_an_op_that_raises_raises_the_same_error(mode):
    for name, inputs, out, values, error, message in _issue_cases():
        f = opkit.function(inputs, out, mode=mode)
        f_shape = opkit.function(inputs, out.shape, mode=mode)
        for compiled in (f, f_shape):
            with pytest.raises(error) as caught:
                compiled(*values)
            assert message in str(caught.value), (name, str(caught.value))


def test_every_opkit_op_with_infer_shape_states_its_checks():
    """An op that infers shapes says which checks its shape keeps (shape_checks), so none is silently dropped."""
    import opkit.core.builtin_ops  # noqa: F401  (registers the built-in ops)
    import opkit.core.tensor.elementwise.basic  # noqa: F401
    import opkit.core.tensor.shapes.creation  # noqa: F401
    import opkit.core.tensor.reductions.reduce_fusion  # noqa: F401
    import opkit.core.tensor.gradients.reduce_grad  # noqa: F401
    import importlib

    from opkit.core.tensor import LAYERS

    for layer, modules in LAYERS:  # every op class of core/tensor, whatever this process imported before
        for module in modules:
            importlib.import_module(f"opkit.core.tensor.{layer}.{module}")

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    missing = sorted({f"{c.__module__}.{c.__qualname__}" for c in subclasses(Op)
                      if c.__module__.startswith("opkit.core") and callable(getattr(c, "infer_shape", None))
                      and getattr(c, "shape_checks", None) is None and not inspect.isabstract(c)})
    assert missing == []


# -- 21.4: every reduction over 0-size inputs on each axis, values and errors as numpy's -------------------------

# every axis in float64; the integer and bool paths on one axis each (few compiled modules)
EMPTY_CASES = [("float64", None, False), ("float64", 0, False), ("float64", 1, False), ("float64", -1, True),
               ("int32", 1, False), ("bool", 0, True)]
# a reduction that may raise compiles two modules a case: the whole, each axis once, keepdims once; its float64 cases
# and its int32 and bool ones are two parts (the second is soak for max and argmax: tests/soak_cases.py)
EMPTY_CASES_ONE_BY_ONE = {"float64": [("float64", None, False), ("float64", -1, True)],
                          "int32-bool": [("int32", 0, False), ("bool", 1, True)]}
NEVER_RAISE = ("sum", "prod", "mean")
EMPTY_PARTS = [pytest.param(reduction, None, id=reduction) for reduction in NEVER_RAISE] + [
    pytest.param(reduction, part, id=f"{reduction}-{part}") for reduction in REDUCTIONS if reduction not in NEVER_RAISE
    for part in EMPTY_CASES_ONE_BY_ONE]


def _empty_case_groups(reduction, part):
    """[(inputs, outputs, cases)]: sum, prod and mean never raise, so every case is an output of one function (one
    module, not six: CI time); a reduction that may raise has a function per case of `part`, or one case's error
    would hide the others' values."""
    cases = EMPTY_CASES if reduction in NEVER_RAISE else EMPTY_CASES_ONE_BY_ONE[part]
    inputs = [ot.matrix("x", dtype=dtype) for dtype, _, _ in cases]
    outputs = [getattr(x, reduction)(axis=axis, keepdims=keepdims) for x, (_, axis, keepdims) in zip(inputs, cases)]
    if reduction in NEVER_RAISE:
        return [(inputs, outputs, cases)]
    return [([x], [out], [case]) for x, out, case in zip(inputs, outputs, cases)]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reduction, part", EMPTY_PARTS)
def test_reductions_of_empty_arrays_match_numpy(reduction, part, mode):
    for inputs, outputs, cases in _empty_case_groups(reduction, part):
        # the value and the shape apart: with both in one function, the shape's checks raise first and
        # would hide a value path that returns where numpy raises
        f = opkit.function(inputs, outputs, mode=mode)
        f_shape = opkit.function(inputs, [out.shape for out in outputs], mode=mode)
        for shape in EMPTY_MATRICES + [(1, 0)]:
            arrays = [(np.arange(np.prod(shape)).reshape(shape) % 3).astype(dtype) for dtype, _, _ in cases]
            got, got_shape = _outcome(lambda: f(*arrays)), _outcome(lambda: f_shape(*arrays))
            for k, ((dtype, axis, keepdims), a) in enumerate(zip(cases, arrays)):
                expected = _outcome(lambda: np.asarray(getattr(np, reduction)(a, axis=axis, keepdims=keepdims)))
                where = (reduction, dtype, axis, keepdims, shape, mode)
                if expected[0] == "raises":
                    assert len(cases) == 1 and got == expected and got_shape == expected, where
                    continue
                assert got[0] == "ok" and got_shape[0] == "ok", (where, got, got_shape)
                value, value_shape = got[1][k], got_shape[1][k]
                assert value.dtype == expected[1].dtype and value.shape == expected[1].shape, where
                np.testing.assert_array_equal(value, expected[1], err_msg=str(where))
                assert tuple(value_shape) == expected[1].shape, where


def _gradient_functions(reduction, mode):
    """[(axes, f)]: f(a, ...) gives [g, g.shape] of each axis of `axes` (an input of its own each). sum, prod and
    mean never raise: their three axes are one function (one module, not three: CI time); a reduction that may raise
    has a function per axis, or one axis's error would hide the others' values."""
    groups = [[None, 0, 1]] if reduction in NEVER_RAISE else [[None], [0], [1]]
    made = []
    for axes in groups:
        inputs, outputs = [], []
        for axis in axes:
            x = ot.dmatrix(f"x{axis}")
            g = opkit.grad(getattr(ot, reduction)(x, axis=axis).sum(), x)
            inputs.append(x)
            outputs += [g, g.shape]
        made.append((axes, opkit.function(inputs, outputs, mode=mode)))
    return made


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reduction", ["sum", "prod", "mean", "max", "min"])
def test_gradients_of_reductions_of_empty_arrays(reduction, mode):
    for axes, f in _gradient_functions(reduction, mode):
        for shape in [(0, 3), (3, 0), (0, 0)]:
            a = np.zeros(shape)
            got = _outcome(lambda: f(*[a] * len(axes)))
            for k, axis in enumerate(axes):
                forward = _outcome(lambda: getattr(np, reduction)(a, axis=axis))
                if forward[0] == "raises":
                    assert len(axes) == 1 and got == forward, (reduction, axis, shape)
                    continue
                assert got[0] == "ok", (reduction, axis, shape, got)
                value, value_shape = got[1][2 * k:2 * k + 2]
                assert value.shape == shape and value.dtype == np.float64 and tuple(value_shape) == shape


def test_the_issues_argmax_and_prod_gradient_of_an_empty_matrix():
    m = ot.dmatrix("m")
    empty = np.zeros((0, 3))
    for mode in MODES:
        result = opkit.function([m], ot.argmax(m, axis=1), mode=mode)(empty)
        assert result.dtype == np.int64 and result.shape == (0,)
        result = opkit.function([m], ot.argmin(m, axis=1), mode=mode)(empty)
        assert result.dtype == np.int64 and result.shape == (0,)
        g = opkit.function([m], opkit.grad(ot.prod(m, axis=1).sum(), m), mode=mode)(empty)
        assert g.shape == (0, 3) and g.dtype == np.float64


# -- shape vs. run: for random graphs and shapes, f_shape raises exactly when f raises ---------------------------

def _graphs():
    """(name, inputs, output) for graphs mixing every op with infer_shape; built once."""
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    v = ot.dvector("v")
    i, j, k = ot.lscalar("i"), ot.lscalar("j"), ot.lscalar("k")
    return [
        ("reshape-sum", [x, i], x.reshape((i, -1)).sum(axis=0)),
        ("reshape-dot", [v, i, j], ot.dot(v.reshape((i, j)), v.reshape((j, i)))),
        ("index-add", [x, v, i], x[i] + v),
        ("slice-argmax", [x, i, j, k], ot.argmax(x[i:j:k], axis=0)),
        ("concat-dot", [x, y, v], ot.dot(ot.concatenate([x, y], axis=0), v)),
        ("concat1-max", [x, y], ot.concatenate([x, y], axis=1).max(axis=0)),
        ("stack-min", [x, y], ot.stack([x, y], axis=1).min(axis=2)),
        ("dot-mul", [x, y, v], ot.dot(x, y) * v),
        ("alloc-prod", [v, i, j], ot.alloc(v, i, j).prod(axis=1)),
        ("transpose-specify", [x, y], ot.specify_shape(x.T, (2, None)) - y),
        ("mean-index", [x, i], ot.mean(x, axis=1)[i]),
        ("argmin-concat", [v, x], ot.concatenate([ot.argmin(x, axis=1), v.reshape((-1,))])),
    ]


_COMPILED = {}


def _compiled(index, mode):
    key = (index, str(mode))
    if key not in _COMPILED:
        name, inputs, out = _GRAPHS[index]
        _COMPILED[key] = (opkit.function(inputs, out, mode=mode), opkit.function(inputs, out.shape, mode=mode))
    return _COMPILED[key]


_GRAPHS = _graphs()


@st.composite
def _values(draw, inputs):
    lengths = st.integers(0, 4)
    values = []
    for variable in inputs:
        if variable.ndim == 0:
            values.append(np.int64(draw(st.integers(-4, 5))))
        else:
            shape = tuple(draw(lengths) for _ in range(variable.ndim))
            values.append(np.arange(np.prod(shape), dtype="float64").reshape(shape) % 5)
    return values


def check_shape_and_run(data, index, mode):
    name, inputs, out = _GRAPHS[index]
    f, f_shape = _compiled(index, mode)
    values = data.draw(_values(inputs), label=name)
    ran = _outcome(lambda: f(*values))
    shaped = _outcome(lambda: f_shape(*values))
    if ran[0] == "raises":
        assert shaped[0] == "raises" and shaped[1] is ran[1], (name, ran, shaped)
        return
    assert shaped[0] == "ok", (name, shaped)
    assert tuple(shaped[1]) == np.shape(ran[1]), name


# 60 examples, 30 in the default run: FAST_RUN compiles two modules for each graph it draws (about 7 of the 12 in 30
# examples, 10 in 60); soak draws the 60
@pytest.mark.parametrize("examples", [30, pytest.param(60, marks=pytest.mark.soak)])
def test_shape_raises_exactly_when_running_raises(examples):
    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data(), st.integers(0, len(_GRAPHS) - 1), st.sampled_from(MODES + [PY_FAST_RUN]))
    def drawn(data, index, mode):
        check_shape_and_run(data, index, mode)

    drawn()
