"""Theano's ConvOp (tensor/nnet/conv.py), ported by its import lines, against scipy.signal.convolve2d.

ConvOp is an OpenMPOp whose C comes in three generated forms: the "unroll patch" loop (chosen without shapes,
or with OpenMP), loops unrolled over batch and kernels, and the plain loop that also serves the logical
(upsampled) shapes of its gradient; shapes given to the op are compiled in as constants. Each form runs in
float64 on C, Fortran, strided (reversed) and 0-size values, in FAST_RUN (one function), FAST_COMPILE (perform:
scipy's _convolve2d) and DebugMode (perform against C); float32 runs the forms of FLOAT32_KEPT in the default run and
every form under `-m soak`.
"""

import numpy as np
import pytest
from scipy import signal

import opkit
import opkit.tensor as ot
from ported.checks import MODES, TOL, verify_grad_compiled
from ported.theano.conv import ConvOp, conv2d

IMSHP, KSHP, NKERN, BSIZE = (2, 6, 5), (3, 2), 3, 2  # the shapes compiled into the ops that are given them
FIXED = dict(imshp=IMSHP, kshp=KSHP, nkern=NKERN, bsize=BSIZE)
OPS = {  # label: (op, takes inputs of any shape)
    "patch valid": (ConvOp(output_mode="valid"), True),
    "patch full strided": (ConvOp(output_mode="full", dx=2, dy=1), True),
    "patch valid no openmp": (ConvOp(output_mode="valid", dx=1, dy=2, openmp=False), True),
    "batch-kern unrolled valid": (ConvOp(output_mode="valid", unroll_batch=2, unroll_kern=3, openmp=False, **FIXED),
                                  False),
    "patch with shapes full": (ConvOp(output_mode="full", dy=2, unroll_patch=True, **FIXED), False),
    "plain loop valid": (ConvOp(output_mode="valid", dx=2, unroll_patch=False, openmp=False, **FIXED), False),
}
LAYOUTS = ("c", "fortran", "strided", "batch=0", "nkern=0")
# float32's ops in the default run: the unroll-patch loop and the plain loop; the others compile the same generated
# forms for float32 once more, a module each (test_conv_op_matches_scipy_in_float32, soak)
FLOAT32_KEPT = ("patch valid", "plain loop valid")


def convolve(img, kern, mode, dx=1, dy=1):
    """out[b, n] = sum over c of convolve2d(img[b, c], kern[n, c]), subsampled: ConvOp's convolution."""
    sign = 1 if mode == "full" else -1
    rows, cols = (i + sign * (k - 1) for i, k in zip(img.shape[2:], kern.shape[2:]))
    out = np.zeros((img.shape[0], kern.shape[0], rows, cols))
    for b in range(img.shape[0]):
        for n in range(kern.shape[0]):
            for c in range(img.shape[1]):
                out[b, n] += signal.convolve2d(img[b, c].astype(float), kern[n, c].astype(float), mode=mode)
    return out[:, :, ::dx, ::dy]


def _value(r, shape, dtype, layout):
    if layout == "strided":
        return r.normal(size=tuple(2 * s for s in shape)).astype(dtype)[::-2, ::2, ::2, ::-2]
    value = r.normal(size=shape).astype(dtype)
    return np.asfortranarray(value) if layout == "fortran" else value


def _values(dtype, layout, seed=0):
    """(free image, free kernels, fixed-shape image, fixed-shape kernels) for one layout."""
    r = np.random.default_rng(seed)
    batch, nkern = {"batch=0": (0, 2), "nkern=0": (3, 0)}.get(layout, (3, 2))
    fixed_layout = layout if layout in ("c", "fortran", "strided") else "c"
    return (_value(r, (batch, 2, 7, 6), dtype, layout), _value(r, (nkern, 2, 3, 3), dtype, layout),
            _value(r, (BSIZE,) + IMSHP, dtype, fixed_layout), _value(r, (NKERN, IMSHP[0]) + KSHP, dtype, fixed_layout))


def _graph(dtypes, kept=lambda dtype, label: True):
    inputs, outputs, labels = [], [], []
    for dtype in dtypes:
        img, kern, img_s, kern_s = (ot.tensor(dtype, shape=(None,) * 4, name=n)
                                    for n in ("img", "kern", "imgS", "kernS"))
        inputs += [img, kern, img_s, kern_s]
        for label, (op, free) in OPS.items():
            if kept(dtype, label):
                outputs.append(op(img, kern) if free else op(img_s, kern_s))
                labels.append((dtype, label, free))
        if kept(dtype, "conv2d"):
            with pytest.warns(UserWarning, match="conv2d is deprecated"):
                outputs.append(conv2d(img, kern, border_mode="full", subsample=(1, 2)))
            labels.append((dtype, "conv2d", True))
    return inputs, outputs, labels


