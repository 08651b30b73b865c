"""numpy's indexing in opkit (issue 48): None and ..., integer arrays, boolean masks, their writes, take_along_axis,
and jacobian/hessian.

numpy is the oracle: values exact, dtypes and shapes; every integer index dtype; C-contiguous, Fortran and
negative-stride inputs. Each group of cases is the outputs of one compiled function per mode (FAST_RUN runs
AdvancedSubtensor1's and AdvancedIncSubtensor1's C, FAST_COMPILE every op's perform): a case is an output,
not a compile. Gradients are checked with verify_grad in float64, each error with its message.
"""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.core.tensor.shapes.advanced_inc_subtensor import AdvancedIncSubtensor1
from opkit.core.tensor.shapes.advanced_subtensor import AdvancedSubtensor, AdvancedSubtensor1
from opkit.gradient import hessian, jacobian
from opkit.testing import verify_grad

MODES = ["FAST_RUN", "FAST_COMPILE"]
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
# The index dtypes of the default run's get function; the others' are the same C on another integer of the
# same kind (soak: one function per mode of them).
DEFAULT_INDEX_DTYPES = ["int8", "int64", "uint8", "uint64"]
INDEX_DTYPE_GROUPS = [pytest.param(DEFAULT_INDEX_DTYPES, id="default"),
                      pytest.param([d for d in INT_DTYPES if d not in DEFAULT_INDEX_DTYPES], id="other",
                                   marks=pytest.mark.soak)]
XV = np.arange(24.0).reshape(4, 6) - 7.5


def _layouts():
    """The same values as C-contiguous, Fortran and negative-stride arrays."""
    reversed_ = XV[::-1, ::-1].copy()[::-1, ::-1]
    assert reversed_.strides[0] < 0
    return [XV.copy(), np.asfortranarray(XV), reversed_]


def _compiled(inputs, outputs, mode):
    return opkit.function(inputs, outputs, mode=mode, on_unused_input="ignore")


def _check(outputs, expected):
    assert len(outputs) == len(expected)
    for k, (got, want) in enumerate(zip(outputs, expected)):
        assert got.dtype == want.dtype, (k, got.dtype, want.dtype)
        assert got.shape == want.shape, (k, got.shape, want.shape)
        np.testing.assert_array_equal(got, want, err_msg=f"case {k}")


# ---- get: every index form, one function per mode --------------------------------------------------------------

def _get_cases(x, idx, vectors, mask):
    """(symbolic, numpy) pairs: x is the symbolic matrix, `vectors` one index vector per integer dtype."""
    xn, idn, maskn = XV, np.array([0, 3, -1, 0, 2]), XV > 0
    cases = [
        (x[:, None], xn[:, None]), (x[None, ..., None], xn[None, ..., None]), (x[..., 0], xn[..., 0]),
        (x[1, ..., None], xn[1, ..., None]), (x[...], xn[...]), (x[None], xn[None]),
        (x[idx], xn[idn]), (x[idx, 1:], xn[idn, 1:]), (x[1:, idx], xn[1:, idn]), (x[idx, ::-2], xn[idn, ::-2]),
        (x[idx, idx], xn[idn, idn]), (x[idx[:, None], idx[None, :2]], xn[idn[:, None], idn[None, :2]]),
        (x[idx, None], xn[idn, None]), (x[None, idx], xn[None, idn]), (x[idx, None, 1], xn[idn, None, 1]),
        (x[1, idx], xn[1, idn]), (x[[2, 0]], xn[[2, 0]]), (x[[]], xn[np.array([], dtype=np.intp)]),
        (x[idx[:0]], xn[idn[:0]]), (x[..., idx], xn[..., idn]),
        (x[mask], xn[maskn]), (x[mask[:, 0]], xn[maskn[:, 0]]), (x[:, mask[0]], xn[:, maskn[0]]),
        (x[mask[:, 0], 2], xn[maskn[:, 0], 2]),
        # a scalar bool (numpy's 0-d mask) alone: a new axis of length 1 (True) or 0 (False)
        (x[True], xn[True]), (x[False], xn[False]), (x[:, True], xn[:, True]), (x[..., np.False_], xn[..., False]),
        (x[1:, np.array(True), ::-1], xn[1:, True, ::-1]), (x[None, False, 2:], xn[None, False, 2:]),
        (ot.take_along_axis(x, idx[None, :1] % 4, 0), np.take_along_axis(xn, idn[None, :1] % 4, 0)),
        (ot.take_along_axis(x, idx[:4, None], 1), np.take_along_axis(xn, idn[:4, None], 1)),
        (ot.take_along_axis(x, idx, None), np.take_along_axis(xn, idn, None)),
    ]
    values = np.array([1, 0, 3, 2])
    cases += [(x[v], xn[values]) for v in vectors]  # every integer dtype of x[idx]
    cases += [(x[1:, v], xn[1:, values]) for v in vectors]
    return cases


