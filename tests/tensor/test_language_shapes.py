"""The shape and creation functions of issue 48 (diag, eye, repeat, take, tile, roll, squeeze, ...) against numpy.

One FAST_RUN function computes every function on a matrix and a vector of each dtype (many outputs, one
module); it is called again with Fortran, strided, negative-stride and 0-size inputs. The new C ops (Eye,
AllocDiag, ExtractDiag, Repeat, Take) are checked to run in C. The gradients are checked in one verify_grad
of a cost that uses them all. Errors name the argument, with numpy's messages where numpy has one.
"""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.core.tensor.language.row import ALL_DTYPES
from opkit.core.tensor.language.example_inputs import fortran, reversed_view, strided, values
from opkit.core.tensor.language.shape_rows import ROWS
from opkit.core.tensor.shapes.diagonal import AllocDiag, Eye, ExtractDiag
from opkit.core.tensor.shapes.repeat_take import Repeat, Take
from opkit.core.tensor.types.type import TensorType
from opkit.testing import verify_grad

NEW_C_OPS = (Eye, AllocDiag, ExtractDiag, Repeat, Take)


def _c_cases(m, v):
    """(name, opkit expression, numpy function of the matrix and vector values): the new C ops, for one dtype."""
    d = m.dtype
    cases = [
        ("diag(v, 1)", ot.diag(v, 1), lambda a, b: np.diag(b, 1)),
        ("diagonal", m.diagonal(1, 1, 0), lambda a, b: a.diagonal(1, 1, 0)),
        ("eye", ot.eye(m.shape[0], m.shape[1], -1, dtype=d), lambda a, b: np.eye(*a.shape, -1, dtype=d)),
        ("repeat", ot.repeat(m, ot.arange(m.shape[0]) % 3, axis=0),
         lambda a, b: np.repeat(a, np.arange(a.shape[0]) % 3, 0)),
        ("take", ot.take(v, [[7, -9]], mode="wrap"), lambda a, b: np.take(b, [[7, -9]], mode="wrap")),
    ]
    return cases if d in ("float64", "bool") else cases[:3]  # Repeat and Take call numpy's C: any dtype