def _check(mode, dtypes, kept):
    """Compile the ops `kept` of `dtypes` in one function of `mode` and compare it with scipy on every layout."""
    inputs, outputs, labels = _graph(dtypes, kept)
    f = opkit.function(inputs, outputs, mode=mode, on_unused_input="ignore")
    for layout in LAYOUTS:
        values = {dtype: _values(dtype, layout) for dtype in dtypes}
        results = f(*[v for dtype in dtypes for v in values[dtype]])
        for got, (dtype, label, free) in zip(results, labels):
            op = OPS[label][0] if label in OPS else ConvOp(output_mode="full", dy=2)
            img, kern = values[dtype][:2] if free else values[dtype][2:]
            want = convolve(img, kern, op.out_mode, op.dx, op.dy)
            where = f"{mode} {layout} {dtype} {label}"
            assert got.dtype == np.dtype(dtype) and got.shape == want.shape, (where, got.dtype, got.shape, want.shape)
            np.testing.assert_allclose(got, want, err_msg=where, **{"float32": dict(rtol=1e-4, atol=1e-4)}.get(
                dtype, TOL[dtype]))


@pytest.mark.parametrize("mode", MODES)
def test_conv_op_matches_scipy(mode):
    """Every form of the C, in one function per mode, called on each layout.

    The ConvOps differ in mode, stride, shapes and OpenMP (so in compile flags) and share one FAST_RUN function.
    float64 runs every op; float32 (FAST_RUN and FAST_COMPILE) those of FLOAT32_KEPT. DebugMode (a module per node)
    runs float64 only, to keep the compile count down.
    """
    dtypes = ("float64",) if mode == "DebugMode" else ("float32", "float64")
    _check(mode, dtypes, lambda dtype, label: dtype == "float64" or label in FLOAT32_KEPT)


@pytest.mark.soak
def test_conv_op_matches_scipy_in_float32():
    """float32's ops that the default run leaves out, in FAST_RUN."""
    _check("FAST_RUN", ("float32",), lambda dtype, label: label not in FLOAT32_KEPT)


def test_conv_op_gradient():
    """Theano's grad, of a valid and a strided full convolution: ConvOps on logical (upsampled) shapes (verify_grad on
    perform, then the gradient's C against it)."""
    shapes = dict(imshp=(2, 5, 4), kshp=(2, 3), nkern=2, bsize=2)
    valid, full = ConvOp(output_mode="valid", **shapes), ConvOp(output_mode="full", dx=2, **shapes)
    r = np.random.default_rng(2)
    verify_grad_compiled(lambda img, kern: valid(img, kern).sum(axis=(2, 3)) + full(img, kern).sum(axis=(2, 3)),
                         [r.normal(size=(2, 2, 5, 4)), r.normal(size=(2, 2, 2, 3))], rng=np.random.RandomState(0))


def test_conv_op_shape_is_inferred():
    img, kern = ot.dtensor4(), ot.dtensor4()
    f = opkit.function([img, kern], ConvOp(output_mode="full", dx=2)(img, kern).shape)
    assert not any(isinstance(n.op, ConvOp) for n in f.maker.fgraph.toposort())
    np.testing.assert_array_equal(f(np.zeros((2, 3, 7, 5)), np.zeros((4, 3, 3, 2))), (2, 4, 5, 6))


def test_conv_op_user_errors():
    """Upstream's checks: at construction, make_node, and run time (compiled-in shapes, C and perform)."""
    with pytest.raises(Exception, match="Mode same not implemented"):
        ConvOp(output_mode="same")
    with pytest.raises(ValueError, match="len\\(kshp\\) must be 2"):
        ConvOp(kshp=(3, 3, 3))
    with pytest.raises(TypeError, match="requires input be a 4D tensor"):
        ConvOp()(ot.dtensor3(), ot.dtensor4())
    with pytest.raises(NotImplementedError, match="must have the same type"):
        ConvOp()(ot.ftensor4(), ot.dtensor4())
    img, kern = ot.dtensor4(), ot.dtensor4()
    out = ConvOp(output_mode="valid", unroll_patch=True, **FIXED)(img, kern)
    wrong = (np.zeros((BSIZE,) + IMSHP), np.zeros((NKERN, IMSHP[0], 3, 3)))
    with pytest.raises(ValueError, match="number of columns in the filter"):
        opkit.function([img, kern], out)(*wrong)
    with pytest.raises(ValueError, match="filter shape provided at build time"):
        opkit.function([img, kern], out, mode="FAST_COMPILE")(*wrong)
