"""The gradient registry (opkit.core.gradient_registry) and the tensor layers' late-bound names (types/operators.py).

An op's grad/L_op/R_op looks its rule up by class; a rule registers itself when the gradient layer is imported.
The tensor package (opkit/core/tensor/__init__.py) tells both where the later layers are (LATE, GRADIENTS).
"""

import importlib
import subprocess
import sys

import numpy as np
import pytest

import opkit.tensor as T
import opkit.core.tensor as tensor_package
from opkit.core import gradient_registry
from opkit.core.op import Op
from opkit.core.tensor.elementwise.basic import Dot
from opkit.core.tensor.elementwise.elemwise import Elemwise
from opkit.core.tensor.reductions.reduction import Reduce, Sum
from opkit.core.tensor.shapes.alloc import Alloc, DimShuffle
from opkit.core.tensor.shapes.fill import Fill
from opkit.core.tensor.shapes.inc_subtensor import IncSubtensor
from opkit.core.tensor.types import operators
from helpers.modes import FAST_RUN_GRAPH


@pytest.mark.parametrize(("op_class", "kind"), [(Elemwise, "grad"), (Elemwise, "R_op"), (Dot, "grad"),
                                                (Reduce, "grad"), (Reduce, "L_op"), (Alloc, "grad"),
                                                (Fill, "grad"), (DimShuffle, "grad"), (IncSubtensor, "grad")])
def test_each_built_in_rule_is_registered_for_its_op_class(op_class, kind):
    for module in tensor_package.GRADIENTS:
        importlib.import_module(module)
    assert (op_class, kind) in gradient_registry._RULES
    assert getattr(op_class, kind).__name__ == kind


def test_a_subclass_finds_its_base_classes_rule():
    assert gradient_registry.lookup(Sum(None, False), "grad") is gradient_registry._RULES[Reduce, "grad"]


def test_a_class_without_a_rule_is_named_in_the_error():
    class NoRule(Op):
        grad = gradient_registry.registered("grad")

    with pytest.raises(LookupError, match="no grad rule is registered for NoRule"):
        NoRule().grad([], [])


def test_a_rule_of_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match=r"a gradient rule is one of \('grad', 'L_op', 'R_op'\), got 'jvp'"):
        gradient_registry.register(Op, "jvp")


def test_a_registered_rule_is_what_the_op_calls():
    class Twice(Op):
        grad = gradient_registry.registered("grad")

    @gradient_registry.register(Twice, "grad")
    def twice_grad(op, inputs, output_grads):
        return [op, inputs, output_grads]

    op = Twice()
    assert op.grad("x", "g") == [op, "x", "g"]


def test_the_gradient_layer_loads_on_the_first_lookup_in_a_fresh_process():
    # Only the elementwise layer is imported: Elemwise.grad loads the gradient rules itself.
    code = ("import sys\n"
            "from opkit.core.tensor.elementwise.basic import mul\n"
            "from opkit.core.tensor.types.constructors import vector\n"
            "assert 'opkit.core.tensor.gradients.elemwise_grad' not in sys.modules\n"
            "x = vector('x', dtype='float64')\n"
            "y = mul(x, x)\n"
            "(g,) = y.owner.op.grad([x, x], [y])[:1]\n"
            "assert 'opkit.core.tensor.gradients.elemwise_grad' in sys.modules\n"
            "print(type(g).__name__)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "TensorVariable"


def test_every_name_of_the_facade_is_found_in_its_layer():
    for home, names in tensor_package.LATE.items():
        module = importlib.import_module(home)
        for name in names:
            assert operators.find(name) is getattr(module, name)


def test_an_unknown_facade_name_is_named_in_the_error():
    with pytest.raises(AttributeError, match="has no later-layer name 'nothing'"):
        operators.find("nothing")


def test_gradients_through_the_registry_match_numpy():
    import opkit

    x = T.dmatrix("x")
    cost = (T.alloc(x.sum(axis=0), 2, 3) * 2).sum() + x.dimshuffle(1, 0).dot(x).sum() + T.set_subtensor(x[0], 1).sum()
    value = np.arange(6.0).reshape(2, 3) / 7
    # FAST_RUN's graph on the Python linker: the rules are what is checked (their ops' C is tests/tensor's)
    got = opkit.function([x], T.grad(cost, x), mode=FAST_RUN_GRAPH)(value)
    # 4 * sum(x); sum(x.T @ x) = sum over rows of (the row's sum) ** 2; row 0 set to 1, row 1 summed
    expected = 4 + 2 * value.sum(axis=1, keepdims=True).repeat(3, axis=1) + np.array([[0.0] * 3, [1.0] * 3])
    np.testing.assert_allclose(got, expected)


def test_the_gradient_layer_is_the_layer_of_layers():
    assert tensor_package.GRADIENTS == tuple(f"opkit.core.tensor.gradients.{name}"
                                             for name in dict(tensor_package.LAYERS)["gradients"])