def _graph_cases(m, v):
    """(name, opkit expression, numpy function of the matrix and vector values): every function, for one dtype."""
    d = m.dtype
    return _c_cases(m, v)[:3] + [
        ("diag(m, -1)", ot.diag(m, -1), lambda a, b: np.diag(a, -1)),
        ("trace", ot.trace(m), lambda a, b: np.trace(a)) if d != "float16" else None,
        ("identity_like", ot.identity_like(m), lambda a, b: np.eye(*a.shape, dtype=d)),
        ("tri", ot.tri(m.shape[0], m.shape[1], 1, dtype=d), lambda a, b: np.tri(*a.shape, 1, dtype=d)),
        ("tril", ot.tril(m, -1), lambda a, b: np.tril(a, -1)),
        ("triu", ot.triu(m, 1), lambda a, b: np.triu(a, 1)),
        ("tile", ot.tile(v, (2, 1, 2)), lambda a, b: np.tile(b, (2, 1, 2))),
        ("repeat scalar", m.repeat(2, axis=-1), lambda a, b: np.repeat(a, 2, -1)),
        ("repeat vector", ot.repeat(m, ot.arange(m.shape[0]) % 3, axis=0),
         lambda a, b: np.repeat(a, np.arange(a.shape[0]) % 3, 0)),
        ("repeat flat", ot.repeat(m, 2), lambda a, b: np.repeat(a, 2)),
        ("roll flat", ot.roll(m, 2), lambda a, b: np.roll(a, 2)),
        ("roll axis", ot.roll(m, -5, axis=-1), lambda a, b: np.roll(a, -5, -1)),
        ("squeeze", ot.squeeze(ot.expand_dims(m, (0, -1)), (0, 3)), lambda a, b: a),
        ("expand_dims", ot.expand_dims(v, (0, -1)), lambda a, b: np.expand_dims(b, (0, -1))),
        ("swapaxes", m.swapaxes(0, -1), lambda a, b: a.swapaxes(0, -1)),
        ("moveaxis", ot.moveaxis(ot.expand_dims(m, 0), 0, -1), lambda a, b: np.moveaxis(a[None], 0, -1)),
        ("mT", m.mT, lambda a, b: a.mT),
        ("ravel", m.T.ravel(), lambda a, b: a.T.ravel()),
        ("broadcast_to", ot.broadcast_to(v, (2, v.shape[0])), lambda a, b: np.broadcast_to(b, (2, len(b)))),
        ("broadcast_arrays", ot.broadcast_arrays(v, m[:, :1])[0], lambda a, b: np.broadcast_arrays(b, a[:, :1])[0]),
        ("take axis", m.take([0, -1], axis=1), lambda a, b: np.take(a, [0, -1], 1)),
        ("take flat wrap", ot.take(v, [[7, -9]], mode="wrap"), lambda a, b: np.take(b, [[7, -9]], mode="wrap")),
        ("take clip", ot.take(v, [5, -3], axis=0, mode="clip"), lambda a, b: np.take(b, [5, -3], 0, mode="clip")),
        ("fill_diagonal", ot.fill_diagonal(m, 3), lambda a, b: _filled(a, 3)),
        ("full_like", ot.full_like(m, 2), lambda a, b: np.full_like(a, 2)),
        ("full", ot.full((2, m.shape[1]), np.asarray(5, d)), lambda a, b: np.full((2, a.shape[1]), np.asarray(5, d))),
        ("empty_like", ot.empty_like(v, "int8") * 0, lambda a, b: np.zeros_like(b, "int8")),
        ("isclose", ot.isclose(m, v), lambda a, b: np.isclose(a, b)),
        ("isclose nan", ot.isclose(v, v, equal_nan=True), lambda a, b: np.isclose(b, b, equal_nan=True)),
        ("allclose", ot.allclose(m, m), lambda a, b: np.asarray(np.allclose(a, a))),
        ("size", m.size, lambda a, b: np.asarray(a.size, dtype="int64")),
        ("atleast_3d", ot.atleast_3d(v), lambda a, b: b[None, None]),
        ("split", ot.split(m, [1, 2], axis=1)[1], lambda a, b: a[:, 1:]),
        ("horizontal_stack", ot.horizontal_stack(m, m[:, :1]), lambda a, b: np.hstack([a, a[:, :1]])),
        ("vertical_stack", ot.vertical_stack(m[:1], m), lambda a, b: np.vstack([a[:1], a])),
        ("nonzero", m.nonzero()[1], lambda a, b: np.nonzero(a)[1]),
        ("flatnonzero", ot.flatnonzero(m), lambda a, b: np.flatnonzero(a)),
        ("nonzero_values", v.nonzero_values(), lambda a, b: b[b != 0]),
        ("triu_indices_from", ot.triu_indices_from(m, 1)[1], lambda a, b: np.triu_indices_from(a, 1)[1]),
        ("fill_diagonal_offset", ot.fill_diagonal_offset(m, 1, -1), lambda a, b: _offset_filled(a, 1, -1)),
        ("compress", m.compress(v, axis=1), lambda a, b: a.compress(b, axis=1)),
        ("choose", ot.choose(m.shape[0] % 2 + ot.zeros((3,), "int8"), [v, v[::-1]], mode="wrap"),
         lambda a, b: np.choose(np.full(3, len(a) % 2, "int8"), [b, b[::-1]], mode="wrap")),
        ("x.choose", (ot.arange(3) % 2).choose([v, v[::-1]]), lambda a, b: np.choose(np.arange(3) % 2, [b, b[::-1]])),
        ("stacklists", ot.stacklists([[v, v], [v[::-1], v]]), lambda a, b: np.stack([[b, b], [b[::-1], b]])),
        ("copy", v.copy(), lambda a, b: b.copy()),
    ]


def _offset_filled(a, value, offset):
    a = a.copy()
    steps = np.arange(len(a.diagonal(offset)))
    a[steps + max(0, -offset), steps + max(0, offset)] = value
    return a


def _filled(a, value):
    a = a.copy()
    np.fill_diagonal(a, value)
    return a


# the default run's dtypes: each size of item (1, 2, 4, 8 bytes), float16's bits for 1, bool and the unsigned
C_DTYPES = ("bool", "uint16", "float16", "int32", "float64")
GRAPH_DTYPES = ("bool", "int8", "uint64", "float16", "float64")


