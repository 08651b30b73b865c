"""The C tutorials' examples, ported by changing imports only ("Extending Theano with a C Op",
"Implementing double in C", "Making arithmetic Ops on double")."""

import numpy
import pytest

import opkit
import opkit.tensor
from opkit import Apply, Op, Type

theano = opkit
gof = opkit

from helpers.tutorial_ops import VectorTimesScalar  # noqa: E402 (the tutorial's op)


class VectorTimesVector(gof.Op):
    __props__ = ()

    def make_node(self, x, y):
        if x.type.ndim != 1:
            raise TypeError('x must be a 1-d vector')
        if y.type.ndim != 1:
            raise TypeError('y must be a 1-d vector')
        output_var = theano.tensor.TensorType(
                        dtype=theano.scalar.upcast(x.dtype, y.dtype),
                        broadcastable=[False])()
        return gof.Apply(self, [x, y], [output_var])

    def c_code_cache_version(self):
        return (1, 0, 2)

    def c_support_code(self):
        c_support_code = """
        bool vector_same_shape(PyArrayObject* arr1,
            PyArrayObject* arr2)
        {
            return (PyArray_DIMS(arr1)[0] == PyArray_DIMS(arr2)[0]);
        }
        """
        return c_support_code

    def c_support_code_apply(self, node, name):
        dtype_x = node.inputs[0].dtype
        dtype_y = node.inputs[1].dtype
        dtype_z = node.outputs[0].dtype
        c_support_code = """
        void vector_elemwise_mult_%(name)s(npy_%(dtype_x)s* x_ptr,
            int x_str, npy_%(dtype_y)s* y_ptr, int y_str,
            npy_%(dtype_z)s* z_ptr, int z_str, int nbElements)
        {
            for (int i=0; i < nbElements; i++){
                z_ptr[i * z_str] = x_ptr[i * x_str] * y_ptr[i * y_str];
            }
        }
        """
        return c_support_code % locals()

    def c_code(self, node, name, inp, out, sub):
        x, y = inp
        z, = out
        dtype_x = node.inputs[0].dtype
        dtype_y = node.inputs[1].dtype
        dtype_z = node.outputs[0].dtype
        itemsize_x = numpy.dtype(dtype_x).itemsize
        itemsize_y = numpy.dtype(dtype_y).itemsize
        itemsize_z = numpy.dtype(dtype_z).itemsize
        typenum_z = numpy.dtype(dtype_z).num
        fail = sub['fail']
        c_code = """
        // Validate that the inputs have the same shape
        if ( !vector_same_shape(%(x)s, %(y)s))
        {
            PyErr_Format(PyExc_ValueError, "Shape mismatch : "
                        "x.shape[0] and y.shape[0] should match but "
                        "x.shape[0] == %%i and y.shape[0] == %%i",
                        (int)PyArray_DIMS(%(x)s)[0], (int)PyArray_DIMS(%(y)s)[0]);
            %(fail)s;
        }
        if (NULL == %(z)s || !(vector_same_shape(%(x)s, %(z)s)))
        {
            Py_XDECREF(%(z)s);
            %(z)s = (PyArrayObject*)PyArray_EMPTY(1,
                                                PyArray_DIMS(%(x)s),
                                                %(typenum_z)s,
                                                0);
            if (!%(z)s) {
                %(fail)s;
            }
        }
        vector_elemwise_mult_%(name)s(
                (npy_%(dtype_x)s*)PyArray_DATA(%(x)s),
                PyArray_STRIDES(%(x)s)[0] / %(itemsize_x)s,
                (npy_%(dtype_y)s*)PyArray_DATA(%(y)s),
                PyArray_STRIDES(%(y)s)[0] / %(itemsize_y)s,
                (npy_%(dtype_z)s*)PyArray_DATA(%(z)s),
                PyArray_STRIDES(%(z)s)[0] / %(itemsize_z)s,
                PyArray_DIMS(%(x)s)[0]);
        """
        return c_code % locals()