@pytest.mark.parametrize("index_dtypes", INDEX_DTYPE_GROUPS)
@pytest.mark.parametrize("mode", MODES)
def test_get_forms_match_numpy(mode, index_dtypes):
    x, idx, mask = ot.dmatrix("x"), ot.lvector("idx"), ot.matrix("mask", dtype="bool")
    vectors = [ot.vector(f"v_{d}", dtype=d) for d in index_dtypes]
    cases = _get_cases(x, idx, vectors, mask)
    f = _compiled([x, idx, mask, *vectors], [c[0] for c in cases], mode)
    if mode == "FAST_RUN":
        c_nodes = [n for n in f.maker.fgraph.toposort() if isinstance(n.op, AdvancedSubtensor1)]
        assert c_nodes and all(op_has_c(n) for n in c_nodes)
    values = [np.array([1, 0, 3, 2], dtype=d) for d in index_dtypes]
    for xv in _layouts():
        _check(f(xv, np.array([0, 3, -1, 0, 2]), XV > 0, *values), [c[1] for c in cases])


@pytest.mark.parametrize("mode", MODES)
def test_integer_and_bool_data(mode):
    """The gather and the writes of every data dtype class: ints (exact), bool, float32, complex."""
    idx = ot.lvector("idx")
    data = {"int8": np.arange(-6, 6, dtype="int8").reshape(4, 3), "uint64": np.arange(12, dtype="uint64").reshape(4, 3),
            "bool": (np.arange(12) % 3 == 0).reshape(4, 3),
            "float32": np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3),
            "complex128": (np.arange(12) * (1 + 2j)).reshape(4, 3)}
    xs = {d: ot.matrix(f"x_{d}", dtype=d) for d in data}
    iv = np.array([3, 0, 3, -4])
    outputs, expected = [], []
    for d, x in xs.items():
        xn = data[d]
        outputs += [x[idx], ot.set_subtensor(x[idx], xn[0, 0])]
        expected += [xn[iv], _set(xn, (iv,), xn[0, 0])]
        if d != "bool":
            outputs.append(ot.inc_subtensor(x[idx], xn[1]))
            expected.append(_add_at(xn, (iv,), xn[1]))
    f = _compiled([idx, *xs.values()], outputs, mode)
    _check(f(iv, *data.values()), expected)


def _set(x, index, y):
    r = x.copy()
    r[index] = y
    return r


def _add_at(x, index, y):
    r = x.copy()
    np.add.at(r, index, y)
    return r


def _add_buffered(x, index, y):
    r = x.copy()
    r[index] += y
    return r