def _function(cases, mode, dtypes):
    """One function of `cases` for a matrix (n x 3) and a vector (3 elements) of each dtype, and its checks."""
    inputs, outputs, checks = [], [], []
    for d in dtypes:
        m, v = TensorType(d, (None, None))(f"m_{d}"), TensorType(d, (None,))(f"v_{d}")
        inputs += [m, v]
        for case in cases(m, v):
            if case is not None:
                name, expression, reference = case
                outputs.append(expression)
                checks.append((d, name, reference))
    return opkit.function(inputs, outputs, mode=mode), checks


@pytest.fixture(scope="module")
def compiled():
    """FAST_RUN (C) of the new C ops, and FAST_COMPILE (perform) of every function."""
    return {"c": _function(_c_cases, "FAST_RUN", C_DTYPES), "graphs": _function(_graph_cases, "FAST_COMPILE",
                                                                                 GRAPH_DTYPES)}


def _layout_inputs(rng, rows, layout, dtypes):
    arrays = []
    for d in dtypes:
        m, v = values(rng, (rows, 3), d, special=True), values(rng, (3,), d, special=True)
        arrays += [layout(m), layout(v)]
    return arrays


LAYOUTS = [(4, lambda a: a), (3, fortran), (4, strided), (2, reversed_view), (0, lambda a: a)]


def _check(f, checks, dtypes, rows, layout):
    arrays = _layout_inputs(np.random.default_rng(rows), rows, layout, dtypes)
    with np.errstate(all="ignore"):
        results = f(*arrays)
    given = dict(zip([f"{d}{k}" for d in dtypes for k in "mv"], arrays))
    for (d, name, reference), result in zip(checks, results):
        expected = reference(given[f"{d}m"], given[f"{d}v"])
        np.testing.assert_array_equal(result, np.asarray(expected), strict=True, err_msg=f"{name} {d} rows={rows}")


@pytest.mark.parametrize("rows, layout", LAYOUTS)
@pytest.mark.parametrize("which, dtypes", [("c", C_DTYPES), ("graphs", GRAPH_DTYPES)])
def test_each_dtype_matches_numpy(compiled, which, dtypes, rows, layout):
    _check(*compiled[which], dtypes, rows, layout)


@pytest.mark.soak
@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_every_function_of_every_dtype_matches_numpy(mode):
    f, checks = _function(_graph_cases, mode, ALL_DTYPES)
    for rows, layout in LAYOUTS:
        _check(f, checks, ALL_DTYPES, rows, layout)


def test_the_new_ops_run_in_c(compiled):
    f, _ = compiled["c"]
    nodes = [n for n in f.maker.fgraph.toposort() if isinstance(n.op, NEW_C_OPS)]
    assert {type(n.op) for n in nodes} == set(NEW_C_OPS)
    assert all(op_has_c(n) for n in nodes)


def test_gradients_as_pytensor_defines_them():
    """One cost over every differentiable new function; verify_grad projects it randomly (float64)."""
    rng = np.random.default_rng(0)

    def cost(m, v, t3, val):
        terms = [ot.diag(v, 1), ot.diag(m, -1), ot.diagonal(t3, 1, 2, 0), ot.trace(m), ot.tril(m, 1), ot.triu(t3, -1),
                 ot.tile(v, (2, 2)), ot.repeat(m, [1, 0, 2], axis=0), ot.repeat(m, 2), ot.take(m, [[0, -1], [2, 2]], 1),
                 ot.take(m, [5, -9], mode="wrap"), ot.take(m, [5, -9], axis=0, mode="clip"), ot.roll(m, 5, 1),
                 ot.roll(t3, -2), ot.fill_diagonal(m, val), ot.squeeze(m[:, :1], 1), ot.moveaxis(t3, 0, -1),
                 ot.broadcast_to(v, (2, 3)), ot.swapaxes(t3, 0, 2), m.ravel(), ot.linspace(val, v, 3),
                 *ot.split(m, [3, 0, 1], axis=-1), ot.fill_diagonal_offset(m, val, 1), ot.atleast_3d(v),
                 ot.vertical_stack(m, m[:1]), ot.logspace(val, v, 2, base=2.0)]
        return ot.concatenate([t.ravel() for t in terms])

    verify_grad(cost, [rng.standard_normal((3, 4)), rng.standard_normal(3), rng.standard_normal((2, 3, 4)),
                       np.asarray(1.5)], rng=rng, mode="FAST_COMPILE")


