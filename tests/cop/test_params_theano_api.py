"""ParamsType's Theano look-ups: enum_from_alias, get_enum, has_type, get_type, get_field, extended, length
(issue 34, item 2), with their error messages, and an op whose __init__ resolves an alias compiled and run."""

import pickle

import numpy as np
import pytest

import opkit
import opkit.scalar as os_
import opkit.tensor as ot
from opkit import Apply, EnumList, EnumType, Op, ParamsType

# Theano's docstring example (theano/gof/params_type.py)
WRAPPER = ParamsType(scalar=os_.int32,
                     letters=EnumType(A=1, B=2, C=3),
                     digits=EnumList(("ZERO", "nothing"), ("ONE", "unit"), ("TWO", "couple")))
NAME = r"ParamsType<digits:EnumList\(ZERO, ONE, TWO\), letters:EnumType\(A, B, C\), scalar:Scalar\(int32\)>"


def test_get_enum_and_attributes_give_constant_values():
    assert (WRAPPER.get_enum("C"), WRAPPER.get_enum("TWO"), WRAPPER.get_enum("ZERO")) == (3, 2, 0)
    assert (WRAPPER.C, WRAPPER.TWO) == (3, 2)


def test_enum_from_alias_takes_aliases_then_constant_names():
    assert WRAPPER.enum_from_alias("nothing") == 0
    assert WRAPPER.enum_from_alias("couple") == 2
    assert WRAPPER.enum_from_alias("C") == 3  # no alias 'C': the constant named C
    assert WRAPPER.enum_from_alias("ONE") == 1
    with pytest.raises(AttributeError):
        WRAPPER.nothing  # noqa: B018 (as Theano: aliases are not attributes)


def test_unknown_enum_names_raise_keyerror_listing_the_known_ones():
    with pytest.raises(KeyError, match=rf"{NAME}: no enum field defines a constant 'nothing'; known constants: "
                                       r"A, B, C, ONE, TWO, ZERO"):
        WRAPPER.get_enum("nothing")
    with pytest.raises(KeyError, match=rf"{NAME}: no enum field defines an alias or a constant 'max'; known "
                                       r"aliases: couple, nothing, unit; known constants: A, B, C, ONE, TWO, ZERO"):
        WRAPPER.enum_from_alias("max")
    with pytest.raises(AttributeError, match=rf"{NAME} has no field type defining a constant 'D'; known constants"):
        WRAPPER.D  # noqa: B018
    plain = ParamsType(a=os_.int32)
    with pytest.raises(KeyError, match=r"no enum field defines an alias or a constant 'x'; this ParamsType has "
                                       r"no enum field"):
        plain.enum_from_alias("x")
    with pytest.raises(KeyError, match=r"no enum field defines a constant 'X'; this ParamsType has no enum field"):
        plain.get_enum("X")


def test_type_and_field_lookups():
    assert WRAPPER.has_type(os_.int32) and WRAPPER.has_type(EnumType(A=1, B=2, C=3))
    assert not WRAPPER.has_type(os_.float64)
    assert WRAPPER.get_type("scalar") == os_.int32 and WRAPPER.field_type("letters") == EnumType(A=1, B=2, C=3)
    assert WRAPPER.get_field(os_.int32) == "scalar"
    two = ParamsType(b=os_.float64, a=os_.float64)
    assert two.get_field(os_.float64) == "a"  # first in sorted order, as Theano
    assert WRAPPER.length == 3 and two.length == 2
    with pytest.raises(ValueError, match=rf"^{NAME} has no field 'q'; its fields are digits, letters, scalar$"):
        WRAPPER.get_type("q")
    with pytest.raises(ValueError, match=rf"^{NAME} has no field of type Scalar\(float32\)$"):
        WRAPPER.get_field(os_.float32)


def test_extended_adds_and_replaces_fields():
    more = WRAPPER.extended(x=os_.float64)
    assert more.fields == ("digits", "letters", "scalar", "x") and more.get_type("x") == os_.float64
    assert more.TWO == 2 and more.enum_from_alias("unit") == 1
    assert WRAPPER.fields == ("digits", "letters", "scalar")  # unchanged
    replaced = WRAPPER.extended(scalar=os_.int64)
    assert replaced.get_type("scalar") == os_.int64 and replaced != WRAPPER
    assert WRAPPER.extended() == WRAPPER
    with pytest.raises(TypeError, match=r"enum constant 'A' is defined by two fields' types"):
        WRAPPER.extended(other=EnumList("A", "Z"))
    with pytest.raises(TypeError, match="must be a C identifier"):
        WRAPPER.extended(**{"2x": os_.int32})


def test_enums_sharing_names_or_aliases_are_refused_as_in_theano():
    with pytest.raises(TypeError, match=r"^ParamsType: the enum constant 'CONSTANT_1' is defined by two fields' "
                                        r"types \(EnumList\(CONSTANT_1, CONSTANT_2\) of field 'enum1' and EnumType\(CONSTANT_1, "
                                        r"CONSTANT_3\) of field 'enum2'\); constant names must be unique"):
        ParamsType(enum1=EnumList("CONSTANT_1", "CONSTANT_2"), enum2=EnumType(CONSTANT_1=0, CONSTANT_3=5))
    with pytest.raises(TypeError, match=r"^ParamsType: the enum alias 'al' is defined by two fields' types"):
        ParamsType(a=EnumList(("A", "al")), b=EnumList(("B", "al")))
    with pytest.raises(TypeError, match=r"^ParamsType: \['B'\] are both enum aliases and constant names"):
        ParamsType(a=EnumList(("A", "B")), b=EnumList("B"))


