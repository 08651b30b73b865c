"""The symbolic graph and types: Variable, Apply, Constant, walking, cloning, Type, Generic, TensorType."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.graph import ancestors, clone_graph, graph_inputs, io_toposort


class Pair(opkit.Op):
    """Two outputs of the input's type; the second is the default."""

    __props__ = ()
    default_output = 1

    def make_node(self, x):
        return opkit.Apply(self, [x], [x.type(), x.type()])


@pytest.fixture
def diamond():
    """x -> a = x * 2 -> b = exp(a), c = a + x -> out = b - c."""
    x = ot.dvector("x")
    a = x * 2
    b = ot.exp(a)
    c = a + x
    return x, a, b, c, b - c


def test_variable_fields():
    t = opkit.Generic()
    v = opkit.Variable(t, name="v")
    assert (v.type, v.owner, v.index, v.name) == (t, None, None, "v")
    assert str(v) == "v"
    assert str(opkit.Variable(t)) == "<generic>"
    clone = v.clone()
    assert clone is not v and clone.type == t and clone.name == "v" and clone.owner is None
    assert v.clone(name="w").name == "w"


def test_apply_sets_owner_and_index():
    x = ot.dvector("x")
    node = Pair().make_node(x)
    assert [o.owner for o in node.outputs] == [node, node]
    assert [o.index for o in node.outputs] == [0, 1]
    assert node.nin == 1 and node.nout == 2
    assert node.out is node.outputs[1]
    assert str(node) == "Pair(x)"
    assert str(node.outputs[0]) == "Pair.0"


def test_apply_rejects_non_variables_with_a_hint():
    with pytest.raises(TypeError) as excinfo:
        opkit.Apply(Pair(), [3], [])
    assert str(excinfo.value) == ("input 0 of Pair is 3 (int), not a Variable.\n"
                                  "Hint: wrap Python values with opkit.Constant(type, value) or "
                                  "opkit.tensor.as_tensor_variable(value) in make_node.")
    with pytest.raises(TypeError, match="output 0 of Pair is 'y', not a Variable"):
        opkit.Apply(Pair(), [], ["y"])


def test_an_output_cannot_belong_to_two_nodes():
    x = ot.dvector("x")
    y = x * 2
    with pytest.raises(ValueError, match="output 0 of Pair already belongs to another Apply node"):
        opkit.Apply(Pair(), [x], [y])


def test_apply_out_needs_a_single_output_or_a_default():
    class Two(opkit.Op):
        def make_node(self, x):
            return opkit.Apply(self, [x], [x.type(), x.type()])

    node = Two().make_node(ot.dvector())
    with pytest.raises(AttributeError, match="Two has 2 outputs and no default_output"):
        node.out


def test_constant_filters_its_data():
    c = opkit.Constant(ot.dvector, [1, 2])
    assert isinstance(c.data, np.ndarray) and c.data.dtype == np.float64
    assert c.value is c.data and c.owner is None
    assert str(c) == "[1. 2.]"
    with pytest.raises(TypeError, match="wrong number of dimensions"):
        opkit.Constant(ot.dvector, [[1.0]])
    long = ot.constant(np.arange(100.0))
    assert len(str(long)) == 20 and str(long).endswith("...")


def test_constant_signature_merges_equal_values():
    a, b = ot.constant([1.0, 2.0]), ot.constant([1.0, 2.0])
    assert a.signature() == b.signature()
    assert a.signature() != ot.constant([1.0, 3.0]).signature()
    assert a.signature() != ot.constant(np.array([1.0, 2.0], dtype="float32")).signature()
    clone = a.clone()
    assert clone is not a and clone.data is a.data and clone.signature() == a.signature()


def test_graph_inputs_and_ancestors(diamond):
    x, a, b, c, out = diamond
    inputs = graph_inputs([out])
    assert inputs[0] is x or inputs[1] is x
    assert {str(v) for v in inputs} == {"x", "2.0"}
    seen = list(ancestors([out]))
    assert seen[0] is out and len(seen) == len(set(map(id, seen)))
    assert {id(v) for v in (x, a, b, c)} <= set(map(id, seen))
    assert list(ancestors([out], blockers=[b, c])) == [out, b, c]  # yielded, not walked through


def test_io_toposort_orders_every_node_after_its_inputs(diamond):
    x, a, b, c, out = diamond
    order = io_toposort([x], [out])
    assert len(order) == 4 and order[-1] is out.owner and order[0] is a.owner
    position = {id(node): i for i, node in enumerate(order)}
    for node in order:
        for variable in node.inputs:
            if variable.owner is not None:
                assert position[id(variable.owner)] < position[id(node)]
    # a variable given as an input stops the walk
    assert io_toposort([a], [out]) == [n for n in order if n is not a.owner]