def test_integer_inputs_get_zero_float_gradients():
    x = ot.lmatrix("x")
    g = opkit.grad(ot.take(x, [0]).sum() + ot.repeat(x, 2).sum() + ot.diagonal(x).sum(), x)
    assert g.dtype == opkit.config.floatX
    np.testing.assert_array_equal(g.eval({x: np.ones((2, 3), "int64")}), np.zeros((2, 3)))


# -- errors ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("build, error, message", [
    (lambda x: ot.squeeze(x, 2), np.exceptions.AxisError, "squeeze: axis: axis 2 is out of bounds for array of "
     "dimension 2"),
    (lambda x: ot.swapaxes(x, 0, -3), np.exceptions.AxisError, "swapaxes: axis2: axis -3 is out of bounds"),
    (lambda x: ot.moveaxis(x, (0, 0), (0, 1)), ValueError, "moveaxis: repeated axis in source"),
    (lambda x: ot.moveaxis(x, 0, (0, 1)), ValueError, "`source` and `destination` arguments must have the same"),
    (lambda x: ot.repeat(x, 2.5), TypeError, "repeat: repeats must be an integer"),
    (lambda x: ot.repeat(x, [[1]]), TypeError, "repeat: repeats must be an integer or a vector"),
    (lambda x: ot.repeat(x, 1, axis=5), np.exceptions.AxisError, "repeat: axis: axis 5 is out of bounds"),
    (lambda x: ot.repeat(x, 1, axis=1.0), TypeError, "repeat: axis must be an integer, got 1.0"),
    (lambda x: ot.take(x, [0.5]), TypeError, "take: indices must be integers"),
    (lambda x: ot.take(x, [0], mode="nearest"), ValueError, "take: mode must be 'raise', 'wrap' or 'clip', got "
     "'nearest'"),
    (lambda x: ot.tile(x, 1.5), TypeError, "tile: reps must be integers"),
    (lambda x: ot.tile(x, ot.lvector()), ValueError, "tile: the length of the reps vector"),
    (lambda x: ot.diagonal(x, 0, 1, -1), ValueError, "diagonal: axis1 and axis2 cannot be the same"),
    (lambda x: ot.diagonal(x, 0.5), TypeError, "diagonal: the offset must be a Python int, got 0.5"),
    (lambda x: ot.diag(ot.expand_dims(x, 0)), ValueError, "diag: input must be 1- or 2-d"),
    (lambda x: ot.squeeze(ot.specify_shape(x, (2, None)), 0), ValueError, "cannot select an axis to squeeze out"),
    (lambda x: ot.roll(x, 1.5, 0), TypeError, "roll: shift must be an integer"),
    (lambda x: ot.roll(x, (1, 2), (0, 1, 0)), ValueError, "roll: shift (2 entries) and axis (3 entries)"),
    (lambda x: ot.isclose(x, x, rtol="1"), TypeError, "isclose: rtol must be a real number"),
    (lambda x: ot.linspace(0, 1, -2), ValueError, "linspace: num must be non-negative, got -2"),
    (lambda x: ot.linspace(0, 1, 2.5), TypeError, "linspace: num must be an integer"),
    (lambda x: ot.eye(x, 3), TypeError, "eye: n must be an integer scalar"),
    (lambda x: ot.fill_diagonal(x, x), TypeError, "fill_diagonal: val must be a scalar"),
    (lambda x: ot.fill_diagonal(x[0], 1), TypeError, "fill_diagonal: a must have at least two dimensions"),
    (lambda x: ot.full((3,), x), ValueError, "full: the fill value's 2 dimensions do not fit the shape's 1"),
    (lambda x: ot.split(x, [1, 2], n_splits=3), ValueError, "split: n_splits=3 but splits_size has 2 entries"),
    (lambda x: ot.split(x, [1.5]), TypeError, "split: splits_size must hold integers"),
    (lambda x: ot.split(x, ot.lvector()), ValueError, "pass n_splits="),
    (lambda x: ot.horizontal_stack(x, x[0]), ValueError, "horizontal_stack: all arguments must have two dimensions"),
    (lambda x: ot.vertical_stack(x), ValueError, "vertical_stack: too few arguments"),
    (lambda x: ot.nonzero(x[0, 0]), ValueError, "nonzero: calling nonzero on a 0-d tensor is not allowed"),
    (lambda x: ot.tril_indices_from(x[0]), ValueError, "tril_indices_from: the input array must be 2-d"),
    (lambda x: ot.fill_diagonal_offset(x, 1, 0.5), TypeError, "fill_diagonal_offset: offset must be an integer"),
    (lambda x: ot.bartlett(x), TypeError, "bartlett: M must be an integer scalar"),
    (lambda x: ot.compress(x, x), ValueError, "compress: condition must be a vector"),
    (lambda x: ot.choose(x, [x]), TypeError, "choose: a must be integers"),
    (lambda x: ot.choose(x.shape, x, mode="nearest"), ValueError, "choose: mode must be 'raise', 'wrap' or 'clip'"),
    (lambda x: ot.broadcast_to(x, (3,)), ValueError, "broadcast_to: the shape has 1 entries, fewer than the 2"),
    (lambda x: ot.broadcast_arrays(ot.specify_shape(x, (2, 3)), ot.specify_shape(x, (2, 4))), ValueError,
     "broadcast_arrays: shape mismatch"),
])
def test_bad_arguments_raise_naming_them(build, error, message):
    x = ot.dmatrix("x")
    with pytest.raises(error, match=None) as caught:
        build(x)
    assert message in str(caught.value)


