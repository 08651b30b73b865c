"""The Python examples of the tutorials in shared/reference, ported by changing imports only.

`from theano import gof` / `import theano` became `import opkit`, and
`theano.tensor` became `opkit.tensor`; every other line is the tutorial's.
"""

import subprocess
import sys

import numpy
import pytest

import opkit
import opkit.tensor


# -- "Making the double Type": a bare Type with instance-assigned methods ----------------------

def _make_double():
    def filter(x, strict=False, allow_downcast=None):
        if strict:
            if isinstance(x, float):
                return x
            else:
                raise TypeError('Expected a float!')
        elif allow_downcast:
            return float(x)
        else:   # Covers both the False and None cases.
            x_float = float(x)
            if x_float == x:
                return x_float
            else:
                raise TypeError('The double type cannot accurately represent '
                                'value %s (of type %s): you must explicitly '
                                'allow downcasting if you want to do this.'
                                % (x, type(x)))

    double = opkit.Type()
    double.filter = filter

    def values_eq_approx(x, y, tolerance=1e-4):
        return abs(x - y) / (abs(x) + abs(y)) < tolerance

    double.values_eq_approx = values_eq_approx
    return double


@pytest.fixture
def double():
    return _make_double()


def test_bare_type_uses_instance_assigned_filter(double):
    assert double.filter(3) == 3.0 and isinstance(double.filter(3), float)
    assert double.filter(2.5, strict=True) == 2.5
    with pytest.raises(TypeError, match="Expected a float!"):
        double.filter(3, strict=True)
    with pytest.raises(TypeError, match="cannot accurately represent value 9007199254740993"):
        double.filter(2**53 + 1)
    assert double.filter(1.7, allow_downcast=True) == 1.7
    assert double.is_valid_value(1.0) and not double.is_valid_value(1)
    assert double.values_eq_approx(1.0, 1.00001)
    assert not double.values_eq_approx(1.0, 1.1)


def test_bare_type_makes_variables_and_constants(double):
    x = double('x')
    assert isinstance(x, opkit.Variable)
    assert x.type is double and x.name == 'x' and x.owner is None
    c = opkit.Constant(double, 3)
    assert c.data == 3.0 and isinstance(c.data, float)


# -- "Making arithmetic Ops on double": a bare Op with instance-assigned methods ---------------

def _make_mul(double):
    mul = opkit.Op()

    def make_node(x, y):
        if x.type != double or y.type != double:
            raise TypeError('mul only works on doubles')
        return opkit.Apply(mul, [x, y], [double()])
    mul.make_node = make_node

    def perform(node, inputs, output_storage):
        x, y = inputs[0], inputs[1]
        z = output_storage[0]
        z[0] = x * y
    mul.perform = perform
    return mul


def test_mul_op_on_doubles(double):
    mul = _make_mul(double)
    x, y = double('x'), double('y')
    z = mul(x, y)
    f = opkit.function([x, y], z)
    assert f(5, 6) == 30.0
    assert isinstance(f(5, 6), float)
    assert f(5.6, 6.7) == 5.6 * 6.7
    assert f.maker.fgraph.toposort()[0].op is mul


def test_mul_op_rejects_other_types(double):
    mul = _make_mul(double)
    other = opkit.Type()
    with pytest.raises(TypeError, match="mul only works on doubles"):
        mul(double('x'), other('y'))


def test_mul_without_constant_wrapping_fails_on_a_python_number(double):
    mul = _make_mul(double)
    x = double('x')
    with pytest.raises(AttributeError, match="'int' object has no attribute 'type'"):
        mul(x, 2)


def test_automatic_constant_wrapping(double):
    mul = _make_mul(double)

    def make_node(x, y):
        if isinstance(x, (int, float)):
            x = opkit.Constant(double, x)
        if isinstance(y, (int, float)):
            y = opkit.Constant(double, y)
        if x.type != double or y.type != double:
            raise TypeError('mul only works on doubles')
        return opkit.Apply(mul, [x, y], [double()])
    mul.make_node = make_node

    x = double('x')
    z = mul(x, 2)
    f = opkit.function([x], z)
    assert f(10) == 20.0
    assert numpy.allclose(f(3.4), 6.8)
    with pytest.raises(TypeError, match=r"'x' \(position 0\).*cannot accurately represent value 9007199254740993"):
        f(2**53 + 1)


# -- "Final version": BinaryDoubleOp with __props__ -------------------------------------------

