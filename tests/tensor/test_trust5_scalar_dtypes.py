"""Issue 44 item 3: a user scalar op run without C computes in its node's output dtype, never in a narrower one.

numpy picks a loop from the inputs alone: np.sqrt of int8 runs its float16 loop (1.4140625 for sqrt(2)), np.multiply
of two int8 wraps in int8. A user op declares its output dtype (upgrade_to_float: float32; int_out: int64) and its C
computes there. Every path without C computes there too (opkit.core.tensor.scalars.compute_dtype): Elemwise's
perform (FAST_COMPILE, DebugMode's reference), a fused loop's perform (the Python linker after fusion) and the
scalar op's own perform on scalars, whether the op computes through nfunc_spec naming a ufunc, nfunc_spec naming
a plain function, or its Python impl.

The class: ops of each kind, every built-in output-type rule, every real input dtype (and mixed pairs), each
compared with numpy computing in the output dtype (an operand converted where C converts it: a safe cast, or an
integer into a float) and, where the node has C, with FAST_RUN and DebugMode.
"""

import numpy as np
import pytest

import opkit
import opkit.scalar as ps
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.tensor import Elemwise

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64")
# sqrt(2) and sqrt(3) differ in float16 and float32; 100 * 3 wraps in 8 bits.
X = [0, 1, 2, 3, 5, 7, 100]
Y = [0, 1, 3, 3, 3, 2, 3]
BOOLS = [False, True, True, False, True, False, True]


def _values(dtype, numbers):
    return np.array(BOOLS if dtype == "bool" else numbers, dtype)


def _converted(dtype, out):
    """The dtype an operand computes in for an output of dtype `out`: `out` where a safe cast or an integer
    into a float takes it there, else its own (a wider float keeps its precision; the result is rounded once)."""
    dtype, out = np.dtype(dtype), np.dtype(out)
    return out if np.can_cast(dtype, out, "safe") or (dtype.kind in "biu" and out.kind in "fc") else dtype


def _computing(node, k, inp):
    """The C of input k converted as _converted says: the ops' C computes in the output dtype, as PyTensor's
    c_code casts its inputs to the output's C type."""
    dtype = _converted(node.inputs[k].type.dtype, node.outputs[0].type.dtype)
    return f"(({ps.get_scalar_type(dtype).dtype_specs()[1]}){inp[k]})"


class Root(ps.UnaryScalarOp):
    """sqrt through nfunc_spec naming a numpy ufunc; its C as PyTensor's Sqrt writes it."""

    nfunc_spec = ("sqrt", 1, 1)
    reference = staticmethod(np.sqrt)

    def impl(self, x):
        return np.sqrt(x)

    def c_code(self, node, name, inp, out, sub):
        return f"{out[0]} = sqrt({_computing(node, 0, inp)});"


class RootImpl(Root):
    """The same, through impl element by element (no nfunc_spec)."""

    nfunc_spec = None


class RootCallable(Root):
    """The same, through nfunc_spec naming a plain function (numpy.emath.sqrt is no ufunc)."""

    nfunc_spec = ("numpy.emath.sqrt", 1, 1)


class Times(ps.BinaryScalarOp):
    nfunc_spec = ("multiply", 2, 1)
    reference = staticmethod(np.multiply)

    def impl(self, x, y):
        return x * y

    def c_code(self, node, name, inp, out, sub):
        return f"{out[0]} = {_computing(node, 0, inp)} * {_computing(node, 1, inp)};"


class TimesImpl(Times):
    nfunc_spec = None


