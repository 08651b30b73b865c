"""Gaps the ported Theano/PyTensor corpus found (issue 34), each tested as a class, not only its example."""

import re

import numpy as np
import pytest

import opkit
from opkit import CEnumType, EnumList, EnumType
from opkit.core.enum_type import EnumNameError

# ---- enum constant names: Theano's and PyTensor's rule ^[A-Z][A-Z0-9_]*$ --------------------------------

BAD_NAMES = ["a", "_A", "0", "A-B", "aB", "Ab", "A b", "", "É", "A\n", "_", "9A"]
GOOD_NAMES = ["A", "A0", "A_", "MODE_ADD", "Z9_Z", "X__"]


@pytest.mark.parametrize("name", BAD_NAMES)
@pytest.mark.parametrize("make", [lambda n: EnumList(n), lambda n: EnumType(**{n: 0}),
                                  lambda n: CEnumType(n), lambda n: EnumList((n, "alias"))],
                         ids=["EnumList", "EnumType", "CEnumType", "EnumList-alias"])
def test_enum_names_outside_theanos_rule_raise_attributeerror_naming_the_name(make, name):
    for error in (AttributeError, TypeError, EnumNameError):  # Theano/PyTensor: AttributeError; opkit: TypeError
        with pytest.raises(error, match=rf"constant name {re.escape(repr(name))} must be a C identifier of upper-case letters, "
                                        r"digits and underscores, starting with a letter"):
            make(name)


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_enum_names_in_theanos_rule_are_kept(name):
    assert EnumList(name).constants == {name: 0} and getattr(EnumType(**{name: 7}), name) == 7


def test_aliases_are_free_python_names():
    enum = EnumList(("MODE_ADD", "add"), ("MODE_MUL", "_mul"))
    assert enum.filter("add") == 0 and enum.filter("_mul") == 1


def test_enumtype_values_as_theano_bools_and_integral_floats_and_alias_pairs():
    e1 = EnumType(C1=True, C2=12, C3=True, C4=-1, C5=False, C6=0.0)
    e2 = EnumType(C1=1, C2=12, C3=1, C4=-1.0, C5=0.0, C6=np.int8(0))
    assert e1 == e2 and hash(e1) == hash(e2) and e1.constants == {"C1": 1, "C2": 12, "C3": 1, "C4": -1, "C5": 0,
                                                                 "C6": 0}
    assert all(type(v) is int for v in e1.constants.values())
    e3 = EnumType(A=("alpha", 0), B=("beta", 1), C=2)
    assert e3 == EnumType(A=("alpha", 0), B=("beta", 1), C=2) != EnumType(A=("a", 0), B=("beta", 1), C=2)
    assert e3.filter("beta") == e3.fromalias("beta") == e3.B == 1 and e3.get_aliases() == ("alpha", "beta")


@pytest.mark.parametrize("value, message", [
    (1.5, "constant B must be an integer, got 1.5"),
    (float("nan"), "constant B must be an integer, got nan"),
    (float("inf"), "constant B must be an integer, got inf"),
    ("1", "constant B must be an integer, got '1'"),
    (("b", "1"), "constant B must be an integer, got '1'"),
    (("b", 1, 2), r"constant B: expected a value or an \(alias, value\) pair, got \('b', 1, 2\)"),
    ((1, 2), r"constant B: expected a value or an \(alias, value\) pair, got \(1, 2\)"),
    (("B", 1), "alias 'B' of constant B is the constant itself"),
])
def test_enumtype_refuses_values_with_the_reason(value, message):
    with pytest.raises(TypeError, match=message):
        EnumType(A=0, B=value)


def test_enumtype_refuses_an_alias_twice_or_an_alias_that_is_a_constant():
    with pytest.raises(TypeError, match="alias 'x' of constant B is given twice"):
        EnumType(A=("x", 0), B=("x", 1))
    with pytest.raises(TypeError, match="alias 'B' is also a constant name"):
        EnumList(("A", "B"), "B")


