"""C ops on one tensor from tests/link/test_debugmode.py that tests of other folders subclass (CopyC)."""

import opkit.tensor as ot
from opkit import Apply, Op


class Unary(Op):
    """An op on one tensor, returning a tensor of the same type; subclasses give perform or C code."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])


class UnaryC(Unary):
    """C code cached by version, so subprocesses find the module in the shared cache."""

    def c_code_cache_version(self):
        return (1,)


class CopyC(UnaryC):
    """C only: returns a copy of x; subclasses add C statements before and after the copy."""

    before = after = ""

    def c_code(self, node, name, inputs, outputs, sub):
        x, = inputs
        z, = outputs
        return f"""
        {self.before.format(x=x, z=z)}
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_NewCopy({x}, NPY_CORDER);
        if (!{z}) {sub['fail']}
        {self.after.format(x=x, z=z)}
        """
