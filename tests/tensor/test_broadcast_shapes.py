"""Broadcast shapes equal numpy's in every mode: results, errors, static shapes and inferred `x.shape`."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.core.tensor.elementwise.elemwise import BroadcastAxis, Elemwise, broadcast_shape

MODES = ("FAST_RUN", "FAST_COMPILE")

COMPATIBLE = [
    ((0,), (1,)),
    ((1,), (0,)),
    ((0,), (0,)),
    ((), (0,)),
    ((2, 0), (1,)),
    ((0, 1), (1, 5)),
    ((2, 1, 3), (4, 1)),
    ((5, 0), (5, 1)),
    ((1, 1), (3,)),
    ((3, 1, 0), (1, 2, 1)),
]
INCOMPATIBLE = [
    ((3,), (4,), 0, [3, 4]),
    ((0,), (3,), 0, [0, 3]),
    ((2, 3), (3, 2), 0, [2, 3]),
    ((2, 0), (2, 3), 1, [0, 3]),
    ((4, 2, 3), (5, 1), 1, [2, 5]),
]


def _message(what, shapes, axis, lengths):
    shapes_text = ", ".join(str(tuple(s)) for s in shapes)
    return f"{what} with shapes {shapes_text} cannot be broadcast together: axis {axis} has lengths {lengths}"


def _vars(shapes, dtype="float64"):
    return [ot.tensor(dtype, (None,) * len(s)) for s in shapes]


# The (x.ndim, y.ndim) of every pair of shapes above: one function per mode holds them all
NDIMS = sorted({(len(s[0]), len(s[1])) for s in COMPATIBLE + INCOMPATIBLE})


@pytest.fixture(scope="module")
def functions():
    """(mode, ndims) -> f(a, b) returning [x + y, (x + y).shape, (x * y).sum()] for x, y of those ndims.

    One compiled function per mode computes that for every pair of NDIMS; f gives the other pairs' inputs
    arrays of ones of length 1 (which broadcast) and checks their results too."""
    cache = {}

    def get(mode, ndims):
        if mode not in cache:
            inputs, outputs = [], []
            for pair in NDIMS:
                x, y = (ot.tensor("float64", (None,) * n) for n in pair)
                inputs += [x, y]
                outputs += [x + y, (x + y).shape, (x * y).sum()]
            cache[mode] = opkit.function(inputs, outputs, mode=mode)
        k = NDIMS.index(ndims)

        def f(a, b):
            values = [v for pair in NDIMS for v in ((a, b) if pair == ndims else (np.ones((1,) * pair[0]),
                                                                                   np.ones((1,) * pair[1])))]
            results = cache[mode](*values)
            for j, pair in enumerate(NDIMS):
                if j != k:
                    result, shape, total = results[3 * j:3 * j + 3]
                    np.testing.assert_array_equal(result, np.full((1,) * max(pair), 2.0), strict=True)
                    np.testing.assert_array_equal(shape, np.ones(max(pair), "int64"), strict=True)
                    assert total == 1.0
            return results[3 * k:3 * k + 3]

        return f

    return get


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shapes", COMPATIBLE, ids=str)
def test_broadcast_result_and_shape_are_numpys(functions, mode, shapes):
    f = functions(mode, tuple(len(s) for s in shapes))
    a = np.arange(np.prod(shapes[0]), dtype=float).reshape(shapes[0])
    b = np.arange(np.prod(shapes[1]), dtype=float).reshape(shapes[1]) + 1
    result, shape, total = f(a, b)
    expected = a + b
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)
    np.testing.assert_array_equal(shape, np.array(expected.shape, dtype="int64"), strict=True)
    assert total == (a * b).sum()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shapes", INCOMPATIBLE, ids=str)
def test_incompatible_shapes_raise_valueerror_naming_both(functions, mode, shapes):
    sx, sy, axis, lengths = shapes
    with pytest.raises(ValueError):
        np.zeros(sx) + np.zeros(sy)
    f = functions(mode, (len(sx), len(sy)))
    with pytest.raises(ValueError) as info:
        f(np.zeros(sx), np.zeros(sy))
    assert _message("the inputs of add", [sx, sy], axis, lengths) in str(info.value)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shapes", INCOMPATIBLE[:3], ids=str)
def test_shape_alone_of_incompatible_broadcast_raises(mode, shapes):
    """`(x + y).shape` is rewritten to shape arithmetic (no add node left) and still raises numpy's error."""
    sx, sy, axis, lengths = shapes
    x, y = _vars([sx, sy])
    f = opkit.function([x, y], (x + y).shape, mode=mode)
    if mode == "FAST_RUN":
        nodes = f.maker.fgraph.toposort()
        assert not any(isinstance(n.op, Elemwise) for n in nodes)
        checks = [n for n in nodes if isinstance(n.op, BroadcastAxis)]
        assert checks and all(op_has_c(n) for n in checks), "the runtime check runs in C"
    with pytest.raises(ValueError) as info:
        f(np.zeros(sx), np.zeros(sy))
    assert _message("the inputs of add", [sx, sy], axis, lengths) in str(info.value)
    np.testing.assert_array_equal(f(np.zeros(sx), np.zeros(sx)), sx)


@pytest.mark.parametrize("mode", MODES)
def test_shape_of_zero_length_broadcast_is_zero(mode):
    x, y = _vars([(0,), (1,)])
    f = opkit.function([x, y], [(x + y).shape, (x * y + x).shape, (ot.exp(x) + y).shape], mode=mode)
    for shape in f(np.zeros(0), np.zeros(1)):
        np.testing.assert_array_equal(shape, [0])
    for shape in f(np.zeros(1), np.zeros(0)):
        np.testing.assert_array_equal(shape, [0])
    for shape in f(np.zeros(1), np.zeros(1)):
        np.testing.assert_array_equal(shape, [1])