@pytest.fixture(scope="module")
def checked():
    """The C and the Python linkers' functions of the ops that check their values when they run."""
    x, r, i, n = ot.dmatrix("x"), ot.lvector("r"), ot.lvector("i"), ot.lscalar("n")
    outputs = [ot.repeat(x, r, axis=0), ot.take(x, i, axis=1), ot.eye(n, 2), ot.squeeze(x, 0), ot.fill_diagonal(x, 2.0),
               ot.split(x, [abs(n), 0], axis=1)[1]]
    modes = {"c": opkit.Mode(linker="c", optimizer=None), "py": opkit.Mode(linker="py", optimizer=None)}
    functions = {name: opkit.function([x, r, i, n], outputs, mode=mode) for name, mode in modes.items()}
    functions["shapes"] = opkit.function([x, r, i, n], [o.shape for o in outputs[:2]], mode="FAST_RUN",
                                         on_unused_input="ignore")
    return functions


GOOD = dict(x=np.ones((1, 1)), r=np.asarray([2]), i=np.asarray([0]), n=np.asarray(1))


@pytest.mark.parametrize("name", ["c", "py", "shapes"])
@pytest.mark.parametrize("bad, error, message", [
    ({"r": np.asarray([1, 2])}, ValueError, "operands could not be broadcast together with shape (1,) (2,)"),
    ({"r": np.asarray([-1])}, ValueError, "negative dimensions are not allowed"),  # numpy's, for one repeat
    ({"i": np.asarray([3])}, IndexError, "index 3 is out of bounds for axis 1 with size 1"),
])
def test_bad_values_raise_numpys_errors(checked, name, bad, error, message):
    with pytest.raises(error) as caught:
        checked[name](**{**GOOD, **bad})
    assert message in str(caught.value)


@pytest.mark.parametrize("name", ["c", "py"])
@pytest.mark.parametrize("bad, error, message", [
    ({"n": np.asarray(-1)}, ValueError, "negative dimensions are not allowed"),
    ({"x": np.ones((2, 1)), "r": np.asarray([1])}, ValueError, "cannot select an axis to squeeze out which has "
     "size not equal to one"),
    ({"n": np.asarray(2)}, ValueError, "split: the split sizes add up to 2, not the length 1 of axis 1"),
])
def test_bad_lengths_raise_numpys_errors(checked, name, bad, error, message):
    with pytest.raises(error) as caught:
        checked[name](**{**GOOD, **bad})
    assert message in str(caught.value)


def test_good_values_run(checked):
    for name in ("c", "py"):
        results = checked[name](**GOOD)
        np.testing.assert_array_equal(results[0], np.ones((2, 1)))
        np.testing.assert_array_equal(results[2], np.eye(1, 2))
        np.testing.assert_array_equal(results[4], [[2.0]])


