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
    from opkit.cop.toolchain.extension import build_flags
    from opkit.cop.toolchain.identity import host_toolchain

    off_flags, off_parts = build_flags()[0], host_toolchain()
    assert "-DDEBUG=" not in off_flags
    with opkit.config.change_flags(cmodule__debug=True):
        assert "-DDEBUG=" in build_flags()[0] and host_toolchain() != off_parts
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


# ---- scalar variables <-> 0-d tensors; scalar operators; tensor .any()/.all() -----------------------------

import itertools  # noqa: E402

import opkit.scalar as ps  # noqa: E402
import opkit.tensor as ot  # noqa: E402

BINARY = ["__add__", "__sub__", "__mul__", "__truediv__", "__floordiv__", "__mod__", "__lt__", "__le__", "__gt__",
          "__ge__"]
BITWISE = ["__and__", "__or__", "__xor__"]
SCALAR_DTYPES = ["bool", "int8", "uint8", "int64", "float16", "float32", "float64", "complex128"]


def _numpy(name, a, b=None):
    import warnings

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(a, name)() if b is None else getattr(a, name)(b)


def _expressions(a, b, names):
    """The expressions opkit builds, and the names numpy refuses on these dtypes (bool - bool): opkit must too."""
    out, used = [], []
    for name in names:
        try:
            _numpy(name, np.zeros((), a.dtype), np.zeros((), b.dtype))
        except TypeError:
            with pytest.raises(TypeError):
                getattr(a, name)(b)
            continue
        out.append(getattr(a, name)(b))
        used.append(name)
    return out, used


@pytest.mark.parametrize("da, db", [("int8", "int8"), ("int8", "uint8"), ("int64", "float32"), ("bool", "bool"),
                                    ("float16", "float64"), ("uint8", "float16"), ("complex128", "float64")])
def test_scalar_operators_give_numpys_values_and_dtypes(da, db):
    a, b = ps.ScalarType(da)("a"), ps.ScalarType(db)("b")
    names = [n for n in BINARY + BITWISE if np.dtype(da).kind in "biu" and np.dtype(db).kind in "biu"
             or n not in BITWISE]
    names = [n for n in names if not (np.dtype(da).kind == "c" or np.dtype(db).kind == "c")
             or n in ("__add__", "__sub__", "__mul__", "__truediv__")]
    out, used = _expressions(a, b, names)
    assert used
    assert all(isinstance(o.type, ps.ScalarType) for o in out)
    f = opkit.function([a, b], out)
    values = {"bool": [True, False], "int8": [-7, 0, 127], "uint8": [0, 5, 255], "int64": [-(2**40), 3],
              "float16": [-1.5, 0.0, np.nan], "float32": [2.5, -0.0], "float64": [np.inf, -3.25, 0.0],
              "complex128": [1 + 2j, 0j]}
    for va, vb in itertools.product(values[da], values[db]):
        na, nb = np.asarray(va, da)[()], np.asarray(vb, db)[()]
        got = f(na, nb)
        for name, value in zip(used, got):
            want = _numpy(name, np.asarray(na), np.asarray(nb))[()]
            assert value.dtype == want.dtype, (name, va, vb, value.dtype, want.dtype)
            np.testing.assert_array_equal(value, want, err_msg=f"{da} {name} {db} at {va!r}, {vb!r}")


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "float32", "float64"])
def test_scalar_unary_operators_and_python_numbers_as_numpy(dtype):
    s = ps.ScalarType(dtype)("s")
    kind = np.dtype(dtype).kind
    exprs = {"neg": -s if kind != "b" else None, "abs": abs(s), "pos": +s if kind != "b" else None, "add1": s + 1, "radd": 2 + s,
             "rsub": 3 - s, "pow2": s ** 2 if kind != "b" else None, "rtruediv": 1 / s, "lt": s < 1, "ge": 1 >= s,
             "invert": ~s if kind in "biu" else None, "and": (s & 1) if kind in "biu" else None}
    exprs = {k: v for k, v in exprs.items() if v is not None}  # bool ** 2: numpy gives int8, opkit's tensor pow
    # int64 (a tensor-layer difference, reported; not the scalar operators')
    f = opkit.function([s], list(exprs.values()))
    for v in {"bool": [True, False], "int8": [-5, 0, 100], "uint16": [0, 7, 65535], "int64": [-3, 9],
              "float32": [-2.5, 0.0, np.nan], "float64": [1e300, -0.0]}[dtype]:
        x = np.asarray(v, dtype)
        want = {"neg": lambda: -x, "abs": lambda: abs(x), "pos": lambda: +x, "add1": lambda: x + 1,
                "radd": lambda: 2 + x, "rsub": lambda: 3 - x, "pow2": lambda: x ** 2, "rtruediv": lambda: 1 / x,
                "lt": lambda: x < 1, "ge": lambda: 1 >= x, "invert": lambda: ~x, "and": lambda: x & 1}
        with np.errstate(all="ignore"):
            for (key, _), value in zip(exprs.items(), f(x[()])):
                expected = np.asarray(want[key]())[()]
                assert value.dtype == expected.dtype, (key, v)
                np.testing.assert_array_equal(value, expected, err_msg=f"{key} of {dtype} {v!r}")