# ---- writes -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_writes_match_numpy(mode):
    """set: the last write of a repeated index wins; inc: repeats accumulate (numpy.add.at), or, with
    ignore_duplicates, numpy's buffered r[idx] += y."""
    x, y, idx, mask = ot.dmatrix("x"), ot.dvector("y"), ot.lvector("idx"), ot.matrix("mask", dtype="bool")
    u = ot.vector("u", dtype="uint64")
    xn, yn, idn, un, maskn = XV, np.arange(6.0) * 10, np.array([0, 3, -1, 0, 2]), np.array([2, 2, 0], "uint64"), XV > 0
    cases = [
        (ot.set_subtensor(x[idx], y), _set(xn, (idn,), yn)),
        (ot.inc_subtensor(x[idx], y), _add_at(xn, (idn,), yn)),
        (ot.inc_subtensor(x[idx], y, ignore_duplicates=True), _add_buffered(xn, (idn,), yn)),
        (ot.inc_subtensor(x[u], 1.5), _add_at(xn, (un,), 1.5)),
        (ot.set_subtensor(x[u, 1:], y[:5]), _set(xn, (un, slice(1, None)), yn[:5])),
        (ot.inc_subtensor(x[idx, 1:], y[:5]), _add_at(xn, (idn, slice(1, None)), yn[:5])),
        (ot.inc_subtensor(x[idx, idx], y[:5]), _add_at(xn, (idn, idn), yn[:5])),
        (ot.set_subtensor(x[1:, idx], y[:1]), _set(xn, (slice(1, None), idn), yn[:1])),
        (ot.set_subtensor(x[mask], 0.0), _set(xn, (maskn,), 0.0)),
        (ot.inc_subtensor(x[mask[:, 0]], y), _add_at(xn, (np.nonzero(maskn[:, 0])[0],), yn)),
        (ot.set_subtensor(x[:, None], -1.0), np.full_like(xn, -1.0)),
        (ot.set_subtensor(x[None, 1:, ..., 2], 5.0), _set(xn, (slice(1, None), 2), 5.0)),
        (ot.inc_subtensor(x[None], y), xn + yn),
        (ot.inc_subtensor(x[True], y), xn + yn), (ot.set_subtensor(x[:, True], -2.0), np.full_like(xn, -2.0)),
        (ot.inc_subtensor(x[False], y), xn), (ot.set_subtensor(x[1:, np.False_], 9.0), xn),  # writes nothing
        (ot.set_subtensor(x[idx, None], y[None, :]), _set(xn, (idn,), yn)),
        (ot.advanced_set_subtensor(x, y[:2], idn[:2], 0), _set(xn, (idn[:2], 0), yn[:2])),
        (ot.advanced_inc_subtensor1(x, y, idx), _add_at(xn, (idn,), yn)),
        (ot.advanced_set_subtensor1(x, y, idx), _set(xn, (idn,), yn)),
    ]
    f = _compiled([x, y, idx, mask, u], [c[0] for c in cases], mode)
    if mode == "FAST_RUN":
        assert all(op_has_c(n) for n in f.maker.fgraph.toposort() if isinstance(n.op, AdvancedIncSubtensor1))
    for xv in _layouts():
        _check(f(xv, yn, idn, maskn, un), [c[1] for c in cases])


def test_gradients_as_pytensor():
    rng = np.random.default_rng(48)
    xv, yv = rng.normal(size=(4, 6)), rng.normal(size=6)
    idx, mask = np.array([0, 3, -1, 0]), xv > 0

    def gets(x):
        parts = [x[idx], x[idx, 1:], x[idx[:2], idx[1:3]], x[mask], x[:, None][idx], x[..., 2],
                 ot.take_along_axis(x, np.array([[0, 1, 1, 3, 2, 2]]), 0)]
        return sum((p * (k + 1.5)).sum() for k, p in enumerate(parts))

    def writes(x, y):  # a set writes each index once: where one repeats, PyTensor's gradient of y counts each
        parts = [ot.inc_subtensor(x[idx], y), ot.set_subtensor(x[np.array([3, 1])], y),
                 ot.inc_subtensor(x[idx, 1:], y[1:]),
                 ot.set_subtensor(x[mask], y[0]), ot.set_subtensor(x[None, 1:], y), ot.inc_subtensor(x[:, None], y)]
        return sum((p * (k + 1.5)).sum() for k, p in enumerate(parts))

    # perform's graph (the C of the same ops is compared with numpy above): a C module of this many ops costs
    # the default run more than it checks
    verify_grad(gets, [xv], rng=rng, mode="FAST_COMPILE")
    verify_grad(writes, [xv, yv], rng=rng, mode="FAST_COMPILE")