@pytest.mark.parametrize("mode", MODES)
def test_static_length_does_not_hide_a_runtime_clash(mode):
    x = ot.tensor("float64", (3,))
    y = ot.tensor("float64", (None,))
    z = x + y
    assert z.type.shape == (None,), "a known length and an unknown one may still clash at run time"
    f = opkit.function([x, y], [z.shape, z.shape[0]], mode=mode)
    np.testing.assert_array_equal(f(np.zeros(3), np.zeros(1))[0], [3])
    with pytest.raises(ValueError) as info:
        f(np.zeros(3), np.zeros(4))
    assert _message("the inputs of add", [(3,), (4,)], 0, [3, 4]) in str(info.value)


def test_static_shapes_follow_numpy():
    def static(*shapes):
        return (ot.tensor("float64", shapes[0]) + ot.tensor("float64", shapes[1])).type.shape

    assert static((0,), (1,)) == (0,)
    assert static((1,), (0,)) == (0,)
    assert static((2, 1), (1, 0)) == (2, 0)
    assert static((None, 1), (1, 4)) == (None, 4)
    assert static((1,), (None,)) == (None,)
    assert static((), (0, 2)) == (0, 2)
    assert broadcast_shape([(0,), (1,), (1,)]) == (0,)


@pytest.mark.parametrize("shapes, axis, lengths", [
    (((3,), (4,)), 0, [3, 4]),
    (((0,), (2,)), 0, [0, 2]),
    (((2, 1), (1, 3), (1, 4)), 1, [3, 4]),
])
def test_static_clash_raises_at_graph_build_naming_shapes(shapes, axis, lengths):
    variables = [ot.tensor("float64", s) for s in shapes]
    with pytest.raises(ValueError) as info:
        out = variables[0] + variables[1]
        for v in variables[2:]:
            out = out + v
    text = str(info.value)
    assert f"cannot be broadcast together: axis {axis} has lengths {lengths}" in text
    assert "the inputs of add with shapes" in text


@pytest.mark.parametrize("mode", MODES)
def test_three_input_clash_in_fused_loop_names_all_shapes(mode):
    x, y, z = _vars([(2, 3), (3,), (4, 1)])
    f = opkit.function([x, y, z], x * y + z, mode=mode)
    np.testing.assert_array_equal(f(np.ones((2, 3)), np.ones(3), np.ones((2, 1))), np.full((2, 3), 2.0))
    with pytest.raises(ValueError) as info:
        f(np.ones((2, 3)), np.ones(3), np.ones((4, 1)))
    text = str(info.value)
    assert "cannot be broadcast together: axis 0 has lengths [2, 4]" in text
    if mode == "FAST_RUN":
        assert "the inputs of Fused{mul,add} with shapes (2, 3), (3,), (4, 1)" in text
    else:
        assert "the inputs of add with shapes (2, 3), (4, 1)" in text


@pytest.mark.parametrize("mode", MODES)
def test_layouts_broadcast_like_numpy(mode):
    x, y = _vars([(3, 4), (4,)])
    f = opkit.function([x, y], ot.maximum(x * 2, y), mode=mode)
    base = np.arange(48.0).reshape(6, 8)
    layouts = [
        (base[::-2, ::2], base[0, ::-2]),                      # negative and non-unit strides
        (np.asfortranarray(base[:3, :4]), base[1, 2:6]),       # Fortran order, offset slice
        (base[:0, :4][:, ::-1], np.ones(4)[::-1]),             # 0 rows
        (base[:3, :4], np.broadcast_to(np.float64(5), (4,))),  # a 0-stride input
    ]
    for a, b in layouts:
        np.testing.assert_array_equal(f(a, b), np.maximum(a * 2, b), strict=True)


@pytest.mark.parametrize("mode", MODES)
def test_shape_of_one_axis_checks_every_axis(mode):
    """Asking for axis 1 of a broadcast whose axis 0 clashes raises too, as computing it would."""
    x, y = _vars([(2, 3), (4, 3)])
    f = opkit.function([x, y], (x + y).shape[1], mode=mode)
    assert f(np.zeros((4, 3)), np.zeros((1, 3))) == 3
    with pytest.raises(ValueError) as info:
        f(np.zeros((2, 3)), np.zeros((4, 3)))
    assert _message("the inputs of add", [(2, 3), (4, 3)], 0, [2, 4]) in str(info.value)


def test_broadcast_axis_perform_and_c_agree():
    from opkit.core.tensor.types.variable import constant

    dims = [ot.tensor("int64", ()) for _ in range(5)]
    node_out = BroadcastAxis((2, 3), 2, "the inputs of op")(*dims)
    outs = {mode: opkit.function(dims, node_out, mode=mode) for mode in MODES}
    for values, expected in [((3, 1, 2, 3, 0), 0), ((1, 5, 7, 1, 5), 5), ((2, 4, 1, 1, 1), 4)]:
        for mode, f in outs.items():
            assert f(*values) == expected, mode
    for mode, f in outs.items():
        with pytest.raises(ValueError, match=r"^the inputs of op with shapes \(2, 4\), \(3, 5, 4\) cannot be "
                                             r"broadcast together: axis 1 has lengths \[2, 5\]"):
            f(2, 4, 3, 5, 4)
    assert op_has_c(node_out.owner)
    assert not op_has_c(BroadcastAxis((1, 1), 0)(constant(3, dtype="int32"), dims[0]).owner)
