"""The tutorials' ops that tests of other folders run too: VectorTimesScalar ("Extending Theano with a C Op",
ported in tests/docs/test_c_tutorial.py) and DoubleOp ("Extending Theano", tests/docs/test_tutorial_python.py)."""

import numpy

import opkit
import opkit.tensor

gof = opkit


class VectorTimesScalar(gof.Op):
    __props__ = ()

    def make_node(self, x, y):
        if x.type.ndim != 1:
            raise TypeError('x must be a 1-d vector')
        if y.type.ndim != 0:
            raise TypeError('y must be a scalar')
        output_var = x.type()
        return gof.Apply(self, [x, y], [output_var])

    def c_code_cache_version(self):
        return (1, 0)

    def c_code(self, node, name, inp, out, sub):
        x, y = inp
        z, = out
        dtype_x = node.inputs[0].dtype
        dtype_y = node.inputs[1].dtype
        dtype_z = node.outputs[0].dtype
        itemsize_x = numpy.dtype(dtype_x).itemsize
        itemsize_z = numpy.dtype(dtype_z).itemsize
        fail = sub['fail']
        c_code = """
        if (NULL == %(z)s ||
            PyArray_DIMS(%(x)s)[0] != PyArray_DIMS(%(z)s)[0])
        {
            Py_XDECREF(%(z)s);
            %(z)s = (PyArrayObject*)PyArray_EMPTY(1,
                                                PyArray_DIMS(%(x)s),
                                                PyArray_TYPE(%(x)s),
                                                0);
            if (!%(z)s) {
                %(fail)s;
            }
        }
        {
            npy_%(dtype_x)s* x_data_ptr =
                            (npy_%(dtype_x)s*)PyArray_DATA(%(x)s);
            npy_%(dtype_z)s* z_data_ptr =
                            (npy_%(dtype_z)s*)PyArray_DATA(%(z)s);
            npy_%(dtype_y)s y_value =
                            ((npy_%(dtype_y)s*)PyArray_DATA(%(y)s))[0];
            int x_stride = PyArray_STRIDES(%(x)s)[0] / %(itemsize_x)s;
            int z_stride = PyArray_STRIDES(%(z)s)[0] / %(itemsize_z)s;
            int x_dim = PyArray_DIMS(%(x)s)[0];
            for(int i=0; i < x_dim; i++)
            {
                z_data_ptr[i * z_stride] = (x_data_ptr[i * x_stride] *
                                            y_value);
            }
        }
        """
        return c_code % locals()


class DoubleOp(opkit.Op):
    __props__ = ()

    def make_node(self, x):
        # check that the theano version has support for __props__
        assert hasattr(self, '_props')
        x = opkit.tensor.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        z = output_storage[0]
        z[0] = x * 2

    def infer_shape(self, node, i0_shapes):
        return i0_shapes

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2]

    def R_op(self, inputs, eval_points):
        # R_op can receive None as eval_points.
        # That mean there is no diferientiable path through that input
        # If this imply that you cannot compute some outputs,
        # return None for those.
        if eval_points[0] is None:
            return eval_points
        return self.grad(inputs, eval_points)



def shaped_vector_times_vector():
    """The tutorial's VectorTimesVector with infer_shape, and a grad that applies the op again: the op the
    benchmarks' bridge figures run (benchmarks/example_ops.py)."""
    import pathlib
    import sys

    benchmarks = str(pathlib.Path(__file__).resolve().parents[2] / "benchmarks")
    sys.path.insert(0, benchmarks)
    try:
        from example_ops import shaped_vector_times_vector as make
    finally:
        sys.path.remove(benchmarks)
    return make()
