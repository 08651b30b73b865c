"""PyTensor's (and Theano's) Python API where op authors touch it: ops, types, constructors, module paths."""

import pickle
import subprocess
import sys
import pathlib

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.tensor.shapes.specify_shape import SpecifyShape

TESTS = pathlib.Path(__file__).resolve().parent


@opkit.as_op(itypes=[ot.dvector], otypes=[ot.dvector])
def double_it(x):
    """A module-level as_op function: it pickles by reference."""
    return x * 2


class TimesTwo(opkit.Op):
    """An op from itypes/otypes alone: no make_node."""

    itypes = [ot.dvector]
    otypes = [ot.dvector]

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2


class SplitSigns(opkit.Op):
    """Two outputs: the positive and the negative parts."""

    itypes = [ot.dvector]
    otypes = [ot.dvector, ot.dvector]

    def perform(self, node, inputs, output_storage):
        x, = inputs
        output_storage[0][0] = np.maximum(x, 0)
        output_storage[1][0] = np.minimum(x, 0)


# ---- ops ----

@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_itypes_otypes_op_needs_no_make_node(mode):
    x = ot.dvector("x")
    y = TimesTwo()(x)
    assert y.type == ot.dvector and y.owner.inputs == [x]
    np.testing.assert_array_equal(opkit.function([x], y, mode=mode)([1.0, 2.5]), [2.0, 5.0])
    # a more specific type is accepted (dvector is its super type); constants are wrapped
    fixed = ot.vector("fixed", dtype="float64", shape=(2,))
    assert TimesTwo()(fixed).owner.inputs == [fixed]
    np.testing.assert_array_equal(TimesTwo()(np.array([1.0, 3.0])).eval(), [2.0, 6.0])


def test_itypes_otypes_op_reports_wrong_inputs():
    with pytest.raises(TypeError, match=r"input 0 of TimesTwo: expected TensorType\(float64, vector\), got TensorType\(float32"):
        TimesTwo()(ot.fvector("x"))
    with pytest.raises(TypeError, match="TimesTwo takes 1 inputs, got 2"):
        TimesTwo()(ot.dvector(), ot.dvector())


def test_op_without_make_node_or_itypes_says_what_to_define():
    class Bare(opkit.Op):
        pass

    with pytest.raises(NotImplementedError, match="define make_node.*or set the attributes itypes and otypes"):
        Bare()(ot.dvector())


def test_op_call_names_outputs_and_returns_lists():
    x = ot.dvector("x")
    assert TimesTwo()(x, name="twice").name == "twice"
    single = TimesTwo()(x, return_list=True)
    assert isinstance(single, list) and len(single) == 1 and isinstance(single[0].owner.op, TimesTwo)
    pos, neg = SplitSigns()(x, name="part")
    assert (pos.name, neg.name) == ("part_0", "part_1")
    assert isinstance(SplitSigns()(x, return_list=True), list)

    class DefaultSecond(SplitSigns):
        default_output = 1

    out = DefaultSecond()(x, name="neg")
    assert out.name == "neg" and out.index == 1 and out.owner.outputs[0].name is None
    assert DefaultSecond()(x, return_list=True)[0].index == 1


def test_tag_is_an_attribute_object():
    x = ot.dvector("x")
    x.tag.test_value = np.array([1.0, 2.0])
    x.tag.trace = "here"
    assert x.tag.test_value.tolist() == [1.0, 2.0] and x.tag["trace"] == "here"
    assert "test_value" in x.tag and x.tag.get("missing", 3) == 3
    with pytest.raises(AttributeError):
        x.tag.missing
    y = x * 2
    y.owner.tag.note = "apply notes too"
    assert y.owner.tag.note == "apply notes too"
    c = ot.constant(2.0)
    c.tag.label = "two"
    assert c.clone().tag.label == "two"
    # opkit's own cache entries (a leading underscore) neither travel with a pickle nor a clone
    np.testing.assert_array_equal(y.eval({x: [1.0, 2.0]}), [2.0, 4.0])
    assert "_eval_functions" in y.tag
    copy = pickle.loads(pickle.dumps(y))
    assert "_eval_functions" not in copy.tag and copy.owner.inputs[0].tag.trace == "here"