UNARY_RULES = {
    "upgrade_to_float": ps.upgrade_to_float, "upgrade_to_float64": ps.upgrade_to_float64,
    "upgrade_to_float_no_complex": ps.upgrade_to_float_no_complex, "same_out": ps.same_out,
    "same_out_nobool": ps.same_out_nobool, "same_out_min8": ps.same_out_min8,
    "same_out_nocomplex": ps.same_out_nocomplex, "same_out_float_only": ps.same_out_float_only,
    "real_out": ps.real_out, "upcast_out": ps.upcast_out, "upcast_out_nobool": ps.upcast_out_nobool,
    "upcast_out_min8": ps.upcast_out_min8, "upcast_out_no_complex": ps.upcast_out_no_complex,
    "transfer_type(0)": ps.transfer_type(0), "specific_out(float32)": ps.specific_out(ps.float32),
    "int_out": ps.int_out, "float_out": ps.float_out,
}
BINARY_RULES = {
    "upcast_out": ps.upcast_out, "upcast_out_nobool": ps.upcast_out_nobool, "upcast_out_min8": ps.upcast_out_min8,
    "upcast_out_no_complex": ps.upcast_out_no_complex, "upgrade_to_float": ps.upgrade_to_float,
    "upgrade_to_float64": ps.upgrade_to_float64, "upgrade_to_float_no_complex": ps.upgrade_to_float_no_complex,
    "transfer_type(0)": ps.transfer_type(0), "transfer_type(1)": ps.transfer_type(1),
    "specific_out(float32)": ps.specific_out(ps.float32), "int_out": ps.int_out, "float_out": ps.float_out,
}
PAIRS = [(d, d) for d in DTYPES] + [
    ("int8", "uint8"), ("bool", "int8"), ("int8", "float16"), ("uint8", "float32"), ("int16", "float32"),
    ("int32", "float32"), ("float32", "int32"), ("uint64", "int64"), ("float16", "float32"),
    ("float32", "float64"), ("int64", "float64"), ("uint16", "int32")]
REFUSED = "is not defined for inputs of dtype"


def expected(op_class, arrays, out):
    """numpy computing `op_class.reference` in dtype `out`: an operand is converted to it where C converts it."""
    operands = [a.astype(_converted(a.dtype, out)) for a in arrays]
    with np.errstate(all="ignore"):
        return np.asarray(op_class.reference(*operands)).astype(np.dtype(out))


def cases(op_classes):
    """Every (label, op class, rule, input dtypes) of these classes: each rule on each dtype (or pair)."""
    found = []
    for op_class in op_classes:
        binary = op_class.nin == 2
        rules, inputs = (BINARY_RULES, PAIRS) if binary else (UNARY_RULES, [(d,) for d in DTYPES])
        for rule_name, rule in rules.items():
            for dtypes in inputs:
                found.append((f"{op_class.__name__}({rule_name}) of {', '.join(dtypes)}", op_class, rule, dtypes))
    return found


class Graph:
    """One function's inputs (x_<dtype> and y_<dtype> per dtype) and the outputs of the cases it can build."""

    def __init__(self, case_list, make_input=lambda dtype, name: ot.tensor(dtype, (None,), name=name)):
        self.x = {d: make_input(d, f"x_{d}") for d in DTYPES}
        self.y = {d: make_input(d, f"y_{d}") for d in DTYPES}
        self.outputs, self.kept, self.refused = [], [], []
        for label, op_class, rule, dtypes in case_list:
            variables = [self.x[dtypes[0]]] + ([self.y[dtypes[1]]] if len(dtypes) == 2 else [])
            try:
                out = op_class(rule)(*variables)
            except TypeError as exc:
                self.refused.append((label, str(exc)))
                continue
            self.outputs.append(out)
            self.kept.append((label, op_class, rule, dtypes, out.dtype))

    def inputs(self):
        return [self.x[d] for d in DTYPES] + [self.y[d] for d in DTYPES]

    def values(self, pick=lambda array: array):
        return [pick(_values(d, X)) for d in DTYPES] + [pick(_values(d, Y)) for d in DTYPES]

    def check(self, results, what, pick=lambda array: array):
        """Each result has its node's dtype and is numpy's, computed in that dtype, bit for bit."""
        assert len(results) == len(self.kept)
        for (label, op_class, _, dtypes, out), got in zip(self.kept, results):
            arrays = [pick(_values(dtypes[0], X))] + ([pick(_values(dtypes[1], Y))] if len(dtypes) == 2 else [])
            got = np.asarray(got)
            assert got.dtype == np.dtype(out), f"{label} {what}: dtype {got.dtype}, the node's is {out}"
            np.testing.assert_array_equal(got, expected(op_class, arrays, out), strict=True, err_msg=f"{label} {what}")


