"""The axpy op of tests/cop/test_params.py in c_code form (AxpyCode), which tests/link/test_updates_c.py runs too."""

import opkit
import opkit.scalar
import opkit.tensor as ot
from opkit import Apply, EnumList, Op, ParamsType

AXPY_PARAMS = ParamsType(alpha=opkit.scalar.float64, mode=EnumList("ADD", "MUL"))


def expected(alpha, mode, x, y):
    return alpha * x * y if mode in ("MUL", 1) else alpha * x + y


class AxpyMixin:
    __props__ = ("alpha", "mode")
    params_type = AXPY_PARAMS

    def make_node(self, x, y):
        x, y = ot.as_tensor_variable(x), ot.as_tensor_variable(y)
        return Apply(self, [x, y], [x.type()])

    def perform(self, node, inputs, output_storage, params):
        x, y = inputs
        output_storage[0][0] = expected(params.alpha, params.mode, x, y)


class AxpyCode(AxpyMixin, Op):
    """The same op with c_code and sub["params"]."""

    def __init__(self, alpha, mode):
        self.alpha, self.mode = alpha, mode

    def c_code(self, node, name, inputs, outputs, sub):
        (x, y), (z,), params = inputs, outputs, sub["params"]
        return f"""
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS({x}), NPY_FLOAT64, 0);
        if (!{z}) {sub['fail']}
        for (npy_intp i = 0; i < PyArray_DIM({x}, 0); ++i) {{
            double a = ((double*)PyArray_DATA({x}))[i], b = ((double*)PyArray_DATA({y}))[i];
            ((double*)PyArray_DATA({z}))[i] = {params}->mode == MUL ? {params}->alpha * a * b
                                                                  : {params}->alpha * a + b;
        }}
        """

    def c_code_cache_version(self):
        return (1,)

