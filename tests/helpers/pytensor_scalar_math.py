"""Scalar ops of PyTensor's pytensor/scalar/math.py (commit f857e69611b9e36be2443f8e1905f5aa484aa455),
whole classes copied verbatim (Erf, Erfinv, Sigmoid, Softplus, Log1mexp, GammaLn, Psi, GammaInc, and the
C_CODE_PATH line), import lines changed only. PyTensor is BSD-3 licensed (Copyright (c) 2008-2024, Theano and
PyTensor developers): its licence is tests/ported/pytensor/LICENSE.txt. The imports below read
    from pytensor.configdefaults import config
    from pytensor.scalar.basic import (BinaryScalarOp, ScalarOp, UnaryScalarOp, complex_types, discrete_types,
        exp, expm1, float64, float_types, isinf, switch, true_div, upcast, upgrade_to_float,
        upgrade_to_float_no_complex)
    special = lazy_scipy_module("special")
c_code/gamma.c is PyTensor's pytensor/scalar/c_code/gamma.c, unchanged (MIT, see its header).
"""

from pathlib import Path
from textwrap import dedent

import numpy as np
import scipy.special as special

from opkit import config
from opkit.scalar import (
    BinaryScalarOp,
    UnaryScalarOp,
    complex_types,
    discrete_types,
    exp,
    expm1,
    float64,
    float_types,
    isinf,
    switch,
    true_div,
    upcast,
    upgrade_to_float,
    upgrade_to_float_no_complex,
)


class Erf(UnaryScalarOp):
    preserves_zero = True
    monotonic_increasing = True
    nfunc_spec = ("scipy.special.erf", 1, 1)

    def impl(self, x):
        return special.erf(x)

    def pullback(self, inputs, outputs, grads):
        (x,) = inputs
        (gz,) = grads
        if x.type in complex_types:
            raise NotImplementedError()
        if outputs[0].type in discrete_types:
            if x.type in discrete_types:
                return [x.zeros_like(dtype=config.floatX)]
            else:
                return [x.zeros_like()]

        cst = np.asarray(
            2.0 / np.sqrt(np.pi), dtype=upcast(x.type.dtype, gz.type.dtype)
        )
        return (gz * cst * exp(-x * x),)

    def c_code(self, node, name, inp, out, sub):
        (x,) = inp
        (z,) = out
        if node.inputs[0].type in complex_types:
            raise NotImplementedError("type not supported", type)
        cast = node.outputs[0].type.dtype_specs()[1]
        return f"{z} = erf(({cast}){x});"


erf = Erf(upgrade_to_float, name="erf")


class Erfinv(UnaryScalarOp):
    preserves_zero = True
    monotonic_increasing = True
    """
    Implements the inverse error function.

    Notes
    -----
    This op can still be executed on GPU, despite not having c_code. When
    running on GPU, an optimization will replace it with a GPU version.

    (TODO) Find a C implementation of erfinv for CPU.
    """

    nfunc_spec = ("scipy.special.erfinv", 1, 1)

    def impl(self, x):
        return special.erfinv(x)

    def pullback(self, inputs, outputs, grads):
        (x,) = inputs
        (gz,) = grads
        if x.type in complex_types:
            raise NotImplementedError()
        if outputs[0].type in discrete_types:
            if x.type in discrete_types:
                return [x.zeros_like(dtype=config.floatX)]
            else:
                return [x.zeros_like()]

        cst = np.asarray(
            np.sqrt(np.pi) / 2.0, dtype=upcast(x.type.dtype, gz.type.dtype)
        )
        return (gz * cst * exp(erfinv(x) ** 2),)

    def c_code(self, node, name, inp, out, sub):
        # TODO: erfinv() is not provided by the C standard library
        # x, = inp
        # z, = out
        # if node.inputs[0].type in complex_types:
        #     raise NotImplementedError('type not supported', type)
        # return "%(z)s = erfinv(%(x)s);" % locals()
        raise NotImplementedError()


erfinv = Erfinv(upgrade_to_float_no_complex, name="erfinv")


class Sigmoid(UnaryScalarOp):
    """
    Logistic sigmoid function (1 / (1 + exp(-x)), also known as expit or inverse logit
    """

    monotonic_increasing = True
    nfunc_spec = ("scipy.special.expit", 1, 1)

    def impl(self, x):
        return special.expit(x)

    def pullback(self, inp, outputs, grads):
        (x,) = inp
        (gz,) = grads
        y = sigmoid(x)
        rval = gz * y * (1.0 - y)

        assert rval.type.dtype.find("float") != -1

        return [rval]

    def c_code(self, node, name, inp, out, sub):
        (x,) = inp
        (z,) = out

        if node.inputs[0].type in float_types:
            if node.inputs[0].type == float64:
                return f"""{z} = 1.0 / (1.0 + exp(-{x}));"""
            else:
                return f"""{z} = 1.0f / (1.0f + exp(-{x}));"""
        else:
            raise NotImplementedError("only floatingpoint is implemented")

    def c_code_cache_version(self):
        v = super().c_code_cache_version()
        if v:
            return (2, *v)
        else:
            return v