def test_enum_with_renamed_constants_compiles_and_runs():
    import opkit.scalar as ps

    class Pick(opkit.Op):
        __props__ = ("which",)
        params_type = EnumType(FIRST=("first", 3.0), SECOND=True)

        def __init__(self, which):
            self.which = which

        def get_params(self, node):
            return self.params_type.fromalias(self.which)

        def make_node(self):
            return opkit.Apply(self, [], [ps.int32()])

        def perform(self, node, inputs, outputs, params):
            outputs[0][0] = np.int32(params * 10 + (params == self.params_type.SECOND))

        def c_code(self, node, name, inputs, outputs, sub):
            return f"{outputs[0]} = {sub['params']} * 10 + ({sub['params']} == SECOND);"

        def c_code_cache_version(self):
            return (1,)

    f = opkit.function([], [Pick("first")(), Pick("SECOND")()], mode="FAST_RUN")
    assert [int(v) for v in f()] == [30, 11]


# ---- config.cmodule__debug (PyTensor) / cmodule.debug (Theano): the C macro DEBUG in every module --------

class DebugProbe(opkit.Op):
    """Returns 1 from C when the module was compiled with DEBUG defined, else 0 (perform: -1, never run here)."""

    __props__ = ()

    def make_node(self):
        import opkit.scalar as ps

        return opkit.Apply(self, [], [ps.int32()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = np.int32(-1)

    def c_code(self, node, name, inputs, outputs, sub):
        return f"#ifdef DEBUG\n{outputs[0]} = 1;\n#else\n{outputs[0]} = 0;\n#endif\n"

    def c_code_cache_version(self):
        return (1,)


def test_cmodule_debug_flag_defaults_off_and_reads_in_both_spellings():
    from opkit.config import Config

    assert opkit.config.cmodule__debug is False and opkit.config.cmodule.debug is False
    with opkit.config.change_flags(**{"cmodule.debug": True}):
        assert opkit.config.cmodule__debug is True and opkit.config.cmodule.debug is True
    assert opkit.config.cmodule__debug is False
    with opkit.config.change_flags(cmodule__debug="yes"):
        assert opkit.config.cmodule.debug is True
    assert Config(environ={"OPKIT_FLAGS": "cmodule.debug=1"}).cmodule__debug is True
    assert Config(environ={"OPKIT_FLAGS": "cmodule__debug=off"}).cmodule.debug is False
    assert "cmodule" in dir(opkit.config) and "debug" in dir(opkit.config.cmodule)


def test_cmodule_debug_flag_refuses_what_is_not_a_boolean_naming_it():
    with pytest.raises(ValueError, match=r"opkit flag cmodule__debug='maybe' must be true or false"):
        with opkit.config.change_flags(**{"cmodule.debug": "maybe"}):
            pass
    assert opkit.config.cmodule__debug is False
    with pytest.raises(AttributeError, match=r"unknown opkit flag 'cmodule\.debugg'"):
        with opkit.config.change_flags(**{"cmodule.debugg": True}):
            pass


def test_cmodule_debug_defines_debug_in_compiled_c_and_is_part_of_the_key():
    from opkit.cop.build import build_flags
    from opkit.cop.compile import toolchain_parts

    off_flags, off_parts = build_flags()[0], toolchain_parts()
    assert "-DDEBUG=" not in off_flags
    with opkit.config.change_flags(cmodule__debug=True):
        assert "-DDEBUG=" in build_flags()[0] and toolchain_parts() != off_parts
        on = opkit.function([], DebugProbe()(), mode="FAST_RUN")
        assert int(on()) == 1
    off = opkit.function([], DebugProbe()(), mode="FAST_RUN")  # another module, not the one built above
    assert int(off()) == 0 and int(on()) == 1


def test_cmodule_debug_reaches_a_module_per_node_too():
    with opkit.config.change_flags(cmodule__debug=True):
        assert int(opkit.function([], DebugProbe()(), mode=opkit.Mode(linker="cop"))()) == 1
    assert int(opkit.function([], DebugProbe()(), mode=opkit.Mode(linker="cop"))()) == 0


def test_enum_values_of_numpy_scalars():
    assert EnumType(A=np.bool_(True), B=np.int64(5), C=np.float32(-2.0)).constants == {"A": 1, "B": 5, "C": -2}
    with pytest.raises(TypeError, match="constant C must be an integer, got"):
        EnumType(C=np.float64(0.25))
