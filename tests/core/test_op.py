"""The Op contract: make_node, __call__, __props__, default_output, perform, make_thunk."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot


class Split(opkit.Op):
    """(x - 1, x + 1): two outputs."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type(), x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] - 1
        output_storage[1][0] = inputs[0] + 1


class SplitHigh(Split):
    default_output = 1


class Scale(opkit.Op):
    __props__ = ("factor",)

    def __init__(self, factor):
        self.factor = factor

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * self.factor


def test_a_bare_op_needs_make_node():
    op = opkit.Op()
    assert str(op) == "Op" and repr(op) == "Op"
    with pytest.raises(NotImplementedError, match="Op does not define make_node"):
        op(ot.dvector())
    assert not op.has_perform()


def test_instance_assigned_methods_are_honoured():
    op = opkit.Op()
    op.make_node = lambda x: opkit.Apply(op, [x], [x.type()])
    op.perform = lambda node, inputs, output_storage: output_storage[0].__setitem__(0, inputs[0] + 10)
    assert op.has_perform()
    x = ot.dvector("x")
    np.testing.assert_array_equal(opkit.function([x], op(x))([1.0]), [11.0])


def test_call_returns_one_output_or_a_list():
    x = ot.dvector("x")
    low, high = Split()(x)
    assert (low.index, high.index) == (0, 1) and low.owner is high.owner
    assert isinstance(Scale(2)(x), ot.TensorVariable)
    chosen = SplitHigh()(x)
    assert chosen.index == 1
    f = opkit.function([x], [low, high, chosen])
    results = f([5.0])
    assert [float(r[0]) for r in results] == [4.0, 6.0, 6.0]


def test_make_node_must_return_an_apply():
    op = opkit.Op()
    op.make_node = lambda x: x
    with pytest.raises(TypeError, match=r"Op.make_node returned x, not an opkit.Apply"):
        op(ot.dvector("x"))


def test_props_generate_eq_hash_and_str():
    assert Scale(2) == Scale(2) and hash(Scale(2)) == hash(Scale(2))
    assert Scale(2) != Scale(3)
    assert str(Scale(2)) == "Scale{factor=2}"
    assert Scale(2)._props() == (2,) and Scale(2)._props_dict() == {"factor": 2}
    assert Split() == Split() and str(Split()) == "Split"
    assert Split() != SplitHigh()  # another class, even with the same props


def test_a_subclass_keeps_its_own_eq_and_str():
    class Named(opkit.Op):
        __props__ = ("name",)

        def __init__(self, name):
            self.name = name

        def __str__(self):
            return f"<{self.name}>"

    assert str(Named("a")) == "<a>" and Named("a") == Named("a")


def test_ops_without_props_compare_by_identity():
    class Plain(opkit.Op):
        pass

    a = Plain()
    assert a == a and a != Plain()


@pytest.mark.parametrize("props", [["factor"], ("factor", 2), "factor"])
def test_bad_props_are_rejected_when_the_class_is_made(props):
    with pytest.raises(TypeError, match=r"Bad.__props__ must be a tuple of attribute names, got "):
        type("Bad", (opkit.Op,), {"__props__": props})


def test_defaults_of_the_contract():
    op = Scale(2)
    node = op.make_node(ot.dvector())
    assert op.do_constant_folding(node) is True
    assert op.destroy_map == {} and op.view_map == {}
    assert op.default_output is None and op.check_input is True
    assert op.has_perform()


def test_make_thunk_runs_perform_and_marks_outputs_computed():
    x = ot.dvector("x")
    node = Split().make_node(x)
    storage = {v: [None] for v in node.inputs + node.outputs}
    compute_map = {v: [False] for v in storage}
    storage[x][0] = np.array([1.0, 2.0])
    thunk = node.op.make_thunk(node, storage, compute_map, no_recycling=[])
    thunk()
    np.testing.assert_array_equal(storage[node.outputs[0]][0], [0.0, 1.0])
    np.testing.assert_array_equal(storage[node.outputs[1]][0], [2.0, 3.0])
    assert [compute_map[o][0] for o in node.outputs] == [True, True]


def test_an_op_with_its_own_make_thunk_needs_no_perform():
    class Thunked(opkit.Op):
        __props__ = ()

        def make_node(self, x):
            return opkit.Apply(self, [x], [x.type()])

        def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
            source, target = storage_map[node.inputs[0]], storage_map[node.outputs[0]]

            def thunk():
                target[0] = source[0] * 3
                compute_map[node.outputs[0]][0] = True

            return thunk

    assert Thunked().has_perform()
    x = ot.dvector("x")
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        np.testing.assert_array_equal(opkit.function([x], Thunked()(x), mode=mode)([1.0, 2.0]), [3.0, 6.0])


def test_perform_may_be_given_non_tensor_types():
    generic = opkit.Generic()

    class Keys(opkit.Op):
        __props__ = ()

        def make_node(self, d):
            return opkit.Apply(self, [d], [generic()])

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = sorted(inputs[0])

    d = generic("d")
    f = opkit.function([d], Keys()(d))
    assert f({"b": 1, "a": 2}) == ["a", "b"]


def test_l_op_defaults_to_grad():
    class WithGrad(Scale):
        def grad(self, inputs, output_grads):
            return [output_grads[0] * self.factor]

    x, g = ot.dvector("x"), ot.dvector("g")
    op = WithGrad(3)
    (result,) = op.L_op([x], [op(x)], [g])
    np.testing.assert_array_equal(opkit.function([g], result)([1.0, 2.0]), [3.0, 6.0])


def test_c_methods_have_defaults_a_subclass_can_extend_with_super():
    import numpy as np

    import opkit.tensor as ot

    class Twice(opkit.Op):
        __props__ = ()

        def make_node(self, x):
            return opkit.Apply(self, [x], [x.type()])

        def c_headers(self, c_compiler=None):
            return super().c_headers(c_compiler) + ["<cstring>"]

        def c_support_code(self):
            return super().c_support_code() + "static double twice(double v) { return 2 * v; }"

        def c_code_cache_version(self):
            return (1,) + super().c_code_cache_version()

        def c_code(self, node, name, inputs, outputs, sub):
            x, = inputs
            z, = outputs
            return f"""
            Py_XDECREF({z});
            {z} = (PyArrayObject*)PyArray_NewCopy({x}, NPY_CORDER);
            if (!{z}) {sub['fail']}
            for (npy_intp i = 0; i < PyArray_SIZE({z}); ++i)
                ((double*)PyArray_DATA({z}))[i] = twice(((double*)PyArray_DATA({z}))[i]);
            """

    x = ot.dvector("x")
    f = opkit.function([x], Twice()(x))
    np.testing.assert_array_equal(f(np.arange(3.0)), [0.0, 2.0, 4.0])
    assert opkit.Op().c_code_cache_version() == ()
    with pytest.raises(Exception, match="c_code"):
        opkit.Op().c_code(None, "n", [], [], {})