def _make_binary_ops(double):
    class BinaryDoubleOp(opkit.Op):

        __props__ = ("name", "fn")

        def __init__(self, name, fn):
            self.name = name
            self.fn = fn

        def make_node(self, x, y):
            if isinstance(x, (int, float)):
                x = opkit.Constant(double, x)
            if isinstance(y, (int, float)):
                y = opkit.Constant(double, y)
            if x.type != double or y.type != double:
                raise TypeError('%s only works on doubles' % self.name)
            return opkit.Apply(self, [x, y], [double()])

        def perform(self, node, inp, out):
            x, y = inp
            z, = out
            z[0] = self.fn(x, y)

        def __str__(self):
            return self.name

    add = BinaryDoubleOp(name='add',
                         fn=lambda x, y: x + y)

    sub = BinaryDoubleOp(name='sub',
                         fn=lambda x, y: x - y)

    mul = BinaryDoubleOp(name='mul',
                         fn=lambda x, y: x * y)

    div = BinaryDoubleOp(name='div',
                         fn=lambda x, y: x / y)
    return BinaryDoubleOp, add, sub, mul, div


def test_binary_double_ops_compute(double):
    _, add, sub, mul, div = _make_binary_ops(double)
    x, y = double('x'), double('y')
    f = opkit.function([x, y], [add(x, y), sub(x, y), mul(x, y), div(x, y)])
    assert f(7, 2) == [9.0, 5.0, 14.0, 3.5]
    g = opkit.function([x], div(add(x, 1), 4))
    assert g(3) == 1.0


def test_binary_double_op_equality_and_hash_come_from_props(double):
    BinaryDoubleOp, add, sub, mul, div = _make_binary_ops(double)
    fn = add.fn
    assert BinaryDoubleOp('add', fn) == add
    assert hash(BinaryDoubleOp('add', fn)) == hash(add)
    assert BinaryDoubleOp('add', lambda x, y: x + y) != add  # another fn
    assert BinaryDoubleOp('plus', fn) != add  # another name
    assert len({add, sub, mul, div, BinaryDoubleOp('add', fn)}) == 4
    assert add._props() == ('add', fn)
    assert str(add) == 'add' and str(div) == 'div'


def test_binary_double_op_error_names_the_op(double):
    *_, div = _make_binary_ops(double)
    with pytest.raises(TypeError, match="div only works on doubles"):
        div(double('x'), opkit.Type()('y'))


def test_equal_binary_double_ops_are_merged(double):
    BinaryDoubleOp, add, *_ = _make_binary_ops(double)
    x, y = double('x'), double('y')
    twin = BinaryDoubleOp('add', add.fn)
    f = opkit.function([x, y], add(add(x, y), twin(x, y)))
    assert len(f.maker.fgraph.toposort()) == 2
    assert f(1, 2) == 6.0


def test_props_str_without_a_custom_str():
    class Scale(opkit.Op):
        __props__ = ("factor", "label")

        def __init__(self, factor, label):
            self.factor, self.label = factor, label

    assert str(Scale(2, "twice")) == "Scale{factor=2, label='twice'}"
    assert Scale(2, "a") == Scale(2, "a") and Scale(2, "a") != Scale(3, "a")


# -- "Implementing double in C", final version: the Double class -------------------------------

class Double(opkit.Type):

    def filter(self, x, strict=False, allow_downcast=None):
        if strict and not isinstance(x, float):
            raise TypeError('Expected a float!')
        return float(x)

    def values_eq_approx(self, x, y, tolerance=1e-4):
        return abs(x - y) / (x + y) < tolerance

    def __str__(self):
        return "double"


def test_double_type_class():
    double = Double()
    assert double == Double() and hash(double) == hash(Double())
    assert double != opkit.Type()
    assert str(double) == "double" and str(double('x')) == 'x'
    assert double.filter(4) == 4.0 and isinstance(double.filter(4), float)
    with pytest.raises(TypeError, match="Expected a float!"):
        double.filter(4, strict=True)
    assert double.values_eq_approx(2.0, 2.00001)


def test_double_type_class_with_the_final_ops():
    double = Double()
    _, add, _, mul, _ = _make_binary_ops(double)
    x, y = double('x'), double('y')
    f = opkit.function([x, y], mul(add(x, 1), y))
    assert f(2, 5) == 15.0
    with pytest.raises(TypeError, match=r"'y' \(position 1\).*could not convert string to float"):
        f(2, "five")


# -- "Extending Theano": DoubleOp on a matrix ---------------------------------------------------

from helpers.tutorial_ops import DoubleOp  # noqa: E402 (the tutorial's op, shared with tests/testing/)