sigmoid = Sigmoid(upgrade_to_float, name="sigmoid")


class Softplus(UnaryScalarOp):
    r"""
    Compute log(1 + exp(x)), also known as softplus or log1pexp

    This function is numerically faster than the naive approach, and does not overflow
    for large values of x.

    For details, see
    https://cran.r-project.org/web/packages/Rmpfr/vignettes/log1mexp-note.pdf

    References
    ----------
    .. [Machler2012] Martin Mächler (2012).
        "Accurately computing `\log(1-\exp(- \mid a \mid))` Assessed by the Rmpfr package"
    """

    monotonic_increasing = True

    def impl(self, x):
        # If x is an int8 or uint8, numpy.exp will compute the result in
        # half-precision (float16), where we want float32.
        x_dtype = getattr(x, "dtype", None)
        not_int8 = x_dtype is None or x_dtype.itemsize > 1
        if x < -37.0:
            return np.exp(x) if not_int8 else np.exp(x, signature="f")
        elif x < 18.0:
            return (
                np.log1p(np.exp(x)) if not_int8 else np.log1p(np.exp(x, signature="f"))
            )
        elif x < 33.3:
            if x_dtype is not None and x_dtype.kind == "u":
                # Negate uint will not do what we want
                x = x.astype("float32" if x_dtype.itemsize <= 2 else "float64")
            return x + np.exp(-x) if not_int8 else x + np.exp(-x, signature="f")
        else:
            return x

    def pullback(self, inp, outputs, grads):
        (x,) = inp
        (gz,) = grads
        return [gz * sigmoid(x)]

    def c_code(self, node, name, inp, out, sub):
        (x,) = inp
        (z,) = out
        # We use the same limits for all precisions, which may be suboptimal. The reference
        # paper only looked at double precision
        if node.inputs[0].type in float_types:
            if node.inputs[0].type == float64:
                return dedent(
                    f"""
                    {z} = (
                        {x} < -37.0 ? exp({x}) :
                        {x} < 18.0 ? log1p(exp({x})) :
                        {x} < 33.3 ? {x} + exp(-{x}) :
                        {x}
                    );
                    """
                )
            else:
                return dedent(
                    f"""
                    {z} = (
                        {x} < -37.0f ? exp({x}) :
                        {x} < 18.0f ? log1p(exp({x})) :
                        {x} < 33.3f ? {x} + exp(-{x}) :
                        {x}
                    );
                    """
                )
        else:
            raise NotImplementedError("only floatingpoint is implemented")

    def c_code_cache_version(self):
        v = super().c_code_cache_version()
        if v:
            return (3, *v)
        else:
            return v


softplus = Softplus(upgrade_to_float)


class Log1mexp(UnaryScalarOp):
    r"""
    Compute log(1 - exp(x)), also known as log1mexp

    This function is numerically more stable than the naive approach.

    For details, see
    https://cran.r-project.org/web/packages/Rmpfr/vignettes/log1mexp-note.pdf

    References
    ----------
    .. [Machler2012] Martin Mächler (2012).
        "Accurately computing `\log(1-\exp(- \mid a \mid))` Assessed by the Rmpfr package"
    """

    monotonic_decreasing = True

    def impl(self, x):
        if x < np.log(0.5):
            return np.log1p(-np.exp(x))
        else:
            return np.log(-np.expm1(x))

    def pullback(self, inp, outputs, grads):
        (x,) = inp
        (gz,) = grads
        res = true_div(-1.0, expm1(-x))
        # Correct gradient at 0.0 to be -inf
        res = switch(isinf(res), -np.inf, res)
        return [gz * res]

    def c_code(self, node, name, inp, out, sub):
        (x,) = inp
        (z,) = out

        if node.inputs[0].type in float_types:
            if node.inputs[0].type == float64:
                return f"{z} = {x} < -0.6931471805599453 ? log1p(-exp({x})) : log(-expm1({x}));"
            else:
                return f"{z} = {x} < -0.6931471805599453f ? log1p(-exp({x})) : log(-expm1({x}));"
        else:
            raise NotImplementedError("only floating point is implemented")


log1mexp = Log1mexp(upgrade_to_float)


C_CODE_PATH = Path(__file__).parent / "c_code"