def test_scalar_operators_refuse_what_numpy_refuses():
    with pytest.raises(TypeError):
        ~ps.float64("f")
    with pytest.raises(TypeError):
        ps.float32("f") & ps.int8("i")


def test_a_scalar_with_an_nd_tensor_is_a_broadcast_tensor():
    s, v = ps.int16("s"), ot.dvector("v")
    for expr in (s * v, v * s, s < v):
        assert isinstance(expr.type, ot.TensorType) and expr.ndim == 1
    f = opkit.function([s, v], [s * v, v - s, s < v])
    got = f(np.int16(3), np.array([1.0, 5.0]))
    for value, want in zip(got, [3 * np.array([1.0, 5.0]), np.array([1.0, 5.0]) - 3, np.array([False, True])]):
        np.testing.assert_array_equal(value, want)


# DebugMode checks FAST_RUN's C of the conversions against perform once more: soak
@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", pytest.param("DebugMode", marks=pytest.mark.soak)])
def test_as_scalar_of_a_0d_tensor_round_trips_every_dtype(mode):
    tensors = [ot.tensor(d, shape=()) for d in SCALAR_DTYPES]
    scalars = [ps.as_scalar(t) for t in tensors]
    assert [s.type for s in scalars] == [ps.ScalarType(d) for d in SCALAR_DTYPES]
    back = [ot.as_tensor_variable(s) for s in scalars]
    f = opkit.function(tensors, scalars + back, mode=mode)
    values = [np.asarray(v, d) for v, d in zip([True, -128, 255, -(2**63), 65504, -0.0, np.nan, 3 - 4j],
                                               SCALAR_DTYPES)]
    got = f(*values)
    for value, want in zip(got, values + values):
        assert value.dtype == want.dtype
        np.testing.assert_array_equal(value, want)
    assert all(type(v) is not np.ndarray for v in got[:len(values)]) and all(v.ndim == 0 for v in got[len(values):])


def test_as_scalar_reads_byteswapped_and_unaligned_0d_arrays():
    t = ot.dscalar("t")
    f = opkit.function([t], ps.as_scalar(t) * 2)
    swapped = np.asarray(1.25, dtype=">f8")
    raw = np.zeros(9, np.uint8)
    unaligned = raw[1:].view(np.float64).reshape(())
    unaligned[()] = -3.5
    assert not unaligned.flags.aligned
    assert f(swapped) == 2.5 and f(unaligned) == -7.0


def test_a_kept_result_is_not_overwritten_by_the_next_call():
    s = ps.float64("s")
    f = opkit.function([s], ot.as_tensor_variable(s))
    first = f(1.0)
    second = f(2.0)
    assert first == 1.0 and second == 2.0


def test_as_scalar_refuses_an_nd_tensor_naming_it():
    with pytest.raises(TypeError, match=r"as_scalar: v has type TensorType\(float64, vector\), not a ScalarType "
                                        r"or a 0-d tensor"):
        ps.as_scalar(ot.dvector("v"))
    with pytest.raises(TypeError, match=r"scalar_from_tensor: expected a 0-d tensor, got m"):
        ot.scalar_from_tensor(ot.dmatrix("m"))
    with pytest.raises(TypeError, match="tensor_from_scalar: expected a scalar variable"):
        ot.tensor_from_scalar(ot.dvector("v"))


def test_constants_stay_constants():
    c = ps.as_scalar(ot.constant(np.float32(2.5)))
    assert isinstance(c, opkit.Constant) and c.type == ps.float32 and c.data == np.float32(2.5)
    t = ot.as_tensor_variable(ps.as_scalar(np.int8(-3)))
    assert isinstance(t, opkit.Constant) and t.dtype == "int8" and t.ndim == 0


def test_gradients_pass_through_the_conversions():
    t = ot.dscalar("t")
    y = ot.as_tensor_variable(ps.as_scalar(t) * 3.0) ** 2
    f = opkit.function([t], opkit.grad(y, t))
    assert f(2.0) == 36.0


def test_switch_on_a_scalar_condition_as_convolve1d_infers_its_shape():
    flag, n, k = ps.bool("flag"), ot.lscalar("n"), ot.lscalar("k")
    f = opkit.function([flag, n, k], ot.switch(flag, n + k - 1, ot.maximum(n, k) - ot.minimum(n, k) + 1))
    assert f(True, 7, 3) == 9 and f(False, 7, 3) == 5 and f(False, 3, 7) == 5


