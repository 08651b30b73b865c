"""PyTensor's current op API that the corpus hit: `pullback` (L_op's new name), `do_constant_folding(fgraph, node)`."""

import numpy as np

import opkit
import opkit.tensor as ot
from opkit.core.rewrites import _folds


class Twice(opkit.Op):
    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * 2


class PulledTwice(Twice):
    def pullback(self, inputs, outputs, output_gradients):
        return [output_gradients[0] * 2]


class NeverFolded(Twice):
    seen = []

    def do_constant_folding(self, fgraph, node):
        self.seen.append((fgraph, node))
        return False


class NeverFoldedTheano(Twice):
    def do_constant_folding(self, node):
        return False


def test_pullback_is_the_gradient():
    x = ot.dvector("x")
    g = opkit.grad(PulledTwice()(x).sum(), x)
    np.testing.assert_array_equal(opkit.function([x], g)(np.ones(3)), [2.0, 2.0, 2.0])


def test_do_constant_folding_with_pytensors_signature_is_honoured():
    y = NeverFolded()(ot.constant(np.arange(3.0)))
    f = opkit.function([], y)
    assert any(isinstance(n.op, NeverFolded) for n in f.maker.fgraph.toposort())
    assert NeverFolded.seen and NeverFolded.seen[-1][1].op == NeverFolded()
    np.testing.assert_array_equal(f(), [0.0, 2.0, 4.0])


def test_do_constant_folding_with_theanos_signature_is_honoured():
    f = opkit.function([], NeverFoldedTheano()(ot.constant(np.arange(3.0))))
    assert any(isinstance(n.op, NeverFoldedTheano) for n in f.maker.fgraph.toposort())
    folded = opkit.function([], Twice()(ot.constant(np.arange(3.0))))
    assert not any(isinstance(n.op, Twice) for n in folded.maker.fgraph.toposort())


def test_folds_reads_either_signature():
    node = Twice()(ot.dvector()).owner
    assert _folds(Twice(), None, node) is True
    assert _folds(NeverFoldedTheano(), None, node) is False


def test_enum_list_reads_as_theanos_dict_of_constants():
    enum = opkit.EnumList(("MODE_ADD", "add"), ("MODE_MUL", "mul"), "MODE_NONE")
    assert enum.get_aliases() == ("add", "mul")
    assert enum.has_alias("mul") and not enum.has_alias("MODE_MUL")
    assert "MODE_MUL" in enum and "mul" not in enum
    assert enum["MODE_NONE"] == 2 and len(enum) == 3 and list(enum) == ["MODE_ADD", "MODE_MUL", "MODE_NONE"]


def test_a_vector_of_known_length_unpacks_and_others_refuse():
    import pytest

    c, d = ot.as_tensor_variable((2, 3))
    np.testing.assert_array_equal(opkit.function([], [c, d])(), [2, 3])
    first, second, third = ot.tensor("float64", shape=(3,), name="v")
    assert first.owner is not None
    with pytest.raises(TypeError, match="cannot be iterated"):
        iter(ot.dvector())
    with pytest.raises(TypeError, match="cannot be iterated"):
        iter(ot.dmatrix())


def test_perform_without_a_params_argument_is_called_without_params():
    """PyTensor's perform(node, inputs, outputs) on an op with params_type; Theano's takes params as a 4th."""
    from opkit.scalar import int64

    class Scale(opkit.Op):
        __props__ = ("k",)
        params_type = opkit.ParamsType(k=int64)

        def __init__(self, k):
            self.k = k

        def make_node(self, x):
            x = ot.as_tensor_variable(x)
            return opkit.Apply(self, [x], [x.type()])

    class PyTensorStyle(Scale):
        def perform(self, node, inputs, outputs):
            outputs[0][0] = inputs[0] * self.k

    class TheanoStyle(Scale):
        def perform(self, node, inputs, outputs, params):
            outputs[0][0] = inputs[0] * params.k

    x = ot.dvector("x")
    for op in (PyTensorStyle(3), TheanoStyle(3)):
        f = opkit.function([x], op(x), mode="FAST_COMPILE")
        np.testing.assert_array_equal(f(np.ones(2)), [3.0, 3.0])


def test_debugmode_accepts_a_view_of_an_input_given_twice():
    """Op(x, x) with view_map {0: [0]}: output 0 is input 1 too, and that is no undeclared alias."""

    class First(opkit.Op):
        __props__ = ()
        view_map = {0: [0]}

        def make_node(self, value, other):
            value, other = ot.as_tensor_variable(value), ot.as_tensor_variable(other)
            return opkit.Apply(self, [value, other], [value.type()])

        def perform(self, node, inputs, outputs):
            outputs[0][0] = inputs[0]

    class Undeclared(First):
        view_map = {}

    x = ot.dvector("x")
    f = opkit.function([x], First()(x, x) * 2, mode="DebugMode")
    np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])
    import pytest

    with pytest.raises(opkit.BadViewMap, match="aliases input"):
        opkit.function([x], Undeclared()(x, x) * 2, mode="DebugMode")(np.ones(2))