def test_vector_times_scalar_has_no_perform_and_runs_in_c():
    x = opkit.tensor.dvector("x")
    y = opkit.tensor.dscalar("y")
    f = opkit.function([x, y], VectorTimesScalar()(x, y))
    data = numpy.arange(6.0)
    numpy.testing.assert_array_equal(f(data, 2.5), data * 2.5)
    strided = numpy.arange(12.0)[::2]
    numpy.testing.assert_array_equal(f(strided, -1.0), -strided)


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", opkit.Mode(linker="cop")])
def test_vector_times_scalar_in_every_mode(mode):
    x = opkit.tensor.fvector("x")
    y = opkit.tensor.fscalar("y")
    f = opkit.function([x, y], VectorTimesScalar()(x, y), mode=mode)
    data = numpy.arange(4, dtype="float32")
    out = f(data, numpy.float32(3))
    assert out.dtype == numpy.float32
    numpy.testing.assert_array_equal(out, data * 3)


def test_vector_times_vector_twice_in_one_graph_with_different_dtypes():
    x = opkit.tensor.dvector("x")
    y = opkit.tensor.dvector("y")
    a = opkit.tensor.fvector("a")
    b = opkit.tensor.ivector("b")
    op = VectorTimesVector()
    out1, out2 = op(x, y), op(a, b)
    assert out2.dtype == "float64"
    f = opkit.function([x, y, a, b], [out1, out2])
    assert len(f.maker.fgraph.toposort()) == 2
    xv, yv = numpy.arange(5.0), numpy.linspace(0, 1, 5)
    av, bv = numpy.arange(5, dtype="float32"), numpy.arange(5, dtype="int32")
    r1, r2 = f(xv, yv, av, bv)
    numpy.testing.assert_allclose(r1, xv * yv)
    numpy.testing.assert_allclose(r2, av * bv)


def test_vector_times_vector_shape_mismatch_raises_its_value_error():
    x = opkit.tensor.dvector("x")
    y = opkit.tensor.dvector("y")
    f = opkit.function([x, y], VectorTimesVector()(x, y))
    with pytest.raises(ValueError, match="Shape mismatch : x.shape\\[0\\] and y.shape\\[0\\] should match but "
                                         "x.shape\\[0\\] == 3 and y.shape\\[0\\] == 4"):
        f(numpy.ones(3), numpy.ones(4))
    numpy.testing.assert_array_equal(f(numpy.ones(2), numpy.ones(2)), numpy.ones(2))


# ---- "Implementing double in C": the class version of the type ----

class Double(gof.Type):

    def filter(self, x, strict=False, allow_downcast=None):
        if strict and not isinstance(x, float):
            raise TypeError('Expected a float!')
        return float(x)

    def values_eq_approx(self, x, y, tolerance=1e-4):
        return abs(x - y) / (x + y) < tolerance

    def __str__(self):
        return "double"

    def c_declare(self, name, sub):
        return """
        double %(name)s;
        """ % dict(name=name)

    def c_init(self, name, sub):
        return """
        %(name)s = 0.0;
        """ % dict(name=name)

    def c_extract(self, name, sub):
        return """
        if (!PyFloat_Check(py_%(name)s)) {
            PyErr_SetString(PyExc_TypeError, "expected a float");
            %(fail)s
        }
        %(name)s = PyFloat_AsDouble(py_%(name)s);
        """ % dict(sub, name=name)

    def c_sync(self, name, sub):
        return """
        Py_XDECREF(py_%(name)s);
        py_%(name)s = PyFloat_FromDouble(%(name)s);
        if (!py_%(name)s) {
            printf("PyFloat_FromDouble failed on: %%f\\n", %(name)s);
            Py_XINCREF(Py_None);
            py_%(name)s = Py_None;
        }
        """ % dict(name=name)

    def c_cleanup(self, name, sub):
        return ""


double = Double()


class BinaryDoubleOp(gof.Op):

    __props__ = ("name", "fn", "ccode")

    def __init__(self, name, fn, ccode):
        self.name = name
        self.fn = fn
        self.ccode = ccode

    def make_node(self, x, y):
        if isinstance(x, (int, float)):
            x = gof.Constant(double, x)
        if isinstance(y, (int, float)):
            y = gof.Constant(double, y)
        if x.type != double or y.type != double:
            raise TypeError('%s only works on doubles' % self.name)
        return gof.Apply(self, [x, y], [double()])

    def perform(self, node, inp, out):
        x, y = inp
        z, = out
        z[0] = self.fn(x, y)

    def __str__(self):
        return self.name

    def c_code(self, node, name, inp, out, sub):
        x, y = inp
        z, = out
        fail = sub['fail']
        return self.ccode % locals()