# (axis, keepdims) of each reduction: the default run's cases reach every kind of axis (all, one, the last by
# a negative number, several) and both keepdims; soak runs the others
AXES = [(None, False), (1, True), (-1, False), ((0, 2), True)]
SOAK_AXES = [(None, True), (0, False), ((0, 2), False)]


# One function per group of dtypes and axes (their reductions share the Sum and comparison nodes' C): bool and
# float64 by default; int8, uint16, float32 and complex128 run the same loops with another element type (soak)
@pytest.mark.parametrize("dtypes, cases", [
    pytest.param(("bool", "float64"), AXES, id="bool-float64"),
    pytest.param(("bool", "float64"), SOAK_AXES, marks=pytest.mark.soak, id="bool-float64-soak_axes"),
    pytest.param(("int8", "uint16", "float32", "complex128"), AXES + SOAK_AXES, marks=pytest.mark.soak,
                 id="int8-uint16-float32-complex128")])
def test_any_and_all_as_numpy(dtypes, cases):
    xs = [ot.tensor(dtype, shape=(None, None, None)) for dtype in dtypes]
    f = opkit.function(xs, [r for x in xs for axis, keep in cases for r in (x.any(axis=axis, keepdims=keep),
                                                                            x.all(axis=axis, keepdims=keep))])
    for shape in [(2, 3, 4), (0, 3, 2), (2, 0, 1), (1, 1, 1)]:
        values = []
        for dtype in dtypes:
            value = np.random.default_rng(0).integers(0, 3, size=shape).astype(dtype)
            if dtype.startswith("float") and value.size:
                value.flat[0] = np.nan  # NaN is truthy: any, and not a zero for all
            values.append(value)
        for layout in (lambda v: v, lambda v: v[::-1, :, ::-1], np.asfortranarray):
            views = [layout(value) for value in values]
            want = [r for view in views for axis, keep in cases for r in (np.any(view, axis=axis, keepdims=keep),
                                                                          np.all(view, axis=axis, keepdims=keep))]
            got = f(*views)
            assert len(got) == len(want)
            for value, expected in zip(got, want):
                assert value.dtype == np.bool_ and value.shape == np.shape(expected)
                np.testing.assert_array_equal(value, expected)


def test_any_all_refuse_a_bad_axis_naming_it():
    with pytest.raises(Exception, match="axis"):
        ot.dmatrix("m").any(axis=2)


def test_debugmode_sees_a_nan_scalar_input_as_unchanged():
    s = ps.float32("s")
    f = opkit.function([s], ot.as_tensor_variable(s) + 1, mode="DebugMode")
    assert np.isnan(f(np.float32(np.nan)))


# ---- ParamsType: shared enum names name both fields, and are AttributeError as upstream ------------------

@pytest.mark.parametrize("fields, message", [
    (dict(enum1=EnumList("A", "B"), enum2=EnumList("C", "A")),
     r"the enum constant 'A' is defined by two fields' types \(EnumList\(A, B\) of field 'enum1' and "
     r"EnumList\(C, A\) of field 'enum2'\)"),
    (dict(p=EnumList(("A", "al")), q=opkit.scalar.float64, r=EnumType(B=("al", 3))),
     r"the enum alias 'al' is defined by two fields' types \(EnumList\(A\) of field 'p' and EnumType\(B\) of "
     r"field 'r'\)"),
    (dict(p=EnumList(("A", "B")), q=EnumList("B")),
     r"\['B'\] are both enum aliases and constant names \('B': an alias in field 'p', a constant in field 'q'\)"),
])
def test_shared_enum_names_name_both_fields(fields, message):
    for error in (AttributeError, TypeError):
        with pytest.raises(error, match=message):
            opkit.ParamsType(**fields)


def test_params_type_name_and_strict_filter_as_upstream():
    pt = opkit.ParamsType(a=opkit.scalar.int32, m=EnumList("ADD", "MUL"))
    assert pt.name == opkit.ParamsType(a=opkit.scalar.int32, m=EnumList("ADD", "MUL")).name != \
        opkit.ParamsType(a=opkit.scalar.int64, m=EnumList("ADD", "MUL")).name
    good = opkit.Params(pt, a=np.int32(3), m=1)
    assert pt.filter(good, strict=True) is good
    with pytest.raises(TypeError, match=r"^params field 'a': expected a numpy.int32 scalar, got int 3"):
        pt.filter(opkit.Params(pt, a=3, m=1), strict=True)
    with pytest.raises(TypeError, match=r"^expected Params of"):
        pt.filter({"a": np.int32(3), "m": 1}, strict=True)