def test_type_is_super_and_convert_variable_follow_pytensor():
    general, fixed = ot.TensorType("float64", (None, 3)), ot.TensorType("float64", (2, 3))
    assert general.is_super(fixed) and general.is_super(general)
    assert not fixed.is_super(general)
    assert not general.is_super(ot.TensorType("float32", (None, 3)))
    assert not general.is_super(ot.TensorType("float64", (None,)))
    assert not general.is_super(ot.TensorType("float64", (None, 4)))
    # more specific: the variable itself
    v = fixed("v")
    assert general.convert_variable(v) is v
    # less specific: a SpecifyShape view of it, of this type, checked when the graph runs
    m = ot.dmatrix("m")
    converted = fixed.convert_variable(m)
    assert isinstance(converted.owner.op, SpecifyShape) and converted.type == fixed
    np.testing.assert_array_equal(converted.eval({m: np.ones((2, 3))}), np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"specify_shape: expected shape \(2, 3\).*axis 0 has length 4, not 2"):
        converted.eval({m: np.ones((4, 3))})
    # incompatible: None
    assert fixed.convert_variable(ot.fmatrix("f")) is None
    assert fixed.convert_variable(ot.TensorType("float64", (5, None))("w")) is None
    assert fixed.convert_variable(ot.dvector("u")) is None
    # the base Type: equality (None when it cannot tell, as PyTensor)
    generic = opkit.Generic()
    assert generic.is_super(opkit.Generic()) is True and generic.is_super(ot.dvector) is None
    assert generic.convert_variable(ot.dvector("d")) is None


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_specify_shape_checks_in_c_and_python(mode):
    m = ot.dmatrix("m")
    f = opkit.function([m], ot.specify_shape(m, (None, 3)) * 2, mode=mode)
    np.testing.assert_array_equal(f(np.ones((4, 3))), np.full((4, 3), 2.0))
    with pytest.raises(ValueError, match="axis 1 has length 2, not 3"):
        f(np.ones((4, 2)))
    assert ot.specify_shape(m, (None, None)) is m
    with pytest.raises(ValueError, match="has 2 dimensions but the shape"):
        ot.specify_shape(m, (3,))


def test_filter_variable_converts_a_less_specific_variable():
    fixed = ot.TensorType("float64", (3,))
    v = ot.dvector("v")
    assert fixed.filter_variable(v).type == fixed
    with pytest.raises(TypeError, match="cannot use a variable of type TensorType"):
        fixed.filter_variable(v, allow_convert=False)


def test_as_op_function_and_graph_pickle_in_this_and_a_fresh_process():
    assert pickle.loads(pickle.dumps(double_it)) is double_it
    x = ot.dvector("x")
    y = double_it(x) + 1
    loaded = pickle.loads(pickle.dumps(y))
    assert loaded.owner.inputs[0].owner.op is double_it
    source = loaded.owner.inputs[0].owner.inputs[0]
    np.testing.assert_array_equal(opkit.function([source], loaded)([1.0, 2.0]), [3.0, 5.0])
    code = ("import pickle, sys, numpy as np, opkit\n"
            f"sys.path.insert(0, {str(TESTS)!r})\n"
            "y = pickle.loads(sys.stdin.buffer.read())\n"
            "x = y.owner.inputs[0].owner.inputs[0]\n"
            "print(y.owner.inputs[0].owner.op.__name__, opkit.function([x], y)(np.array([1.0, 2.0])).tolist())")
    result = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(y), capture_output=True, timeout=300)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().split() == ["double_it", "[3.0,", "5.0]"]


def test_an_as_op_of_an_importable_function_pickles_by_its_parts():
    op = opkit.as_op([ot.dvector], [ot.dvector])(np.negative)
    again = pickle.loads(pickle.dumps(op))
    assert again == op and again is not op
    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(opkit.as_op([ot.dvector], [ot.dvector])(lambda v: v))


# ---- constructors ----

PLURALS = ["scalars", "vectors", "matrices", "tensor3s", "tensor4s"]


@pytest.mark.parametrize("plural", PLURALS)
@pytest.mark.parametrize("prefix, dtype", [("", None), ("d", "float64"), ("f", "float32"), ("i", "int32"),
                                           ("l", "int64")])
