"""Theano's Corr3dMM and its two gradient ops (tensor/nnet/corr3d.py + c_code/corr3d_gemm.c), ported by imports.

OpenMPOp, ParamsType with EnumList and int64 fields, c_support_code_apply from a .c file, BLAS gemm
(config.blas__ldflags, blas_header_text), checked against a numpy correlation.
"""

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import opkit
import opkit.tensor as ot
from opkit.testing import verify_grad
from ported.checks import MIXED_GRAPH_MODES, assert_matches, rng, run_everywhere
from ported.theano.corr3d import Corr3dMM, Corr3dMM_gradInputs, Corr3dMM_gradWeights

TOL32 = dict(rtol=1e-4, atol=1e-4)


def tensor5(dtype, name=None):
    return ot.tensor(dtype, shape=(None,) * 5, name=name)


def correlate(img, kern, pad=(0, 0, 0), sub=(1, 1, 1), dil=(1, 1, 1), groups=1):
    """Theano's correlation (filters not flipped), batch x channels x 3 spatial axes."""
    img = np.pad(img, ((0, 0), (0, 0)) + tuple((p, p) for p in pad))
    span = tuple((k - 1) * d + 1 for k, d in zip(kern.shape[2:], dil))
    if any(i < s for i, s in zip(img.shape[2:], span)):
        return np.zeros(img.shape[:1] + kern.shape[:1] + (0, 0, 0), dtype=img.dtype)
    win = sliding_window_view(img, span, axis=(2, 3, 4))[..., ::dil[0], ::dil[1], ::dil[2]]
    win = win[:, :, ::sub[0], ::sub[1], ::sub[2]]
    per_in, per_out = img.shape[1] // groups, kern.shape[0] // groups
    outs = [np.einsum("ncxyzabd,kcabd->nkxyz", win[:, g * per_in:(g + 1) * per_in], kern[g * per_out:(g + 1) * per_out])
            for g in range(groups)]
    return np.concatenate(outs, axis=1).astype(img.dtype)


CASES = [  # image shape, kernel shape, border_mode, subsample, dilation, groups
    ((2, 3, 5, 6, 4), (4, 3, 2, 3, 2), "valid", (1, 1, 1), (1, 1, 1), 1),
    ((1, 2, 7, 5, 6), (3, 2, 3, 2, 3), "half", (2, 1, 2), (1, 1, 1), 1),
    ((1, 2, 4, 4, 5), (2, 2, 2, 2, 2), "full", (1, 1, 1), (1, 2, 1), 1),
    ((2, 4, 5, 5, 5), (4, 2, 3, 1, 2), (1, 0, 2), (1, 2, 1), (1, 1, 1), 2),
    ((0, 3, 4, 4, 4), (2, 3, 2, 2, 2), "valid", (1, 1, 1), (1, 1, 1), 1),
]