def test_lookups_survive_pickling():
    back = pickle.loads(pickle.dumps(WRAPPER))
    assert back == WRAPPER and back.enum_from_alias("couple") == 2 and back.get_enum("B") == 2


MODES = EnumList(("MODE_ADD", "add"), ("MODE_MUL", "mul"), ("MODE_MAX", "max"))


class ScaledCombine(Op):
    """As Theano's pool/corr ops: __init__ resolves a user's alias through self.params_type."""

    __props__ = ("mode", "alpha")
    params_type = ParamsType(mode=MODES, alpha=os_.float64)

    def __init__(self, mode="add", alpha=1.0):
        self.mode = self.params_type.enum_from_alias(mode)
        self.alpha = float(alpha)

    def make_node(self, x, y):
        x, y = ot.as_tensor_variable(x), ot.as_tensor_variable(y)
        return Apply(self, [x, y], [x.type()])

    def perform(self, node, inputs, outputs, params):
        x, y = inputs
        combine = {0: np.add, 1: np.multiply, 2: np.maximum}[params.mode]
        outputs[0][0] = (params.alpha * combine(x, y)).astype(x.dtype)

    def c_code(self, node, name, inputs, outputs, sub):
        (x, y), (z,), params, fail = inputs, outputs, sub["params"], sub["fail"]
        ctype = "npy_" + node.inputs[0].dtype
        return f"""
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS({x}), PyArray_TYPE({x}), 0);
        if (!{z}) {fail}
        for (npy_intp i = 0; i < PyArray_DIM({x}, 0); ++i) {{
            {ctype} a = *({ctype}*)PyArray_GETPTR1({x}, i), b = *({ctype}*)PyArray_GETPTR1({y}, i), r;
            switch ({params}->mode) {{
                case MODE_ADD: r = a + b; break;
                case MODE_MUL: r = a * b; break;
                case MODE_MAX: r = a > b ? a : b; break;
                default: PyErr_SetString(PyExc_ValueError, "unknown mode"); {fail}
            }}
            (({ctype}*)PyArray_DATA({z}))[i] = ({ctype})({params}->alpha * r);
        }}
        """

    def c_code_cache_version(self):
        return (1,)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_op_resolving_an_alias_in_init_compiles_and_runs(dtype):
    x, y = ot.vector("x", dtype=dtype), ot.vector("y", dtype=dtype)
    ops = {alias: ScaledCombine(alias, 2.0) for alias in ("add", "mul", "max", "MODE_MUL")}
    assert ops["mul"] == ops["MODE_MUL"] and ops["add"].mode == 0 and ops["max"].mode == 2
    outs = [op(x, y) for op in ops.values()]
    f = opkit.function([x, y], outs)
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=7).astype(dtype), rng.normal(size=7).astype(dtype)[::-1]  # a reversed (strided) input
    got = f(a, b)
    want = [2 * (a + b), 2 * (a * b), 2 * np.maximum(a, b), 2 * (a * b)]
    for g, w in zip(got, want):
        assert g.dtype == dtype
        np.testing.assert_allclose(g, w, rtol=1e-6)
    g_py = opkit.function([x, y], outs, mode="FAST_COMPILE")(a, b)
    for g, w in zip(g_py, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_op_with_an_unknown_alias_fails_at_construction_naming_the_choices():
    with pytest.raises(KeyError, match=r"no enum field defines an alias or a constant 'sum'; known aliases: add, "
                                       r"max, mul; known constants: MODE_ADD, MODE_MAX, MODE_MUL"):
        ScaledCombine("sum")


def test_name_strict_filter_and_values_eq_approx_as_theano():
    import opkit.tensor as ot_

    w = ParamsType(a1=ot_.TensorType("int32", (False, False)), a2=ot_.TensorType("float64", (False,)),
                   a3=opkit.Generic())
    same = ParamsType(a1=ot_.TensorType("int32", (False, False)), a2=ot_.TensorType("float64", (False,)),
                      a3=opkit.Generic())
    assert w.name == same.name and w.name.startswith("opkit_params_")
    assert ParamsType(a1=os_.int32).name != ParamsType(a1=os_.int64).name
    good = opkit.Params(w, a1=np.ones((2, 3), "int32"), a2=np.arange(3.0), a3=2000)
    bad = opkit.Params(w, a1=np.ones((2, 3), "int64"), a2=np.arange(3.0), a3=2000)
    assert w.filter(good, strict=True) is good
    with pytest.raises(TypeError, match=r"^params field 'a1': expected TensorType\(int32, matrix\)"):
        w.filter(bad, strict=True)
    with pytest.raises(TypeError, match=r"^params field 'a1': "):
        w.filter(bad, strict=False, allow_downcast=False)
    assert w.filter(bad, strict=False, allow_downcast=True).a1.dtype == np.int32
    near = opkit.Params(w, a1=np.ones((2, 3), "int32"), a2=np.arange(3.0) * (1 + 1e-12), a3=2000)
    assert w.values_eq_approx(good, near) and not w.values_eq(good, near)
    assert not w.values_eq_approx(good, opkit.Params(w, a1=np.ones((2, 3), "int32"), a2=np.arange(3.0) + 1, a3=2000))


def test_shared_enum_names_raise_an_error_that_is_both_typeerror_and_attributeerror():
    from opkit.core.params_type import ParamsTypeError

    for error in (TypeError, AttributeError, ParamsTypeError):
        with pytest.raises(error, match="the enum constant 'A' is defined by two fields' types"):
            ParamsType(enum1=EnumList("A", "B", "C"), enum2=EnumList("A", "B", "F"))
