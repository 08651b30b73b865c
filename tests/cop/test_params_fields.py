"""Params in every place SPEC 12 names, and params fields of tensor, enum and Generic types."""

import pathlib

import numpy as np
import pytest

import opkit
import opkit.scalar as os_
import opkit.tensor as ot
from opkit import Apply, CEnumType, COp, EnumList, EnumType, Generic, Op, ParamsType
from helpers.caches import seeded

DATA = pathlib.Path(__file__).parents[1] / "data" / "params"
C_LINKER = opkit.Mode(linker="c", optimizer=None)
ALPHA_MODE = ParamsType(alpha=os_.float64, mode=EnumList("ADD", "MUL"))


def _expected(alpha, mode, x):
    return x * alpha + (100 if mode in (1, "MUL") else 10) + 2 * alpha


class StructSections(COp):
    """PARAMS in support_code_struct, init_code_struct, cleanup_code_struct, code and code_cleanup."""

    __props__ = ("alpha", "mode")
    params_type = ALPHA_MODE

    def __init__(self, alpha, mode):
        self.alpha, self.mode = alpha, mode
        super().__init__(str(DATA / "struct_params.c"))

    def make_node(self, x):
        return Apply(self, [os_.as_scalar(x)], [os_.float64()])


class StructMethods(Op):
    """sub["params"] in c_support_code_struct, c_init_code_struct, c_cleanup_code_struct, c_code, c_code_cleanup."""

    __props__ = ("alpha", "mode")
    params_type = ALPHA_MODE

    def __init__(self, alpha, mode):
        self.alpha, self.mode = alpha, mode

    def make_node(self, x):
        return Apply(self, [os_.as_scalar(x)], [os_.float64()])

    def c_support_code_struct(self, node, name, sub):
        return f"double offset_{name};\ndouble twice_{name}() {{ return 2 * {sub['params']}->alpha; }}"

    def c_init_code_struct(self, node, name, sub):
        return f"offset_{name} = {sub['params']}->mode == MUL ? 100 : 10;"

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]} * {sub['params']}->alpha + offset_{name} + twice_{name}();"

    def c_code_cleanup(self, node, name, inputs, outputs, sub):
        return f"(void){sub['params']}->alpha;"

    def c_cleanup_code_struct(self, node, name, sub):
        return f"offset_{name} = {sub['params']}->alpha;"

    def c_code_cache_version(self):
        return (1,)


@pytest.mark.parametrize("op_class", [StructSections, StructMethods])
def test_params_reach_struct_code_init_and_cleanup(op_class):
    x = os_.float64("x")
    for alpha, mode in ((1.5, "ADD"), (-2.0, "MUL")):
        f = opkit.function([x], op_class(alpha, mode)(x), mode=C_LINKER)
        assert f(3.0) == _expected(alpha, mode, 3.0)


ROUNDING = CEnumType("OPKIT_ROUND_DOWN", "OPKIT_ROUND_UP")
FIELDS = ParamsType(weights=ot.dvector, tag=Generic(), rounding=ROUNDING,
                    power=EnumType(SQUARE=2, CUBE=3))


class Weighted(Op):
    """sum(weights * x) ** power, rounded down or up; tag (a Python object) is returned's sign check."""

    __props__ = ("weights", "tag", "rounding", "power")
    params_type = FIELDS

    def __init__(self, weights, tag, rounding, power):
        self.weights, self.tag, self.rounding, self.power = weights, tag, rounding, power

    def __eq__(self, other):
        return type(self) is type(other) and self.get_params(None) == other.get_params(None)

    def __hash__(self):
        return hash(self.get_params(None))

    def make_node(self, x):
        return Apply(self, [ot.as_tensor_variable(x)], [os_.float64(), os_.int64()])

    def c_support_code(self):
        return "#define OPKIT_ROUND_DOWN 7\n#define OPKIT_ROUND_UP 9\n#include <cmath>\n"

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (z, tag_length), p = inputs, outputs, sub["params"]
        return f"""
        if (PyArray_DIM({x}, 0) != PyArray_DIM({p}->weights, 0)) {{
            PyErr_SetString(PyExc_ValueError, "weights and x differ in length");
            {sub['fail']}
        }}
        double total = 0;
        for (npy_intp i = 0; i < PyArray_DIM({x}, 0); ++i)
            total += ((double*)PyArray_DATA({x}))[i] * ((double*)PyArray_DATA({p}->weights))[i];
        total = std::pow(total, {p}->power == CUBE ? 3 : 2);
        {z} = {p}->rounding == OPKIT_ROUND_UP ? std::ceil(total) : std::floor(total);
        {tag_length} = PyObject_Length({p}->tag);
        if ({tag_length} < 0) {sub['fail']}
        """

    def c_code_cache_version(self):
        return (1,)