# ---- errors -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_index_errors_at_run_time(mode):
    """One function, an index input per case: a call with one bad index raises that case's error."""
    x, y, mask = ot.dmatrix("x"), ot.dvector("y"), ot.vector("m", dtype="bool")
    i1, i2, i3, i4 = (ot.lvector(f"i{k}") for k in range(4))
    u = ot.vector("u", dtype="uint64")
    f = _compiled([x, y, mask, i1, i2, i3, i4, u], [x[i1], x[u], x[1:, i2], x[mask], ot.set_subtensor(x[i3], y),
                                                    ot.inc_subtensor(x[i4], y)], mode)
    good = {"x": XV, "y": np.zeros(6), "mask": np.ones(4, bool), "i1": np.array([0]), "i2": np.array([0]),
            "i3": np.array([0]), "i4": np.array([0]), "u": np.array([0], "uint64")}

    def call(**bad):
        return f(*{**good, **bad}.values())

    call()
    with pytest.raises(IndexError, match=r"^index 4 is out of bounds for axis 0 with size 4\n"):
        call(i1=np.array([0, 4, 9]))
    with pytest.raises(IndexError, match=r"^index -5 is out of bounds for axis 0 with size 4\n"):
        call(i1=np.array([-5]))
    with pytest.raises(IndexError, match=r"^index 9223372036854775808 is out of bounds for axis 0 with size 4\n"):
        call(u=np.array([1, 2**63], dtype="uint64"))  # numpy would wrap it to a negative index
    with pytest.raises(IndexError, match=r"^index 18446744073709551615 is out of bounds for axis 0 with size 4\n"):
        call(u=np.array([2**64 - 1], dtype="uint64"))
    with pytest.raises(IndexError, match=r"^index 6 is out of bounds for axis 1 with size 6\n"):
        call(i2=np.array([6]))
    with pytest.raises(IndexError, match=r"^boolean index did not match indexed array along axis 0; size of axis "
                                         r"is 4 but size of corresponding boolean axis is 3\n"):
        call(mask=np.array([True, False, True]))
    for name in ("i3", "i4"):
        with pytest.raises(IndexError, match=r"^index 7 is out of bounds for axis 0 with size 4\n"):
            call(**{name: np.array([7])})
    with pytest.raises(ValueError, match=r"^shape mismatch: value array of shape \(5,\) could not be broadcast "
                                         r"to indexing result of shape \(1,6\)\n"):
        call(y=np.zeros(5))


def test_index_errors_when_the_graph_is_built():
    x = ot.dmatrix("x")
    with pytest.raises(IndexError, match=r"^arrays used as indices must be of integer \(or boolean\) type; the index "
                                         r"on axis 0 is f of dtype float64$"):
        x[ot.dvector("f")]
    with pytest.raises(IndexError, match=r"^arrays used as indices must be of integer \(or boolean\) type; got "
                                         r"array\(\[1\.5\]\) of dtype float64$"):
        x[np.array([1.5])]
    with pytest.raises(IndexError, match=r"^too many indices: 3 given for a 2-d tensor$"):
        x[np.array([0]), 0, 1]
    with pytest.raises(IndexError, match=r"^too many indices: 3 given for a 2-d tensor$"):
        x[np.ones((2, 2), bool), np.array([0])]
    with pytest.raises(IndexError, match=r"^an index can only have a single ellipsis \('\.\.\.'\)$"):
        x[..., None, ...]
    with pytest.raises(IndexError, match=r"^boolean index did not match indexed array along axis 1; size of axis "
                                         r"is 3 but size of corresponding boolean axis is 2$"):
        ot.specify_shape(x, (2, 3))[:, np.array([True, False])]
    with pytest.raises(IndexError, match=r"^index 5 is out of bounds for axis 0 with size 2$"):
        ot.specify_shape(x, (2, 3))[np.array([5])]
    with pytest.raises(IndexError, match=r"^shape mismatch: indexing arrays could not be broadcast together with "
                                         r"shapes \(2,\) \(3,\) $"):
        x[np.array([0, 1]), np.array([0, 1, 2])]
    for index in [(np.array([0]), True), (0, True), (True, True), (False, ..., True), (True, x > 0)]:
        with pytest.raises(IndexError, match=r"^a Python or numpy bool in an index beside an integer, an integer "
                                             r"array, a mask or a bool \(numpy's 0-d boolean mask\) is not "
                                             r"supported; got one beside 1 such index\(es\): index with None"):
            x[index]
    with pytest.raises(TypeError, match=r"^a list of Python bools in an index"):
        x[[True, False]]
    with pytest.raises(ValueError, match=r"^shape mismatch: value array of shape \(5,\) could not be broadcast to "
                                         r"indexing result of shape \(2,6\)$"):
        ot.set_subtensor(ot.specify_shape(x, (4, 6))[np.array([0, 1])], ot.specify_shape(ot.dvector("y"), (5,)))
    with pytest.raises(TypeError, match=r"^inc_subtensor: cannot add a float64 y to a int64 x"):
        ot.inc_subtensor(ot.lmatrix("i")[np.array([0])], ot.dvector("y"))
    with pytest.raises(ValueError, match=r"^take_along_axis: `indices` and `arr` must have the same number of "
                                         r"dimensions \(numpy's rule\): 1 and 2$"):
        ot.take_along_axis(x, np.array([0]), 1)