class GammaLn(UnaryScalarOp):
    """
    Log gamma function.

    """

    nfunc_spec = ("scipy.special.gammaln", 1, 1)

    def impl(self, x):
        return special.gammaln(x)

    def pullback(self, inputs, outputs, grads):
        (x,) = inputs
        (gz,) = grads
        if x.type in complex_types:
            raise NotImplementedError()
        if outputs[0].type in discrete_types:
            if x.type in discrete_types:
                return [x.zeros_like(dtype=config.floatX)]
            else:
                return [x.zeros_like()]

        return [gz * psi(x)]

    def c_code(self, node, name, inp, out, sub):
        (x,) = inp
        (z,) = out
        # no c code for complex
        # [u]int* will be casted to float64 before computation
        if node.inputs[0].type in complex_types:
            raise NotImplementedError("gammaln complex c code is not implemented")
        # For some reason, on the GPU, uint64 inputs don't get casted
        # automatically to float64. This make the compilation crash
        cast = node.outputs[0].type.dtype_specs()[1]
        return f"""{z} = lgamma(({cast}){x});"""


gammaln = GammaLn(upgrade_to_float, name="gammaln")


class Psi(UnaryScalarOp):
    """
    Derivative of log gamma function.

    """

    nfunc_spec = ("scipy.special.psi", 1, 1)

    def impl(self, x):
        return special.psi(x)

    def pullback(self, inputs, outputs, grads):
        (x,) = inputs
        (gz,) = grads
        if x.type in complex_types:
            raise NotImplementedError()
        if outputs[0].type in discrete_types:
            if x.type in discrete_types:
                return [x.zeros_like(dtype=config.floatX)]
            else:
                return [x.zeros_like()]

        return [gz * tri_gamma(x)]

    def c_support_code(self, **kwargs):
        return """
            // For GPU support
            #ifdef WITHIN_KERNEL
            #define DEVICE WITHIN_KERNEL
            #else
            #define DEVICE
            #endif

            #ifndef M_PI
            #define M_PI 3.14159265358979323846
            #endif

            #ifndef _PSIFUNCDEFINED
            #define _PSIFUNCDEFINED
            DEVICE double _psi(double x) {

                /*taken from
                Bernardo, J. M. (1976). Algorithm AS 103:
                Psi (Digamma) Function. Applied Statistics. 25 (3), 315-317.
                http://www.uv.es/~bernardo/1976AppStatist.pdf
                */

                double y, R, psi_ = 0;
                double S  = 1.0e-5;
                double C = 8.5;
                double S3 = 8.333333333e-2;
                double S4 = 8.333333333e-3;
                double S5 = 3.968253968e-3;
                double D1 = -0.5772156649;

                if (x <= 0) {
                    // the digamma function approaches infinity from one side and -infinity from the other, around negative integers and zero
                    if (x == floor(x)) {
                        return INFINITY; // note that scipy returns -INF for 0 and NaN for negative integers
                    }

                    // Use reflection formula
                    double pi_x = M_PI * x;
                    double cot_pi_x = cos(pi_x) / sin(pi_x);
                    return _psi(1.0 - x) - M_PI * cot_pi_x;
                }

                y = x;

                if (y <= S)
                    return D1 - 1.0/y;

                while (y < C) {
                    psi_ = psi_ - 1.0 / y;
                    y = y + 1;
                }

                R = 1.0 / y;
                psi_ = psi_ + log(y) - .5 * R ;
                R= R*R;
                psi_ = psi_ - R * (S3 - R * (S4 - R * S5));

                return psi_;
            }
            #endif
            """

    def c_code(self, node, name, inp, out, sub):
        (x,) = inp
        (z,) = out
        if node.inputs[0].type in float_types:
            dtype = "npy_" + node.outputs[0].dtype
            return f"{z} = ({dtype}) _psi({x});"
        raise NotImplementedError("only floating point is implemented")


psi = Psi(upgrade_to_float, name="psi")


class GammaInc(BinaryScalarOp):
    """
    Compute the regularized lower gamma function (P).
    """

    nfunc_spec = ("scipy.special.gammainc", 2, 1)

    def impl(self, k, x):
        return special.gammainc(k, x)

    def pullback(self, inputs, outputs, grads):
        (k, x) = inputs
        (gz,) = grads
        return [
            gz * gammainc_grad(k, x),
            gz * exp(-x + (k - 1) * log(x) - gammaln(k)),
        ]

    def c_support_code(self, **kwargs):
        return (C_CODE_PATH / "gamma.c").read_text(encoding="utf-8")

    def c_code(self, node, name, inp, out, sub):
        k, x = inp
        (z,) = out
        if node.inputs[0].type in float_types:
            dtype = "npy_" + node.outputs[0].dtype
            return f"""{z} =
                ({dtype}) GammaP({k}, {x});"""
        raise NotImplementedError("only floatingpoint is implemented")

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self))

    def c_code_cache_version(self):
        v = super().c_code_cache_version()
        if v:
            return (2, *v)
        else:
            return v


gammainc = GammaInc(upgrade_to_float, name="gammainc")