def test_plural_constructors(plural, prefix, dtype):
    make = getattr(ot, prefix + plural)
    ndim = PLURALS.index(plural)
    a, b = make("a", "b")
    assert (a.name, b.name) == ("a", "b") and a.ndim == b.ndim == ndim
    assert a.dtype == (dtype or opkit.config.floatX) and a.type is not None
    x, y, z = make("xyz")
    assert [v.name for v in (x, y, z)] == ["x", "y", "z"]
    one = make("w")
    assert isinstance(one, opkit.Variable) and one.name == "w"  # one name: the variable itself, as PyTensor
    unnamed = make(3)
    assert len(unnamed) == 3 and all(v.name is None for v in unnamed)


@pytest.mark.parametrize("name, ndim", [("scalar", 0), ("vector", 1), ("matrix", 2), ("tensor3", 3), ("tensor4", 4)])
def test_shape_on_every_constructor(name, ndim):
    make = getattr(ot, name)
    shape = tuple(range(2, 2 + ndim))
    v = make("v", shape=shape)
    assert v.type.shape == shape and v.name == "v"
    partial = make(shape=(None,) * ndim, dtype="int32")
    assert partial.type.shape == (None,) * ndim and partial.dtype == "int32"
    with pytest.raises(ValueError, match=rf"{name}: shape \(1, 2, 3, 4, 5\) has 5 entries but a {name} has {ndim} "):
        make("v", shape=(1, 2, 3, 4, 5))
    if ndim:
        with pytest.raises(TypeError, match="shape entry 0 is 2.5; entries must be ints or None"):
            make(shape=(2.5,) + (None,) * (ndim - 1))
        with pytest.raises(ValueError, match="shape entry 0 is -1; lengths cannot be negative"):
            make(shape=(-1,) + (None,) * (ndim - 1))
    with pytest.raises(TypeError, match="shape must be a tuple of ints and None"):
        make(shape=3)


def test_vector_with_static_shape_runs_and_checks():
    v = ot.vector("v", shape=(3,))
    f = opkit.function([v], v * 2)
    np.testing.assert_array_equal(f([1.0, 2.0, 3.0]), [2.0, 4.0, 6.0])
    with pytest.raises(TypeError, match="axis 0 must be 3"):
        f([1.0, 2.0])


def test_tensor_validates_its_shape_and_defaults_to_floatx():
    t = ot.tensor(shape=(None, 2))
    assert t.dtype == opkit.config.floatX and t.type.shape == (None, 2)
    assert ot.tensor("int64", [3], name="n").type.shape == (3,)
    with pytest.raises(TypeError, match="shape entry 1 is 'a'"):
        ot.tensor("float64", (None, "a"))


# ---- module paths of Theano ----

def test_theano_compile_ops_path():
    from opkit.compile import ops
    from opkit.compile.ops import register_deep_copy_op_c_code

    assert register_deep_copy_op_c_code is opkit.register_deep_copy_op_c_code
    for name in ("register_view_op_c_code", "register_shape_c_code", "register_shape_i_c_code"):
        assert getattr(ops, name) is getattr(opkit, name)
    from opkit.core import builtin_ops

    for name in ("DeepCopyOp", "ViewOp", "Shape", "Shape_i"):
        assert getattr(ops, name) is getattr(builtin_ops, name)
    assert ops.as_op is opkit.as_op
    from opkit.compile.debugmode import BadViewMap, DebugMode

    assert DebugMode is opkit.DebugMode and BadViewMap is opkit.BadViewMap


def test_theano_unittest_tools_path_is_opkit_testing():
    import opkit.testing
    from opkit.tests import unittest_tools as utt
    from opkit.tests.unittest_tools import InferShapeTester, assert_allclose, verify_grad

    assert InferShapeTester is opkit.testing.InferShapeTester and verify_grad is opkit.testing.verify_grad
    assert assert_allclose is opkit.testing.assert_allclose
    assert utt.RopLop_checker is opkit.testing.RopLopChecker and utt.seed_rng is opkit.testing.seed_rng
    assert sorted(dir(utt)) == sorted(opkit.testing.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        utt.nothing_here


def test_import_opkit_imports_no_compat_module():
    code = "import opkit, sys; print(sorted(m for m in sys.modules if m.startswith(('opkit.compile', 'opkit.tests'))))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert result.stdout.strip() == "[]"
