"""A test file written PyTensor's way: InferShapeTester subclasses with setup_method(self) and super().

Ported from PyTensor by the import rename alone; it must run and pass under pytest
(which passes unittest.TestCase subclasses a method argument) and under plain unittest.
"""

import unittest

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.tests import unittest_tools as utt


class Outer(opkit.Op):
    """outer(x, y) = x[:, None] * y[None, :], with infer_shape."""

    __props__ = ()

    def make_node(self, x, y):
        x, y = ot.as_tensor_variable(x), ot.as_tensor_variable(y)
        return opkit.Apply(self, [x, y], [ot.matrix(dtype=x.dtype)])

    def perform(self, node, inputs, output_storage):
        x, y = inputs
        output_storage[0][0] = np.outer(x, y)

    def infer_shape(self, node, input_shapes):
        return [(input_shapes[0][0], input_shapes[1][0])]


class TestOuter(utt.InferShapeTester):
    def setup_method(self):
        super().setup_method()
        self.op_class = Outer
        self.op = Outer()
        self.x, self.y = ot.dvectors("x", "y")

    def teardown_method(self):
        self.torn_down = True

    def test_infer_shape(self):
        self._compile_and_check([self.x, self.y], [self.op(self.x, self.y)],
                                [self.rng.uniform(size=3), self.rng.uniform(size=5)], self.op_class)

    def test_values(self):
        f = opkit.function([self.x, self.y], self.op(self.x, self.y))
        a, b = self.rng.uniform(size=2), self.rng.uniform(size=4)
        utt.assert_allclose(np.outer(a, b), f(a, b))

    def test_the_base_setup_ran(self):
        assert isinstance(self.rng, np.random.RandomState) and self.mode is not None


class TestOuterSubclass(TestOuter):
    """A subclass of a PyTensor-style class extends its setup_method again."""

    def setup_method(self):
        super().setup_method()
        self.x, self.y = ot.dvector("u"), ot.dvector("v")
        self.extended = True

    def test_extended(self):
        assert self.extended and self.op_class is Outer


class TestTheanoStyle(utt.InferShapeTester):
    def setUp(self):
        super().setUp()
        self.op = Outer()

    def test_infer_shape(self):
        x, y = ot.dvectors("xy")
        self._compile_and_check([x, y], [self.op(x, y)], [np.ones(2), np.ones(3)], Outer)


class TestNoSetup(utt.InferShapeTester):
    def test_infer_shape(self):
        x, y = ot.dvectors(2)
        self._compile_and_check([x, y], [Outer()(x, y)], [np.ones(2), np.ones(3)], Outer)


@pytest.mark.parametrize("case", [TestOuter, TestOuterSubclass, TestTheanoStyle, TestNoSetup])
def test_the_same_classes_pass_under_plain_unittest(case):
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(case).run(result)
    assert result.wasSuccessful(), result.errors + result.failures
    assert result.testsRun >= 1


def test_setup_and_teardown_run_once_per_test_under_pytest_and_unittest():
    calls = []

    class Counting(utt.InferShapeTester):
        def setup_method(self):
            super().setup_method()
            calls.append("setup")

        def teardown_method(self):
            calls.append("teardown")

        def test_nothing(self):
            calls.append("test")

    unittest.defaultTestLoader.loadTestsFromTestCase(Counting).run(unittest.TestResult())
    assert calls == ["setup", "test", "teardown"]
    calls.clear()
    case = Counting("test_nothing")
    case.setup_method(case.test_nothing)  # what pytest does first, with the method
    case.run(unittest.TestResult())       # then unittest's setUp/tearDown inside run()
    case.teardown_method(case.test_nothing)
    assert calls == ["setup", "test", "teardown"]
