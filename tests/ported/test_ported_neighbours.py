"""Theano's Images2Neibs (tensor/nnet/neighbours.py), ported by its import lines, against a numpy reference."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from ported.checks import MIXED_GRAPH_MODES, assert_matches, rng, run_everywhere, verify_grad_compiled
from ported.theano.neighbours import Images2Neibs, images2neibs, neibs2images


def reference(x, neib, step, mode):
    """Each row is one (image, channel, patch row, patch column) patch, flattened; as Theano documents."""
    c, d = neib
    sx, sy = step
    if mode == "half":
        x = np.pad(x, ((0, 0), (0, 0), (c // 2, c // 2), (d // 2, d // 2)))
    elif mode == "full":
        x = np.pad(x, ((0, 0), (0, 0), (c - 1, c - 1), (d - 1, d - 1)))
    grid_c, grid_d = (x.shape[2] - c) // sx + 1, (x.shape[3] - d) // sy + 1
    rows = [x[n, s, a * sx:a * sx + c, b * sy:b * sy + d].ravel()
            for n in range(x.shape[0]) for s in range(x.shape[1]) for a in range(grid_c) for b in range(grid_d)]
    return np.array(rows, dtype=x.dtype).reshape(len(rows), c * d)


CASES = [  # shape, neib, step, mode
    ((2, 3, 4, 6), (2, 2), (2, 2), "valid"),
    ((1, 2, 5, 7), (2, 3), (1, 2), "valid"),
    ((2, 1, 5, 7), (2, 3), None, "ignore_borders"),
    ((1, 2, 5, 7), (3, 3), (1, 1), "half"),
    ((1, 1, 4, 5), (2, 3), (2, 1), "full"),
    ((0, 3, 4, 6), (2, 2), None, "valid"),
    ((2, 0, 4, 6), (2, 2), None, "ignore_borders"),
]


@pytest.mark.parametrize("shape, neib, step, mode", CASES)
def test_images2neibs_matches_numpy_in_every_mode(shape, neib, step, mode):
    """Both float dtypes in one function (one compile per mode), each against the reference."""
    x32, x64 = ot.tensor4(dtype="float32"), ot.tensor4(dtype="float64")
    v64 = rng().normal(size=shape)
    v32 = v64.astype("float32")
    outputs = [images2neibs(x32, neib, step, mode=mode), images2neibs(x64, neib, step, mode=mode)]
    results = run_everywhere([x32, x64], outputs, [v32, v64])
    assert_matches(results, [reference(v32, neib, step or neib, mode), reference(v64, neib, step or neib, mode)])
    for outs in results.values():
        assert [o.dtype for o in outs] == [np.float32, np.float64]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_images2neibs_eager_compute(dtype):
    value = rng(1).normal(size=(1, 2, 4, 4)).astype(dtype)
    got = Images2Neibs("valid").compute(value, np.array([2, 2]), np.array([2, 2]))
    np.testing.assert_array_equal(got, reference(value, (2, 2), (2, 2), "valid"))
    assert got.dtype == dtype


def test_images2neibs_gradient_valid():
    verify_grad_compiled(lambda x: images2neibs(x, (2, 2)), [rng(2).normal(size=(2, 2, 4, 6))],
                         rng=np.random.RandomState(0))


def test_images2neibs_gradient_ignore_borders():
    verify_grad_compiled(lambda x: images2neibs(x, (2, 2), mode="ignore_borders"), [rng(2).normal(size=(1, 2, 5, 7))],
                         rng=np.random.RandomState(0))


# neibs2images is a graph of opkit's ops around Images2Neibs: the op's own DebugMode runs in the default run in
# test_images2neibs_matches_numpy_in_every_mode
@MIXED_GRAPH_MODES
def test_neibs2images_inverts_images2neibs(modes):
    x = ot.dtensor4("x")
    value = rng(3).normal(size=(2, 3, 4, 6))
    back = neibs2images(images2neibs(x, (2, 3)), (2, 3), x.shape)
    assert_matches(run_everywhere([x], back, [value], modes=modes), [value])


# The op's own DebugMode runs in the default run in test_images2neibs_matches_numpy_in_every_mode
@MIXED_GRAPH_MODES
def test_images2neibs_twice_both_dtypes_and_with_opkit_ops(modes):
    x32, x64 = ot.ftensor4("x32"), ot.dtensor4("x64")
    a = ot.exp(images2neibs(x32, (2, 2))).sum(axis=1) * 2
    b = images2neibs(x64, (2, 2), mode="ignore_borders") + images2neibs(x64, (2, 2))[:, :1]
    v32 = rng(4).normal(size=(1, 2, 4, 4)).astype("float32")
    v64 = rng(5).normal(size=(2, 1, 4, 4))
    results = run_everywhere([x32, x64], [a, b], [v32, v64], modes=modes)
    expected = [np.exp(reference(v32, (2, 2), (2, 2), "valid")).sum(axis=1) * 2,
                reference(v64, (2, 2), (2, 2), "valid") + reference(v64, (2, 2), (2, 2), "valid")[:, :1]]
    assert_matches(results, expected)


def test_images2neibs_of_an_opkit_result_in_one_module():
    """Images2Neibs reads PyArray_TYPE(py_ten4): py_<name> of a value another node computed is synced after it."""
    x = ot.dtensor4("x")
    value = rng(6).normal(size=(1, 1, 4, 4))
    f = opkit.function([x], images2neibs(x * 2, (2, 2)), mode="FAST_RUN")
    np.testing.assert_allclose(f(value), reference(value * 2, (2, 2), (2, 2), "valid"))


def test_images2neibs_shape_is_inferred_without_running_it():
    x = ot.dtensor4("x")
    f = opkit.function([x], images2neibs(x, (2, 3), (1, 2)).shape)
    assert not any(isinstance(n.op, Images2Neibs) for n in f.maker.fgraph.toposort())
    np.testing.assert_array_equal(f(np.zeros((2, 3, 5, 7))), reference(np.zeros((2, 3, 5, 7)), (2, 3), (1, 2),
                                                                         "valid").shape)


def test_images2neibs_user_errors():
    with pytest.raises(NotImplementedError, match="Only modes"):
        Images2Neibs("nearest")
    f = opkit.function([x := ot.dtensor4()], images2neibs(x, (2, 2)), mode="FAST_RUN")
    with pytest.raises(Exception, match="neib_shape|not a multiple|valid"):
        f(np.zeros((1, 1, 5, 5)))


def test_images2neibs_of_an_opkit_result_with_a_module_per_node():
    """Theano's default: a module per node, where the op's py_ten4 is its real input (see the test above)."""
    x = ot.dtensor4("x")
    value = rng(7).normal(size=(1, 2, 4, 4))
    f = opkit.function([x], images2neibs(x * 2, (2, 2)), mode=opkit.Mode(linker="cop"))
    np.testing.assert_allclose(f(value), reference(value * 2, (2, 2), (2, 2), "valid"))
