"""FAST_RUN's graph rewrites: merge, constant folding, shape inference, dead-node removal."""

import functools

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.fgraph import FunctionGraph
from opkit.core.rewrites import constant_folding, infer_shapes, merge
from helpers.modes import FAST_RUN_GRAPH


class Twice(opkit.Op):
    """x * 2 computed in Python; `infer_shape` only when asked for."""

    __props__ = ("with_infer_shape",)

    def __init__(self, with_infer_shape=True):
        self.with_infer_shape = with_infer_shape
        if with_infer_shape:
            self.infer_shape = lambda node, shapes: shapes

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2


class NoFolding(Twice):
    """Twice, but always computed at run time."""

    def do_constant_folding(self, node):
        return False


# explicit, so that `pytest --opkit-mode ...` leaves these tests about FAST_RUN's rewrites
# (fusion, tested in test_fusion.py, is left out so each rewrite's own effect stays visible)
fast_run = functools.partial(opkit.function, mode=opkit.Mode(linker="c", optimizer="fast_run").excluding("fusion"))
# the same graph on the Python linker (nothing compiled), for the tests that only read it
fast_run_graph = functools.partial(opkit.function, mode=FAST_RUN_GRAPH.excluding("fusion"))


def ops_of(f):
    return [str(node.op) for node in f.maker.fgraph.toposort()]


def test_equal_nodes_are_merged():
    x, y = ot.dvector("x"), ot.dvector("y")
    f = fast_run([x, y], (x * y) + (x * y))
    assert ops_of(f) == ["mul", "add"]
    add = f.maker.fgraph.toposort()[-1]
    assert add.inputs[0] is add.inputs[1]
    np.testing.assert_array_equal(f([1.0, 2.0], [3.0, 4.0]), [6.0, 16.0])


def test_merging_reaches_through_chains_and_equal_constants():
    x, y = ot.dvector("x"), ot.dvector("y")
    f = fast_run([x, y], ot.exp(x * y + 1.0) - ot.exp(x * y + 1.0))
    assert ops_of(f) == ["mul", "add", "exp", "sub"]
    np.testing.assert_array_equal(f([1.0, 2.0], [3.0, 4.0]), [0.0, 0.0])


def test_ops_that_differ_in_props_or_inputs_are_not_merged():
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    f = fast_run_graph([x, y], [x.sum(axis=0), x.sum(axis=1), x * y, y * x])
    assert sorted(ops_of(f)) == sorted(["Sum{axis=(0,), keepdims=False}", "Sum{axis=(1,), keepdims=False}",
                                        "mul", "mul"])


def test_merge_leaves_outputs_distinct():
    x = ot.dvector("x")
    f = fast_run([x], [x * 2, x * 2])
    first, second = f([1.0])
    assert first is not second
    assert ops_of(f) == ["mul", "DeepCopyOp"]


def test_constant_expressions_are_folded():
    x = ot.dvector("x")
    f = fast_run([x], ot.constant(2.0) * ot.constant(3.0) + x)
    nodes = f.maker.fgraph.toposort()
    assert ops_of(f) == ["add"]
    folded = [v for v in nodes[0].inputs if isinstance(v, opkit.Constant)]
    assert [float(v.data) for v in folded] == [6.0]
    np.testing.assert_array_equal(f([1.0, 2.0]), [7.0, 8.0])


def test_folding_follows_chains_and_keeps_dtypes():
    x = ot.ivector("x")
    two = ot.constant(np.int32(2))
    f = fast_run([x], (two * two + two) * x)
    assert ops_of(f) == ["mul"]
    result = f(np.array([1, 2], dtype="int32"))
    assert result.dtype == np.int32
    np.testing.assert_array_equal(result, [6, 12])


def test_an_op_that_declines_constant_folding_is_kept():
    x = ot.dvector("x")
    f = fast_run([x], NoFolding()(ot.constant([1.0, 2.0])) + x)
    assert "NoFolding{with_infer_shape=True}" in ops_of(f)
    np.testing.assert_array_equal(f([1.0, 1.0]), [3.0, 5.0])
    g = fast_run([x], Twice()(ot.constant([1.0, 2.0])) + x)
    assert ops_of(g) == ["add"]
    np.testing.assert_array_equal(g([1.0, 1.0]), [3.0, 5.0])


