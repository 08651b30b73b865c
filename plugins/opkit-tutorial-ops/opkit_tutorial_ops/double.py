"""The double type in C ("Implementing double in C") and its arithmetic ops ("Making arithmetic Ops on double")."""

import opkit


class Double(opkit.Type):
    """A Python float in Python, a C `double` in C."""

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


class BinaryDoubleOp(opkit.Op):
    """A binary arithmetic op on doubles, from a Python function and a line of C."""

    __props__ = ("name", "fn", "ccode")

    def __init__(self, name, fn, ccode):
        self.name = name
        self.fn = fn
        self.ccode = ccode

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