def test_tensor_generic_and_enum_fields(tmp_path):
    x = ot.dvector("x")
    data = np.array([0.5, 1.25, 2.0])
    with opkit.config.change_flags(compiledir=seeded(tmp_path)):
        for weights, tag, rounding, power in (([1.0, 2.0, 0.5], "abc", 0, "SQUARE"),
                                              ([0.1, 0.1, 0.3], ["x"] * 5, 1, 3),
                                              ([-1.0, 0.0, 1.0], (), "OPKIT_ROUND_UP", "CUBE")):
            op = Weighted(np.array(weights), tag, rounding, power)
            total, length = opkit.function([x], op(x), mode=C_LINKER)(data)
            value = float(np.dot(weights, data)) ** (3 if power in (3, "CUBE") else 2)
            assert total == (np.ceil(value) if rounding in (1, "OPKIT_ROUND_UP") else np.floor(value))
            assert length == len(tag)
        modules = [p for p in tmp_path.rglob("module.cpp") if p.read_text().startswith("// Generated by opkit")]
        assert len(modules) == 1


def test_params_with_arrays_hash_and_compare_by_value():
    a = FIELDS.filter(dict(weights=[1.0, 2.0], tag="t", rounding=0, power=2))
    b = FIELDS.filter(dict(weights=np.array([1.0, 2.0]), tag="t", rounding="OPKIT_ROUND_DOWN", power="SQUARE"))
    c = FIELDS.filter(dict(weights=[1.0, 2.5], tag="t", rounding=0, power=2))
    assert a == b and hash(a) == hash(b) and a != c
    assert FIELDS.SQUARE == 2 and FIELDS.OPKIT_ROUND_UP == 1


def test_enum_types_check_their_constants():
    assert EnumList("ADD", ("MODE_MUL", "mul")).filter("mul") == 1
    assert EnumType(A=3, B=5).filter(5) == 5 and EnumType(A=3).A == 3
    with pytest.raises(TypeError, match="constant B must be an integer, got 1.5"):
        EnumType(A=1, B=1.5)
    with pytest.raises(TypeError, match="constant name 'not-c' must be a C identifier"):
        EnumType(**{"not-c": 1})
    with pytest.raises(TypeError, match="constant 'ADD' given twice"):
        EnumList("ADD", "ADD")
    with pytest.raises(TypeError, match=r"7 is not a value of EnumList\(ADD, MUL\)"):
        EnumList("ADD", "MUL").filter(7)
    with pytest.raises(TypeError, match="'DIV' is neither a constant nor an alias"):
        EnumList("ADD", "MUL").filter("DIV")
    with pytest.raises(AttributeError, match="has no constant 'DIV'"):
        EnumList("ADD", "MUL").DIV


class EnumOut(Op):
    """Return the enum value the C code holds: an EnumType output synced to a Python int."""

    __props__ = ()
    enum = EnumType(LOW=-4, HIGH=40)

    def make_node(self, x):
        return Apply(self, [os_.as_scalar(x)], [self.enum()])

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]} > 0 ? HIGH : LOW;"

    def c_code_cache_version(self):
        return (1,)


def test_an_enum_output_and_conflicting_constants():
    x = os_.float64("x")
    f = opkit.function([x], EnumOut()(x), mode=C_LINKER)
    assert f(1.0) == 40 and f(-1.0) == -4

    class Clash(EnumOut):
        enum = EnumType(LOW=0, HIGH=40)

        def c_support_code(self):
            return EnumOut.enum.c_support_code()

    with pytest.raises(opkit.CompileError, match="enum constant LOW is defined with another value elsewhere"):
        opkit.function([x], Clash()(x), mode=C_LINKER)