def test_a_constant_output_keeps_its_copy():
    f = fast_run([], ot.constant(2.0) * ot.constant(3.0))
    assert ops_of(f) == ["DeepCopyOp"]
    assert f() == 6.0


def test_shape_inference_removes_an_op_whose_shape_is_all_that_is_needed():
    x = ot.dmatrix("x")
    f = fast_run([x], ot.exp(Twice()(x)).shape)
    assert not any(isinstance(n.op, Twice) or str(n.op) == "exp" for n in f.maker.fgraph.toposort())
    np.testing.assert_array_equal(f(np.zeros((4, 2))), [4, 2])


def test_shape_inference_through_sum_dot_and_broadcasting():
    x, y = ot.dmatrix("x"), ot.dvector("y")
    outputs = [ot.dot(x, x).shape, x.sum(axis=0).shape[0], (x * y).shape, x.sum(keepdims=True).shape]
    f = fast_run([x, y], outputs)
    kinds = {type(n.op).__name__ for n in f.maker.fgraph.toposort()}
    assert "Dot" not in kinds and "Sum" not in kinds
    assert not any(str(n.op) == "mul" for n in f.maker.fgraph.toposort())
    dot_shape, columns, product_shape, kept = f(np.ones((3, 3)), np.ones(3))
    np.testing.assert_array_equal(dot_shape, [3, 3])
    assert columns == 3
    np.testing.assert_array_equal(product_shape, [3, 3])
    np.testing.assert_array_equal(kept, [1, 1])


def test_static_lengths_become_constants():
    x = ot.tensor("float64", (3, None), name="x")
    f = fast_run([x], Twice()(x).shape[0])
    assert ops_of(f) == ["DeepCopyOp"]
    assert f(np.zeros((3, 5))) == 3


def test_an_op_without_infer_shape_is_run_for_its_shape():
    x = ot.dmatrix("x")
    f = fast_run([x], Twice(with_infer_shape=False)(x).shape)
    assert "Twice{with_infer_shape=False}" in ops_of(f)
    np.testing.assert_array_equal(f(np.zeros((2, 7))), [2, 7])


def test_dead_nodes_are_removed():
    x = ot.dvector("x")
    used = x * 2
    ot.exp(used) + 1  # built, but no output needs it
    fgraph = FunctionGraph([x], [used])
    assert [str(n.op) for n in fgraph.toposort()] == ["mul"]

    twice = Twice()(x)
    fgraph = FunctionGraph([x], [twice.shape])
    before = {str(n.op) for n in fgraph.toposort()}
    infer_shapes(fgraph)
    after = {str(n.op) for n in fgraph.toposort()}
    assert "Twice{with_infer_shape=True}" in before and "Twice{with_infer_shape=True}" not in after


def test_every_remaining_node_feeds_an_output():
    x, y = ot.dmatrix("x"), ot.dvector("y")
    outputs = [(x * y).shape, ot.constant(1.0) + ot.constant(2.0) * x, (x * y).sum() + (x * y).sum()]
    fgraph = fast_run_graph([x, y], outputs).maker.fgraph
    needed = set(map(id, fgraph.outputs))
    for node in reversed(fgraph.toposort()):
        assert any(id(v) in needed for v in node.outputs), f"{node} feeds nothing"
        needed.update(map(id, node.inputs))


def test_rewrites_run_on_a_function_graph_directly():
    x = ot.dvector("x")
    expression = (ot.constant(1.0) + ot.constant(1.0)) * x + (ot.constant(1.0) + ot.constant(1.0)) * x
    fgraph = FunctionGraph([x], [expression])
    assert len(fgraph.toposort()) == 5
    merge(fgraph)
    assert [str(n.op) for n in fgraph.toposort()] == ["add", "mul", "add"]
    constant_folding(fgraph)
    assert [str(n.op) for n in fgraph.toposort()] == ["mul", "add"]


def test_a_replacement_must_keep_the_type():
    x = ot.dvector("x")
    fgraph = FunctionGraph([x], [x * 2])
    old = fgraph.outputs[0]
    with pytest.raises(TypeError, match=r"replaced mul.out of type TensorType\(float64, vector\) with "
                                        r"y of type TensorType\(float32, vector\)"):
        fgraph.replace(old, ot.fvector("y"), reason="test")