def pad_of(border_mode, kern_shape, dil):
    span = [(k - 1) * d + 1 for k, d in zip(kern_shape[2:], dil)]
    if border_mode == "valid":
        return (0, 0, 0)
    if border_mode == "half":
        return tuple(s // 2 for s in span)
    if border_mode == "full":
        return tuple(s - 1 for s in span)
    return border_mode


@pytest.mark.parametrize("img_shape, kern_shape, border_mode, sub, dil, groups", CASES)
def test_corr3d_matches_numpy_in_every_mode(img_shape, kern_shape, border_mode, sub, dil, groups):
    """float32 and float64 nodes of the op in one module (their c_support_code_apply texts differ by dtype)."""
    op = Corr3dMM(border_mode=border_mode, subsample=sub, filter_dilation=dil, num_groups=groups)
    inputs, outputs, values, expected = [], [], [], []
    for dtype in ("float32", "float64"):
        img, kern = tensor5(dtype), tensor5(dtype)
        iv = rng(1).normal(size=img_shape).astype(dtype)
        kv = rng(2).normal(size=kern_shape).astype(dtype)
        inputs += [img, kern]
        outputs.append(op(img, kern))
        values += [iv, kv]
        expected.append(correlate(iv, kv, pad_of(border_mode, kern_shape, dil), sub, dil, groups))
    results = run_everywhere(inputs, outputs, values)
    for mode, (got32, got64) in results.items():
        assert (got32.dtype, got64.dtype) == (np.float32, np.float64), mode
        np.testing.assert_allclose(got32, expected[0], err_msg=mode, **TOL32)
        np.testing.assert_allclose(got64, expected[1], rtol=1e-10, atol=1e-10, err_msg=mode)


def test_corr3d_eager_compute():
    iv, kv = rng(3).normal(size=(1, 2, 4, 4, 4)), rng(4).normal(size=(3, 2, 2, 2, 2))
    np.testing.assert_allclose(Corr3dMM().compute(iv, kv), correlate(iv, kv), rtol=1e-10)


@pytest.mark.parametrize("border_mode, sub", [("valid", (1, 1, 1)), ("half", (2, 1, 1)), ((1, 0, 1), (1, 1, 2))])
def test_corr3d_gradients_through_grad_weights_and_grad_inputs(border_mode, sub):
    op = Corr3dMM(border_mode=border_mode, subsample=sub)
    verify_grad(op, [rng(5).normal(size=(1, 2, 4, 5, 4)), rng(6).normal(size=(2, 2, 2, 3, 2))],
                rng=np.random.RandomState(0))


def test_corr3d_grad_ops_agree_with_the_forward_correlation():
    """gradWeights and gradInputs alone: <grad, dy> identities with numpy's correlation."""
    img, kern, top = tensor5("float64", "img"), tensor5("float64", "kern"), tensor5("float64", "top")
    iv, kv = rng(7).normal(size=(2, 2, 5, 4, 4)), rng(8).normal(size=(3, 2, 2, 2, 3))
    tv = rng(9).normal(size=correlate(iv, kv).shape)
    gw = Corr3dMM_gradWeights()(img, top, kern.shape[-3:])
    gi = Corr3dMM_gradInputs()(kern, top, img.shape[-3:])
    results = run_everywhere([img, kern, top], [gw, gi], [iv, kv, tv])
    # sum(top * corr(img, kern)) is linear in kern and in img: its gradients are gw and gi
    eps_k, eps_i = rng(10).normal(size=kv.shape), rng(11).normal(size=iv.shape)
    for mode, (got_w, got_i) in results.items():
        np.testing.assert_allclose((got_w * eps_k).sum(), (tv * correlate(iv, eps_k)).sum(), rtol=1e-9, err_msg=mode)
        np.testing.assert_allclose((got_i * eps_i).sum(), (tv * correlate(eps_i, kv)).sum(), rtol=1e-9, err_msg=mode)


# The op's own DebugMode runs in the default run in test_corr3d_matches_numpy_in_every_mode
@MIXED_GRAPH_MODES
def test_corr3d_twice_with_opkit_ops_and_openmp(modes):
    img, kern = tensor5("float64", "img"), tensor5("float64", "kern")
    first = Corr3dMM(openmp=True)(ot.exp(img) * 0.5, kern)
    second = Corr3dMM(border_mode="half", openmp=True)(img, kern).sum() + ot.sqrt(kern * kern).sum()
    iv, kv = rng(12).normal(size=(2, 2, 4, 4, 4)), rng(13).normal(size=(2, 2, 3, 3, 3))
    results = run_everywhere([img, kern], [first, second], [iv, kv], modes=modes)
    assert_matches(results, [correlate(np.exp(iv) * 0.5, kv),
                             correlate(iv, kv, (1, 1, 1)).sum() + np.abs(kv).sum()])


def test_corr3d_shape_is_inferred():
    img, kern = tensor5("float64"), tensor5("float64")
    f = opkit.function([img, kern], Corr3dMM(subsample=(2, 1, 1))(img, kern).shape)
    assert not any(isinstance(n.op, Corr3dMM) for n in f.maker.fgraph.toposort())
    np.testing.assert_array_equal(f(np.zeros((2, 3, 7, 5, 4)), np.zeros((4, 3, 3, 2, 2))), (2, 4, 3, 4, 3))


def test_corr3d_uses_opkits_blas():
    node = Corr3dMM()(tensor5("float64"), tensor5("float64")).owner
    assert "dgemm_" in node.op.c_support_code() and node.op.c_libraries()
    assert opkit.config.blas__ldflags == opkit.config.blas.ldflags != ""


def test_corr3d_user_errors():
    with pytest.raises(ValueError, match="invalid border_mode"):
        Corr3dMM(border_mode="same")
    with pytest.raises(TypeError, match="img must be 5D tensor"):
        Corr3dMM()(ot.dtensor4(), tensor5("float64"))
    with pytest.raises(ValueError, match="Number of groups should be greater than 0"):
        Corr3dMM(num_groups=0)