add = BinaryDoubleOp(name='add', fn=lambda x, y: x + y, ccode="%(z)s = %(x)s + %(y)s;")
sub = BinaryDoubleOp(name='sub', fn=lambda x, y: x - y, ccode="%(z)s = %(x)s - %(y)s;")
mul = BinaryDoubleOp(name='mul', fn=lambda x, y: x * y, ccode="%(z)s = %(x)s * %(y)s;")
div = BinaryDoubleOp(name='div', fn=lambda x, y: x / y, ccode="""
if (%(y)s == 0.0) {
    PyErr_SetString(PyExc_ZeroDivisionError, "division by zero");
    %(fail)s
}
%(z)s = %(x)s / %(y)s;
""")


def test_double_type_in_c_computes_x_plus_y_times_z():
    x, y, z = double('x'), double('y'), double('z')
    a = add(x, y)
    b = mul(a, z)
    f = opkit.function([x, y, z], b)
    assert f(1.0, 2.0, 3.0) == 9.0
    assert f(1, 2, 3) == 9.0      # filtered by double.filter
    # the runner is one compiled module: the whole graph in one C call
    assert type(f._runner).__name__ == "Runner"


def test_double_c_error_raises_and_leaves_function_usable():
    x, y = double('x'), double('y')
    f = opkit.function([x, y], sub(div(x, y), 1.0))
    assert f(6.0, 3.0) == 1.0
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        f(1.0, 0.0)
    assert f(8.0, 2.0) == 3.0


def test_double_c_extract_rejects_non_float_with_trust_input():
    x, y = double('x'), double('y')
    f = opkit.function([x, y], add(x, y))
    f.trust_input = True
    with pytest.raises(TypeError, match="expected a float"):
        f(1, 2.0)
    assert f(1.5, 2.0) == 3.5


# ---- the instance-assigned variant of the double type ----

def _instance_double():
    dbl = Type()

    def filter(x, strict=False, allow_downcast=None):
        if strict and not isinstance(x, float):
            raise TypeError('Expected a float!')
        return float(x)
    dbl.filter = filter

    def c_declare(name, sub):
        return "double %(name)s;" % dict(name=name)
    dbl.c_declare = c_declare

    def c_init(name, sub):
        return "%(name)s = 0.0;" % dict(name=name)
    dbl.c_init = c_init

    def c_extract(name, sub):
        return """
        if (!PyFloat_Check(py_%(name)s)) {
            PyErr_SetString(PyExc_TypeError, "expected a float");
            %(fail)s
        }
        %(name)s = PyFloat_AsDouble(py_%(name)s);
        """ % dict(name=name, fail=sub['fail'])
    dbl.c_extract = c_extract

    def c_sync(name, sub):
        return """
        Py_XDECREF(py_%(name)s);
        py_%(name)s = PyFloat_FromDouble(%(name)s);
        if (!py_%(name)s) {
            printf("PyFloat_FromDouble failed on: %%f\\n", %(name)s);
            Py_XINCREF(Py_None);
            py_%(name)s = Py_None;
        }
        """ % dict(name=name)
    dbl.c_sync = c_sync

    def c_cleanup(name, sub):
        return ""
    dbl.c_cleanup = c_cleanup
    return dbl


def test_instance_assigned_double_type_with_instance_assigned_c_op():
    dbl = _instance_double()
    mul_op = Op()

    def make_node(x, y):
        if isinstance(x, (int, float)):
            x = gof.Constant(dbl, x)
        if isinstance(y, (int, float)):
            y = gof.Constant(dbl, y)
        if x.type != dbl or y.type != dbl:
            raise TypeError('mul only works on doubles')
        return Apply(mul_op, [x, y], [dbl()])
    mul_op.make_node = make_node

    def c_code(node, name, inputs, outputs, sub):
        x, y = inputs
        z, = outputs
        return "%(z)s = %(x)s * %(y)s;" % locals()
    mul_op.c_code = c_code

    x, y = dbl('x'), dbl('y')
    f = opkit.function([x, y], mul_op(mul_op(x, y), 2))
    assert f(5, 6) == 60.0
    # the constant 2 is data passed at run time: another constant reuses the module
    g = opkit.function([x, y], mul_op(mul_op(x, y), 3))
    assert g(5, 6) == 90.0
    assert type(f._runner) is type(g._runner)