ALL_OPS = (Root, RootImpl, RootCallable, Times, TimesImpl)


# DebugMode (a module per node) is soak: FAST_RUN's C and FAST_COMPILE's perform are each numpy's here, bit for bit,
# so they agree as DebugMode checks they do.
@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", pytest.param("DebugMode", marks=pytest.mark.soak)])
def test_int8_sqrt_of_issue_44_computes_in_float32_in_every_mode(mode):
    """The reported case: upgrade_to_float on int8 (and uint8, bool) is float32, computed in float32 by C, by
    perform and by DebugMode's reference, through a ufunc, a plain function or impl; and an int8 product whose
    output is int64 (int_out) does not wrap in int8."""
    dtypes = ("int8", "uint8", "bool")
    xs = [ot.tensor(dtype, (None,), name=f"x_{dtype}") for dtype in dtypes]
    values = [np.array([2, 3], dtype) if dtype != "bool" else np.array([True, False]) for dtype in dtypes]
    ops = (Root(ps.upgrade_to_float), RootImpl(ps.upgrade_to_float), RootCallable(ps.upgrade_to_float))
    outputs = [op(x) for x in xs for op in ops]
    products = [Times(ps.int_out)(xs[0], xs[0] * 50), TimesImpl(ps.int_out)(xs[0], xs[0] * 50)]
    got = opkit.function(xs, outputs + products, mode=mode)(*values)
    for k, result in enumerate(got[:len(outputs)]):
        want = np.sqrt(values[k // len(ops)].astype(np.float32))
        np.testing.assert_array_equal(result, want, strict=True, err_msg=f"{outputs[k].owner.op} {mode}")
    for result in got[len(outputs):]:  # 2 * 100 and 3 * (150 wrapped in int8: -106)
        np.testing.assert_array_equal(result, np.array([200, -318]), strict=True, err_msg=mode)
    assert got[0].tolist() == [np.float32(1.4142135), np.float32(1.7320508)]
    assert np.sqrt(np.int8([2, 3])).tolist() == [np.float16(1.4140625), np.float16(1.7324219)]  # numpy's own loop


def test_every_rule_and_dtype_computes_in_the_output_dtype_through_elemwise_perform():
    """FAST_COMPILE: Elemwise.perform of every kind of op, rule and input dtype, against numpy in the output dtype."""
    graph = Graph(cases(ALL_OPS))
    f = opkit.function(graph.inputs(), graph.outputs, mode="FAST_COMPILE", on_unused_input="ignore")
    graph.check(f(*graph.values()), "FAST_COMPILE")
    # The rules that refuse a dtype say so when the graph is built.
    assert graph.refused and all(REFUSED in message for _, message in graph.refused)
    refused = {label for label, _ in graph.refused}
    assert "Root(same_out_float_only) of int8" in refused and "Times(upcast_out_nobool) of bool, bool" in refused


def test_a_fused_loop_without_c_computes_each_step_in_its_output_dtype():
    """The Python linker after fusion runs FusedElemwise.perform: the user op's step, then a multiply by ones."""
    graph = Graph(cases(ALL_OPS))
    ones = {d: ot.tensor(d, (None,), name=f"ones_{d}") for d in DTYPES}
    fused_outputs = [out * ones[out.dtype] for out in graph.outputs]
    f = opkit.function(graph.inputs() + [ones[d] for d in DTYPES], fused_outputs,
                       mode=opkit.Mode(linker="py", optimizer="fast_run"), on_unused_input="ignore")
    fused = [node for node in f.maker.fgraph.toposort() if str(node.op).startswith("Fused{")]
    assert len(fused) >= len(fused_outputs) // 2, [str(node.op) for node in f.maker.fgraph.toposort()][:20]
    graph.check(f(*graph.values(), *[np.ones(len(X), d) for d in DTYPES]), "fused perform")


def test_the_scalar_ops_own_perform_on_scalars():
    """The scalar graph (ScalarType variables): ScalarOp.perform, impl computed in the output dtype."""
    graph = Graph(cases(ALL_OPS), make_input=lambda dtype, name: ps.get_scalar_type(dtype)(name))
    f = opkit.function(graph.inputs(), graph.outputs, mode="FAST_COMPILE", on_unused_input="ignore")
    for index in (2, 3, 6):  # sqrt(2), sqrt(3); 100 * 3
        def pick(array, index=index):
            return array[index]
        with np.errstate(over="ignore"):  # impl's int8 * int8 of 100 * 3 wraps, as numpy's scalars say
            results = f(*graph.values(pick))
        graph.check(results, f"scalar perform at {X[index]}", pick)


def _distinct_c_cases():
    """One case per (op, input dtypes, output dtype) whose node has C (no float16): sqrt on every rule, multiply
    on the rules that widen or keep the inputs' type (their perform paths meet numpy on every rule above)."""
    seen, kept = set(), []
    wanted = cases((Root,)) + [case for case in cases((Times,))
                               if case[0].split("(", 1)[1].startswith(("upgrade_to_float)", "int_out", "upcast_out)"))]
    for label, op_class, rule, dtypes, out in Graph(wanted).kept:
        if "float16" in (*dtypes, out) or (op_class, dtypes, out) in seen:
            continue
        seen.add((op_class, dtypes, out))
        kept.append((label, op_class, rule, dtypes))
    return kept


# The input dtypes of the default run's cases: int16 and uint16 compute as int8 and uint8 do (their outputs:
# float32 for upgrade_to_float), int32 and uint32 as int64 and uint64 (float64); their cases are soak ("rest").
C_DEFAULT = ("bool", "int8", "int64", "uint8", "uint64", "float32", "float64")


@pytest.mark.parametrize("part", ["default", pytest.param("rest", marks=pytest.mark.soak)])
def test_perform_agrees_with_c(part):
    """Each distinct (op, dtypes, output dtype) with C: FAST_RUN's C and FAST_COMPILE's perform give numpy's result
    in the output dtype, bit for bit (DebugMode, which checks one against the other, runs in the test above under
    `-m soak`)."""
    graph = Graph([case for case in _distinct_c_cases() if (set(case[3]) <= set(C_DEFAULT)) == (part == "default")])
    assert graph.kept
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = opkit.function(graph.inputs(), graph.outputs, mode=mode, on_unused_input="ignore")
        if mode == "FAST_RUN":
            nodes = f.maker.fgraph.toposort()
            assert all(op_has_c(node) for node in nodes), [str(n.op) for n in nodes if not op_has_c(n)]
        graph.check(f(*graph.values()), mode)


def test_an_integer_operand_a_ufunc_takes_as_integer_stays_one():
    """The output loop is found as numpy finds loops: ldexp(float32, int8) runs ldexp's float32-and-int loop (a
    float exponent has no loop), and an op whose output is narrower than numpy's loop keeps the wide loop."""

    class Scale(ps.BinaryScalarOp):
        nfunc_spec = ("ldexp", 2, 1)

        def impl(self, x, e):
            return np.ldexp(x, e)

    x, e, d = ot.fvector("x"), ot.tensor("int8", (None,), name="e"), ot.dvector("d")
    outputs = [Scale(ps.transfer_type(0))(x, e), Root(ps.specific_out(ps.float32))(d)]
    wide = np.array([4.32497196, 73.2358892])  # values whose float32 square root differs from float64's, rounded
    got = opkit.function([x, e, d], outputs, mode="FAST_COMPILE")(np.float32([1.5, 3.0]), np.int8([3, -2]), wide)
    np.testing.assert_array_equal(got[0], np.ldexp(np.float32([1.5, 3.0]), np.int8([3, -2])), strict=True)
    # sqrt computed in float64 and rounded once to float32 (as C computes sqrt of a double): a wider operand
    # is never rounded down first
    rounded_once = np.sqrt(wide).astype(np.float32)
    assert (rounded_once != np.sqrt(wide.astype(np.float32))).all()
    np.testing.assert_array_equal(got[1], rounded_once, strict=True)