def test_the_shape_of_an_advanced_index_keeps_its_check():
    """FAST_RUN infers x[idx].shape without the gather; the index must still be checked (shape_checks)."""
    x, idx = ot.dmatrix("x"), ot.lvector("idx")
    f = opkit.function([x, idx], x[idx].shape, mode="FAST_RUN")
    np.testing.assert_array_equal(f(XV, np.array([1, 1, 1])), [3, 6])
    assert not any(isinstance(n.op, AdvancedSubtensor1) for n in f.maker.fgraph.toposort())
    with pytest.raises(IndexError, match=r"^index 4 is out of bounds for axis 0 with size 4\n"):
        f(XV, np.array([4]))


def test_static_shapes():
    x = ot.specify_shape(ot.dmatrix("x"), (4, 6))
    assert x[np.array([[0, 1, 2]])].type.shape == (1, 3, 6)
    assert x[np.array([0, 1]), None, 1:4].type.shape == (2, 1, 3)
    assert x[ot.lvector("i"), np.array([0])].type.shape == (None,)
    assert x[np.array([0, 1]), :, None][:, 0].type.shape == (2, 1)
    assert isinstance(x[1:, np.array([0])].owner.op, AdvancedSubtensor)


# ---- jacobian and hessian ---------------------------------------------------------------------------------------

def test_jacobian_and_hessian_of_a_static_size_are_graphs():
    x = ot.dvector("x")
    xs = ot.specify_shape(x, (3,))
    m = ot.specify_shape(ot.dmatrix("m"), (2, 2))
    j = jacobian(ot.exp(xs) * xs.sum(), x)
    h = hessian((xs ** 3).sum() + xs[0] * xs[1], x)
    jm = jacobian(m ** 2, m)
    f = opkit.function([x, m.owner.inputs[0]], [j, h, jm], mode="FAST_COMPILE")
    assert not any("Jacobian" in str(n.op) for n in f.maker.fgraph.toposort())
    xv, mv = np.array([0.1, 0.2, 0.3]), np.arange(4.0).reshape(2, 2)
    got_j, got_h, got_jm = f(xv, mv)
    np.testing.assert_allclose(got_j, np.diag(np.exp(xv)) * xv.sum() + np.exp(xv)[:, None])
    expected_h = np.diag(6 * xv)
    expected_h[0, 1] = expected_h[1, 0] = 1.0
    np.testing.assert_allclose(got_h, expected_h)
    np.testing.assert_allclose(got_jm, np.diag(2 * mv.ravel()).reshape(2, 2, 2, 2))
    assert ot.jacobian is jacobian and ot.hessian is hessian
    import opkit.compat.pytensor.gradient as pg
    import opkit.compat.theano.gradient as tg
    import opkit.compat.theano.tensor as tt

    assert pg.jacobian is tg.jacobian is tt.jacobian is jacobian and tt.hessian is hessian


# ---- Theano's boolean-index functions ---------------------------------------------------------------------------

def test_theanos_boolean_index_functions():
    import opkit.compat.theano.tensor as tt

    x, y, mask = ot.dmatrix("x"), ot.dscalar("y"), ot.matrix("mask", dtype="bool")
    maskn = XV > 0
    cases = [(tt.advanced_boolean_subtensor(x, mask), XV[maskn]),
             (tt.advanced_boolean_set_subtensor(x, y, mask), _set(XV, (maskn,), 2.0)),
             (tt.advanced_boolean_inc_subtensor(x, y, mask[:, 0], 1),
              _add_at(XV, (np.nonzero(maskn[:, 0])[0], 1), 2.0))]
    f = _compiled([x, y, mask], [c[0] for c in cases], "FAST_COMPILE")
    _check(f(XV, 2.0, maskn), [c[1] for c in cases])