def test_functions_of_numbers_match_numpy():
    """The functions of Python numbers (no tensor input), in one FAST_COMPILE function."""
    k = ot.lscalar("k")
    cases = [(ot.linspace(0, 1, 5), np.linspace(0, 1, 5)), (ot.linspace(2, -3.5, 7, endpoint=False),
                                                           np.linspace(2, -3.5, 7, endpoint=False)),
             (ot.linspace(0, 10, 6, dtype="int32"), np.linspace(0, 10, 6, dtype="int32")),
             (ot.linspace(0, 1, k + 1, retstep=True)[1], np.linspace(0, 1, 3, retstep=True)[1]),
             (ot.logspace(0, 2, 5), np.logspace(0, 2, 5)), (ot.bartlett(k + 3), np.bartlett(5)),
             (ot.bartlett(k - 5), np.bartlett(-3)), (ot.tril_indices(3, -1, k + 2)[1], np.tril_indices(3, -1, 4)[1]),
             (ot.triu_indices(k)[0], np.triu_indices(2)[0]), (ot.eye(k, dtype="float16"), np.eye(2, dtype="float16")),
             (ot.tri(k, 3, -1, dtype="uint8"), np.tri(2, 3, -1, dtype="uint8")),
             (ot.full(k, 7, dtype="int16"), np.full(2, 7, dtype="int16")), (ot.empty((k, 0)), np.zeros((2, 0))),
             (ot.unravel_index(k + 5, (k + 1, 4))[1], np.unravel_index(7, (3, 4))[1]),
             (ot.unravel_index(ot.arange(k * 3), (3, k), order="F")[0], np.unravel_index(np.arange(6), (3, 2), "F")[0]),
             (ot.ravel_multi_index((k, ot.arange(4)), (3, 4)), np.ravel_multi_index((2, np.arange(4)), (3, 4))),
             (ot.ravel_multi_index((k + 5, k), (3, 4), mode="clip"), np.ravel_multi_index((7, 2), (3, 4), mode="clip"))]
    results = opkit.function([k], [c[0] for c in cases], mode="FAST_COMPILE")(2)
    for (_, expected), result in zip(cases, results):
        np.testing.assert_array_equal(result, expected, strict=True)


def test_mgrid_and_ogrid_are_numpys_grids():
    k = ot.lscalar("k")
    f = opkit.function([k], [*ot.mgrid[0:3, 1:k:2], *ot.ogrid[0:k, 5:1:-2]], mode="FAST_COMPILE")
    for result, expected in zip(f(6), [*np.mgrid[0:3, 1:6:2], *np.ogrid[0:6, 5:1:-2]]):
        np.testing.assert_array_equal(result, expected, strict=True)
    with pytest.raises(NotImplementedError, match="mgrid: a complex step"):
        ot.mgrid[0:1:5j]
    with pytest.raises(TypeError, match="ogrid: index it with slices"):
        ot.ogrid[3]


def test_flat_index_arithmetic_raises_numpys_errors():
    i = ot.lvector("i")
    with pytest.raises(ValueError, match="index 6 is out of bounds for array with size 6"):
        opkit.function([i], ot.unravel_index(i, (2, 3))[0], mode="FAST_COMPILE")(np.asarray([6]))
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        opkit.function([i], ot.ravel_multi_index((i, i), (2, 3)), mode="FAST_COMPILE")(np.asarray([-1]))
    with pytest.raises(ValueError, match="dims must be a vector of known length"):
        ot.unravel_index(i, ot.lvector("d"))
    with pytest.raises(ValueError, match="order must be 'C' or 'F', got 'K'"):
        ot.unravel_index(i, (2, 3), order="K")
    with pytest.raises(ValueError, match="ravel_multi_index: 1 coordinate arrays for 2 dims"):
        ot.ravel_multi_index((i,), (2, 3))
    with pytest.raises(TypeError, match="unravel_index: indices must be integers"):
        ot.unravel_index(ot.dvector(), (2, 3))


def test_every_shape_row_names_an_opkit_tensor_function_with_examples():
    rng = np.random.default_rng(0)
    for row in ROWS:
        assert callable(getattr(ot, row.name)), row.name
        cases = row.examples(rng)
        assert len(cases) >= 2, row.name
        for args, kwargs in cases:
            row.reference(*args, **kwargs)  # numpy accepts every example