def test_io_toposort_handles_deep_graphs_without_recursion():
    x = ot.dscalar("x")
    y = x
    for _ in range(5000):
        y = y + 1.0
    assert len(io_toposort([x], [y])) == 5000


def test_clone_graph_copies_nodes_and_keeps_the_original(diamond):
    x, a, b, c, out = diamond
    inputs, outputs, memo = clone_graph([x], [out])
    assert inputs[0] is not x and inputs[0].name == "x"
    assert outputs[0] is not out and memo[out] is outputs[0]
    new_nodes = io_toposort(inputs, outputs)
    assert [str(n.op) for n in new_nodes] == [str(n.op) for n in io_toposort([x], [out])]
    assert not set(map(id, new_nodes)) & set(map(id, io_toposort([x], [out])))
    assert out.owner.inputs[0] is b  # the original is untouched
    shared_inputs, _, _ = clone_graph([x], [out], copy_inputs=False)
    assert shared_inputs[0] is x


def test_type_equality_and_instance_methods():
    a, b = opkit.Type(), opkit.Type()
    assert a == b and hash(a) == hash(b)
    a.filter = lambda value, strict=False, allow_downcast=None: float(value)
    assert a != b  # an instance-assigned method makes another type
    assert a.filter(2) == 2.0 and b.filter(2) == 2
    assert a.is_valid_value(1) and not a.is_valid_value("x")
    assert a.values_eq(1, 1) and a.values_eq_approx(1, 1)
    assert isinstance(a("v"), opkit.Variable) and a("v").name == "v"
    assert str(a) == "Type"


def test_filter_variable_wraps_values_and_checks_types():
    wrapped = ot.dvector.filter_variable([1, 2])
    assert isinstance(wrapped, ot.TensorConstant) and wrapped.dtype == "float64"
    with pytest.raises(TypeError, match=r"cannot use a variable of type TensorType\(float32, vector\) "
                                        r"where TensorType\(float64, vector\) is expected"):
        ot.dvector.filter_variable(ot.fvector())


def test_generic_holds_any_object():
    g = opkit.Generic()
    value = {"any": object()}
    assert g.filter(value) is value and g.is_valid_value(value)
    assert g == opkit.Generic() and str(g) == "generic"
    assert "PyObject*" in g.c_declare("V1", {})
    assert isinstance(opkit.Generic(), opkit.CType) and issubclass(opkit.CType, opkit.Type)


def test_ctype_methods_not_defined_say_so():
    from opkit.core.type import MethodNotDefined

    with pytest.raises(MethodNotDefined, match="c_declare"):
        opkit.CType().c_declare("V1", {})
    assert opkit.CType().c_headers() == [] and opkit.CType().c_code_cache_version() == ()


def test_tensor_type_filter():
    t = ot.TensorType("float32", (None, 3))
    good = np.zeros((2, 3), dtype="float32")
    assert t.filter(good) is good
    assert t.filter([[1, 2, 3]]).dtype == np.float32
    with pytest.raises(TypeError, match=r"got shape \(2, 4\) \(axis 1 must be 3\)"):
        t.filter(np.zeros((2, 4), dtype="float32"))
    with pytest.raises(TypeError, match="expected TensorType\\(float32, shape=\\(None, 3\\)\\) "
                                        "\\(ndim 2, dtype float32\\), got ndarray with ndim 2, dtype float64"):
        t.filter(np.zeros((2, 3)), strict=True)
    assert t.filter(np.zeros((2, 3)), allow_downcast=True).dtype == np.float32
    with pytest.raises(TypeError, match="would lose information"):
        t.filter(np.zeros((2, 3)), allow_downcast=False)
    swapped = np.zeros((1, 3), dtype=np.dtype("float32").newbyteorder())
    assert t.filter(swapped).dtype.isnative


def test_tensor_type_equality_and_values():
    assert ot.TensorType("float64", (None,)) == ot.dvector
    assert ot.TensorType("float64", (None,)) != ot.TensorType("float64", (1,))
    assert hash(ot.TensorType("float64", (None, None))) == hash(ot.dmatrix)
    assert str(ot.dmatrix) == "TensorType(float64, matrix)"
    t = ot.fvector
    assert t.values_eq(np.ones(2, "float32"), np.ones(2, "float32"))
    assert t.values_eq_approx(np.ones(2, "float32"), np.ones(2, "float32") + 1e-6)
    assert not t.values_eq_approx(np.ones(2), np.ones(3))
    with pytest.raises(TypeError, match="TensorType needs shape"):
        ot.TensorType("float64")