def test_double_op_on_a_matrix():
    x = opkit.tensor.matrix()
    f = opkit.function([x], DoubleOp()(x))
    inp = numpy.random.rand(5, 4)
    out = f(inp)
    assert numpy.allclose(inp * 2, out)
    assert out.shape == (5, 4) and out.dtype == inp.dtype


def test_double_op_props_with_no_attributes():
    assert DoubleOp() == DoubleOp() and hash(DoubleOp()) == hash(DoubleOp())
    assert str(DoubleOp()) == "DoubleOp"


def test_double_op_is_gone_from_a_graph_that_needs_only_its_shape():
    x = opkit.tensor.matrix()
    f = opkit.function([x], DoubleOp()(x).shape, mode="FAST_RUN")  # the mode with shape inference
    nodes = f.maker.fgraph.toposort()
    assert nodes and not any(isinstance(node.op, DoubleOp) for node in nodes)
    assert list(f(numpy.zeros((5, 4)))) == [5, 4]


def test_bare_import_reaches_opkit_tensor():
    """`import opkit` alone gives `opkit.tensor`, as `import theano` gave `theano.tensor`."""
    code = "import opkit\nprint(opkit.tensor.matrix().type)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "TensorType(float64, matrix)"


# -- "Extending Theano": the as_op example -----------------------------------------------------

def infer_shape_numpy_dot(node, input_shapes):
    ashp, bshp = input_shapes
    return [ashp[:-1] + bshp[-1:]]


@opkit.as_op(itypes=[opkit.tensor.fmatrix, opkit.tensor.fmatrix],
             otypes=[opkit.tensor.fmatrix], infer_shape=infer_shape_numpy_dot)
def numpy_dot(a, b):
    return numpy.dot(a, b)


def test_as_op_numpy_dot():
    x = opkit.tensor.fmatrix()
    y = opkit.tensor.fmatrix()
    f = opkit.function([x, y], numpy_dot(x, y))
    inp1 = numpy.random.rand(5, 4).astype("float32")
    inp2 = numpy.random.rand(4, 7).astype("float32")
    out = f(inp1, inp2)
    assert out.dtype == numpy.float32
    numpy.testing.assert_allclose(out, numpy.dot(inp1, inp2), rtol=1e-6)


def test_as_op_refuses_the_tutorials_float64_data_for_float32_inputs():
    """The tutorial passes numpy.random.rand (float64) to fmatrix inputs: a lossy cast, refused."""
    x = opkit.tensor.fmatrix('x')
    y = opkit.tensor.fmatrix('y')
    f = opkit.function([x, y], numpy_dot(x, y))
    with pytest.raises(TypeError, match=r"'x' \(position 0\)[\s\S]*dtype float32[\s\S]*dtype float64"):
        f(numpy.random.rand(5, 4), numpy.random.rand(4, 7))


def test_as_op_shape_inference_removes_the_op():
    x = opkit.tensor.fmatrix()
    y = opkit.tensor.fmatrix()
    f = opkit.function([x, y], numpy_dot(x, y).shape, mode="FAST_RUN")
    assert numpy_dot not in [node.op for node in f.maker.fgraph.toposort()]
    out = f(numpy.zeros((5, 4), dtype="float32"), numpy.zeros((4, 7), dtype="float32"))
    assert list(out) == [5, 7]


def test_as_op_as_a_decorator_without_infer_shape_keeps_the_op_for_shapes():
    @opkit.as_op(itypes=[opkit.tensor.dvector], otypes=[opkit.tensor.dvector])
    def reverse(a):
        return a[::-1].copy()

    x = opkit.tensor.dvector()
    f = opkit.function([x], [reverse(x), reverse(x).shape])
    values, shape = f(numpy.arange(3.0))
    numpy.testing.assert_array_equal(values, [2.0, 1.0, 0.0])
    assert list(shape) == [3]
    assert reverse in [node.op for node in f.maker.fgraph.toposort()]
    assert str(reverse) == "reverse"


def test_as_op_checks_its_inputs():
    with pytest.raises(TypeError, match="numpy_dot takes 2 inputs, got 1"):
        numpy_dot(opkit.tensor.fmatrix())
    with pytest.raises(TypeError, match=r"input 1 of numpy_dot: expected TensorType\(float32, matrix\), "
                                        r"got TensorType\(float64, matrix\)"):
        numpy_dot(opkit.tensor.fmatrix(), opkit.tensor.dmatrix())
    with pytest.raises(TypeError, match="as_op types must be Type instances"):
        opkit.as_op(itypes=[opkit.tensor.TensorType], otypes=[opkit.tensor.fmatrix])
