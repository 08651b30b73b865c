"""Every error a user of params, scalar, enum and CData types can reach says what went wrong."""

import numpy as np
import pytest

import opkit
import opkit.scalar as os_
from opkit import Apply, CDataType, EnumList, EnumType, Op, Params, ParamsType
from opkit.core.type import MethodNotDefined

PT = ParamsType(alpha=os_.float64, mode=EnumList("ADD", "MUL"))


def test_params_need_exactly_the_fields():
    with pytest.raises(TypeError, match=r"missing fields \['mode'\], unknown fields \['beta'\]"):
        Params(PT, alpha=1.0, beta=2)
    with pytest.raises(TypeError, match="has no field 'mode'"):
        PT.filter({"alpha": 1.0})
    with pytest.raises(TypeError, match="expected Params of ParamsType<alpha:Scalar\\(float64\\), mode:EnumList"):
        PT.filter({"alpha": 1.0, "mode": 0}, strict=True)
    params = PT.filter({"alpha": 1.0, "mode": 0})
    with pytest.raises(AttributeError, match="Params are immutable"):
        params.alpha = 2.0
    assert PT.filter(params, strict=True) is params and params["alpha"] == 1.0
    with pytest.raises(AttributeError, match="no field type defining a constant 'DIV'"):
        PT.DIV


def test_get_params_needs_a_params_type_or_an_override():
    class NoParams(Op):
        pass

    with pytest.raises(MethodNotDefined, match="NoParams has no params_type"):
        NoParams().get_params(None)

    class ScalarParams(Op):
        params_type = os_.float64

    with pytest.raises(MethodNotDefined, match="is not a ParamsType; define get_params"):
        ScalarParams().get_params(None)


class ScalarParam(Op):
    """A params_type that is not a ParamsType: sub["params"] names a plain npy_float64."""

    __props__ = ("factor",)
    params_type = os_.float64

    def __init__(self, factor):
        self.factor = factor

    def get_params(self, node):
        return self.factor

    def make_node(self, x):
        return Apply(self, [os_.as_scalar(x)], [os_.float64()])

    def perform(self, node, inputs, output_storage, params):
        output_storage[0][0] = np.float64(inputs[0] * params)

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]} * {sub['params']};"

    def c_code_cache_version(self):
        return (1,)


@pytest.mark.parametrize("linker", ["py", "c"])
def test_any_c_type_serves_as_params_type(linker):
    x = os_.float64("x")
    for factor in (2.0, -3):
        f = opkit.function([x], ScalarParam(factor)(x), mode=opkit.Mode(linker=linker, optimizer=None))
        assert f(1.5) == 1.5 * factor


def test_scalar_and_enum_type_arguments_are_checked():
    with pytest.raises(TypeError, match="has an imaginary part a float64 scalar cannot hold"):
        os_.float64.filter(1 + 2j)
    with pytest.raises(TypeError, match="needs at least one constant"):
        EnumType()
    with pytest.raises(TypeError, match="ctype must name a C integer type"):
        EnumType(ctype="", A=1)
    with pytest.raises(TypeError, match="expected constant names or \\(name, alias\\) pairs, got 3"):
        EnumList("A", 3)
    with pytest.raises(TypeError, match="expected a Python int for EnumList\\(A, B\\), got int64"):
        EnumList("A", "B").filter(np.int64(1), strict=True)


STATE = CDataType("void*")


class ReadPointer(Op):
    __props__ = ()

    def make_node(self, p):
        return Apply(self, [p], [os_.int64()])

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]} != NULL;"

    def c_code_cache_version(self):
        return (1,)


def test_a_cdata_input_that_is_not_a_capsule_is_refused():
    p = STATE("p")
    f = opkit.function([p], ReadPointer()(p), mode=opkit.Mode(linker="c", optimizer=None))
    with pytest.raises(TypeError, match="bad argument 'p'.*expected a capsule made by C code"):
        f(3)
    f.trust_input = True
    with pytest.raises(ValueError, match="PyCapsule_GetPointer called with invalid PyCapsule object"):
        f(3)


def test_params_with_unhashable_generic_values_hash_by_value():
    pt = ParamsType(tag=opkit.Generic(), alpha=os_.float64)
    a, b = pt.filter({"tag": [1, 2], "alpha": 1}), pt.filter({"tag": [1, 2], "alpha": 1.0})
    assert a == b and hash(a) == hash(b)
    c, d = pt.filter({"tag": np.arange(3), "alpha": 1}), pt.filter({"tag": np.arange(3), "alpha": 1})
    assert c == d and hash(c) == hash(d) and c != pt.filter({"tag": np.arange(4), "alpha": 1})


def test_params_and_types_pickle_and_copy():
    import copy
    import pickle

    import opkit.tensor as ot
    from opkit import CEnumType

    pt = ParamsType(alpha=os_.float64, mode=EnumList("ADD", "MUL"), w=ot.dvector, g=opkit.Generic())
    params = pt.filter(dict(alpha=1, mode="MUL", w=[1.0], g=[1]))
    for obj in (pt, params, os_.int8, CDataType("void*", "free"), CEnumType("A", "B"), EnumType(X=3)):
        for clone in (pickle.loads(pickle.dumps(obj)), copy.deepcopy(obj), copy.copy(obj)):
            assert clone == obj and hash(clone) == hash(obj)
    assert pickle.loads(pickle.dumps(pt)).struct_name() == pt.struct_name()


def test_params_in_an_op_without_params_type_says_what_to_add(tmp_path):
    from opkit import COp, CompileError

    c_file = tmp_path / "no_params.c"
    c_file.write_text("#section code\nOUTPUT_0 = INPUT_0 * PARAMS->alpha;\n")

    class NoParamsType(COp):
        __props__ = ()

        def __init__(self):
            super().__init__(str(c_file))

        def make_node(self, x):
            return Apply(self, [os_.as_scalar(x)], [os_.float64()])

    x = os_.float64("x")
    with pytest.raises(CompileError, match=r"(?s)no_params.c:2:.*.PARAMS. was not declared.*"
                                           r"hint: PARAMS and PARAMS_TYPE are defined only for an op with a params_type"):
        opkit.function([x], NoParamsType()(x), mode=opkit.Mode(linker="c", optimizer=None))
