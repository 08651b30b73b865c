"""The compat census: every Theano and PyTensor name that op modules and op-extension tests use is in opkit.compat.

tests/data/census_compat.json lists each ``theano.*`` / ``pytensor.*`` dotted name that Theano 1.0's and
PyTensor's modules defining C ops, and their tests of the op-extension API, import or reference
(tests/data/census_compat.py --refresh writes it from the two git trees). Each must import through
``opkit.compat.theano`` / ``opkit.compat.pytensor``, or be recorded absent with a reason in
tests/data/census_absences.txt. Then the implementations behind the names a porter reaches for most.
"""

import importlib.util
import pathlib

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from helpers.modes import FAST_RUN_GRAPH

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"


def _load_census():
    spec = importlib.util.spec_from_file_location("census_compat", DATA / "census_compat.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


census = _load_census()
DATA_JSON = census.load_census()
RULES = census.read_absences()


@pytest.mark.parametrize("library", ["theano", "pytensor"])
def test_every_name_is_in_compat_or_recorded_absent(library):
    names = DATA_JSON[library]["names"]
    found = census.classify(names, RULES)
    missing = [f"{name}  (used by {', '.join(names[name][:2])})" for name in found["missing"]]
    assert not missing, (f"{len(missing)} {library} name(s) neither in opkit.compat nor in census_absences.txt "
                         "(add the name to opkit.compat, or a rule with a reason):\n" + "\n".join(missing))
    assert len(found["present"]) + len(found["absent"]) == len(names)


def test_every_absence_rule_still_covers_a_missing_name():
    absent = [name for library in ("theano", "pytensor")
              for name in census.classify(DATA_JSON[library]["names"], RULES)["absent"]]
    used = {census.absence_for(name, RULES)[2] for name in absent}
    stale = sorted({(line, pattern) for pattern, _, line in RULES if line not in used})
    assert not stale, ("census_absences.txt rules that cover no missing name (the name is present now, or "
                       "nothing uses it): remove them:\n" + "\n".join(f"line {n}: {p}" for n, p in stale))


def test_the_census_was_made_at_the_corpus_commits():
    for library, (repository, commit) in census.PINNED.items():
        assert DATA_JSON[library]["repository"] == repository and DATA_JSON[library]["commit"] == commit
        assert len(DATA_JSON[library]["names"]) > 500
    names = DATA_JSON["theano"]["names"]
    assert "theano/gof/tests/test_cc.py" in names["theano.gof.cc.DualLinker"]
    assert "theano/tensor/blas.py" in names["theano.gof.utils.memoize"]


def test_names_used_reads_imports_aliases_relative_imports_and_attribute_chains():
    source = """
import theano
import theano.tensor as T
from theano import gof, tensor as tt
from theano.gof import *
from .basic import as_tensor_variable as atv
from ..scalar import upcast
import numpy
x = theano.tensor.nnet.softmax(T.dmatrix()).sum()
gof.cc.CLinker().accept
tt.blas.Gemm.E_float
numpy.theano.ignored
"""
    found = census.names_used(source, "theano/tensor/nnet/mod.py", "theano")
    assert found == {"theano.tensor", "theano.gof", "theano.tensor.nnet.softmax", "theano.tensor.dmatrix",
                     "theano.gof.cc.CLinker", "theano.tensor.blas.Gemm.E_float",
                     "theano.tensor.nnet.basic.as_tensor_variable", "theano.tensor.scalar.upcast"}


def test_absence_rules_expand_braces_and_cover_subtrees(tmp_path):
    path = tmp_path / "absences.txt"
    path.write_text("# a comment\ntheano.sparse.* : no sparse\ntheano.scalar.{Add,Mul} : instances\n")
    rules = census.read_absences(path)
    assert [r[0] for r in rules] == ["theano.sparse.*", "theano.scalar.Add", "theano.scalar.Mul"]
    assert census.absence_for("theano.sparse", rules)[0] == "theano.sparse.*"
    assert census.absence_for("theano.sparse.basic.CSR", rules)[1] == "no sparse"
    assert census.absence_for("theano.sparsey", rules) is None and census.absence_for("theano.scalar.Sub", rules) is None
    path.write_text("theano.scalar.Add\n")
    with pytest.raises(ValueError, match=r"absences.txt:1: expected 'name : reason', got 'theano.scalar.Add'"):
        census.read_absences(path)


def test_resolve_maps_upstream_names_onto_compat():
    from opkit.link import lockstep_linkers, theano_linkers

    assert census.compat_name("theano.gof.cc.CLinker") == "opkit.compat.theano.gof.cc.CLinker"
    assert census.resolve("theano.gof.cc.CLinker") is theano_linkers.CLinker
    assert census.resolve("pytensor.link.c.basic.DualLinker") is lockstep_linkers.DualLinker
    assert census.resolve("theano.config.floatX") == opkit.config.floatX
    with pytest.raises(LookupError, match="theano.sparse.basic"):
        census.resolve("theano.sparse.basic.CSR")
    with pytest.raises(LookupError, match="theano.gof.no_such_name"):
        census.resolve("theano.gof.no_such_name")


# ---- what the names do ---------------------------------------------------------------------------------------

def test_get_scalar_constant_value_follows_constant_graphs():
    from opkit.compat.theano.tensor import NotScalarConstantError, get_scalar_constant_value
    from opkit.core.tensor.types.constant_value import EmptyConstantError

    three = ot.constant(3.0)
    assert get_scalar_constant_value(three) == 3.0 and get_scalar_constant_value(np.float32(2)) == 2
    assert get_scalar_constant_value(ot.exp(three) * 2) == pytest.approx(2 * np.exp(3.0))
    assert get_scalar_constant_value(ot.cast(three, "int64")).dtype == np.int64
    assert get_scalar_constant_value(ot.constant(np.array([[5]]))) == 5
    assert get_scalar_constant_value(ot.shape(ot.TensorType("float64", (4, None))("v"))[0]) == 4
    with pytest.raises(NotScalarConstantError, match="is not a constant scalar"):
        get_scalar_constant_value(ot.dscalar("x") + 1)
    with pytest.raises(NotScalarConstantError):
        get_scalar_constant_value(ot.exp(three), elemwise=False)
    with pytest.raises(NotScalarConstantError):
        get_scalar_constant_value(ot.constant(np.arange(3.0)))
    with pytest.raises(EmptyConstantError):
        get_scalar_constant_value(ot.constant(np.zeros(0)))


def test_patternbroadcast_addbroadcast_unbroadcast():
    from opkit.compat.theano.tensor import addbroadcast, patternbroadcast, unbroadcast

    x = ot.dmatrix("x")
    row = addbroadcast(x, 0)
    assert row.type.broadcastable == (True, False)
    assert unbroadcast(row, 0).type.broadcastable == (False, False)
    assert patternbroadcast(row, (False, True)).type.broadcastable == (False, True)
    assert patternbroadcast(x, (False, False)) is x
    with pytest.raises(ValueError, match="patternbroadcast: 1 flags for x of 2 dimension"):
        patternbroadcast(x, (True,))
    f = opkit.function([x], [row + 1, unbroadcast(row, 0) * 2])
    a, b = f(np.ones((1, 3)))
    np.testing.assert_array_equal(a, np.full((1, 3), 2.0))
    np.testing.assert_array_equal(b, np.full((1, 3), 2.0))
    with pytest.raises(ValueError, match="axis 0 has length 2, not 1"):
        f(np.ones((2, 3)))


def test_theanos_tensor_spellings_compute_as_numpy():
    from opkit.compat.theano import tensor as tt
    from opkit.compat.theano.tensor import blas, nnet

    x, y, m, i = ot.dvector("x"), ot.dvector("y"), ot.dmatrix("m"), ot.lvector("i")
    outputs = [tt.inv(x), tt.sgn(x), tt.ceil_intdiv(i, 3), nnet.softmax(m), nnet.hard_sigmoid(x),
               blas.ger(m, 2.0, x, y), blas.gemv_no_inplace(x, 2.0, m, y, 0.5), tt.outer(x, y), tt.tensor_copy(x)]
    # FAST_RUN's graph on the Python linker: the names are graphs of opkit's ops, whose C tests/tensor runs
    f = opkit.function([x, y, m, i], outputs, mode=FAST_RUN_GRAPH)
    a, b, c, n = np.array([1.0, -2.0, 4.0]), np.array([0.5, 1.0, 2.0]), np.arange(9.0).reshape(3, 3), np.arange(7)
    got = f(a, b, c, n)
    e = np.exp(c - c.max(axis=1, keepdims=True))
    expected = [1 / a, np.sign(a), -(-n // 3), e / e.sum(axis=1, keepdims=True), np.clip(0.2 * a + 0.5, 0, 1),
                c + 2 * np.outer(a, b), 0.5 * a + 2 * c @ b, np.outer(a, b), a]
    for value, want in zip(got, expected):
        np.testing.assert_allclose(value, want, rtol=1e-12)
    assert tt.get_vector_length(ot.shape(m)) == 2 and tt.get_vector_length(ot.TensorType("int64", (5,))()) == 5
    with pytest.raises(ValueError, match="length not known"):
        tt.get_vector_length(x)
    assert tt.AsTensorError is TypeError and tt.as_tensor is ot.as_tensor_variable
    assert tt.bscalar.dtype == "int8" and tt.wvector.dtype == "int16" and tt.zscalar.dtype == "complex128"


def test_pprint_and_its_printers():
    from opkit.compat.theano.printing import (FunctionPrinter, OperatorPrinter, PatternPrinter, PPrinter,
                                              PrinterState, pprint)

    x, y = ot.dvector("x"), ot.dvector("y")
    assert pprint(ot.exp(x)) == "exp(x)"  # the default: op(inputs)
    printer = PPrinter()
    printer.assign(lambda pstate, r: True, pprint.printers[-1][1])
    product = ot.exp(x) * y
    printer.assign(product.owner.op, OperatorPrinter("*", 1))
    printer.assign(ot.exp(x).owner.op, FunctionPrinter("e"))
    assert printer(product) == "(e(x) * y)"
    printer.assign(ot.exp(x).owner.op, PatternPrinter("%(0)s^e"))
    assert printer(product) == "(x^e * y)"
    assert printer([x, y], [product]) == "return (x^e * y)"
    with pytest.raises(TypeError, match="cannot represent a variable that is not the result of an operation"):
        FunctionPrinter("f").process(x, PrinterState(printer))


def test_gof_helpers():
    from opkit.compat.theano.gof import graph, utils

    calls = []

    @utils.memoize
    def square(v):
        calls.append(v)
        return v * v

    assert square(3) == square(3) == 9 and calls == [3]
    assert utils.uniq([3, 1, 3, 2, 1]) == [3, 1, 2] and utils.difference([1, 2, 3], [2]) == [1, 3]
    assert utils.difference([[1], [2]], [[2]]) == [[1]]  # unhashable items
    assert utils.to_return_values([5]) == 5 and utils.from_return_values(5) == [5]
    x, y = ot.dvector("x"), ot.dvector("y")
    named = utils.give_variables_names([x, ot.dvector(), ot.dvector()])
    assert len({v.name for v in named}) == 3
    view = x.dimshuffle(0, "x")
    total = ot.exp(x) + y
    assert graph.view_roots(view) == [x] and graph.view_roots(total) == [total]
    assert set(graph.inputs([total])) == {x, y}
    exp_x = total.owner.inputs[0]
    assert set(graph.inputs([total], blockers=[exp_x])) == {exp_x, y}
    assert graph.list_of_nodes([x, y], [total]) == [exp_x.owner, total.owner]

    def deps(obj):
        return ([obj.owner] if obj.owner is not None else []) if isinstance(obj, opkit.Variable) else obj.inputs

    order = graph.general_toposort([total], deps)
    assert order[-1] is total and order.index(exp_x.owner) < order.index(total.owner) and order.index(x) < order.index(exp_x)


def test_gcc_compiler_probes_run_the_compiler():
    from opkit.compat.pytensor.link.c.cmodule import GCC_compiler as pytensors
    from opkit.compat.theano.gof.cmodule import GCC_compiler, gcc_version

    assert pytensors is GCC_compiler and gcc_version()[0].isdigit()
    assert GCC_compiler.try_flags(["-O2"]) is True
    assert GCC_compiler.try_flags(["-fno-such-flag-opkit"]) is False
    assert GCC_compiler.try_compile_tmp("int main(void) { return 3; }", try_run=True) == (True, False)
    compiled, ran, out, err = GCC_compiler.try_flags([], preambule="#include <stdio.h>", body='printf("ok");',
                                                     try_run=True, output=True)
    assert (compiled, ran, out) == (True, True, "ok")


def test_hidec_hides_an_ops_c_code():
    from opkit.compat.theano.gof.cc import CLinker, HideC, OpWiseCLinker
    from opkit.compat.theano.gof.fg import FunctionGraph

    class Twice(opkit.Op):
        __props__ = ()

        def make_node(self, x):
            x = ot.as_tensor_variable(x)
            return opkit.Apply(self, [x], [x.type()])

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0] * 2

        def c_code(self, node, name, inputs, outputs, sub):
            raise AssertionError("hidden C must not be asked for")

    class HiddenTwice(HideC, Twice):
        pass

    x = ot.dvector("x")
    graph = FunctionGraph([x], [HiddenTwice()(x)])
    np.testing.assert_array_equal(OpWiseCLinker().accept(graph).make_function()(np.arange(3.0)), [0, 2, 4])
    with pytest.raises(NotImplementedError, match="CLinker runs C code only"):
        CLinker().accept(graph).make_function()


def test_theano_top_level_and_compile_names():
    import opkit.compat.theano as theano

    assert theano.compile.mode.get_default_mode().linker == opkit.link.mode.get_mode(None).linker
    assert theano.compile.ops.shape_i(ot.TensorType("float64", (3, None))(), 0).data == 3
    x = ot.dvector("x")
    assert type(theano.compile.ops.shape_i(x, 0).owner.op).__name__ == "Shape_i"
    f = theano.compile.pfunc([x], x * 2)
    np.testing.assert_array_equal(f(np.arange(3.0)), [0, 2, 4])
    with pytest.raises(NotImplementedError, match=r"pfunc\(accept_inplace=...\): opkit.function has no such option"):
        theano.compile.pfunc([x], x, accept_inplace=True)
    assert theano._asarray([1, 2], "float32").dtype == np.float32
    assert theano.compat.izip is zip and theano.compat.cmp(1, 2) == -1
    frozen = theano.misc.frozendict.frozendict(a=1)
    assert hash(frozen) == hash(theano.misc.frozendict.frozendict(a=1)) and frozen["a"] == 1
    with pytest.raises(TypeError):
        frozen["b"] = 2
    with theano.gof.opt.inherit_stack_trace([x]):
        pass
    assert theano.tests.unittest_tools.verify_grad is opkit.testing.verify_grad


def test_pytensors_helpers_compute_as_numpy():
    from opkit.compat.pytensor.tensor import basic, special
    from opkit.compat.pytensor.tensor.shape import shape_padaxis, shape_tuple
    from opkit.compat.pytensor.tensor.exceptions import NotScalarConstantError

    m = ot.dmatrix("m")
    outputs = [special.softmax(m, axis=1), special.softmax(m), special.log_softmax(m, axis=0),
               shape_padaxis(m, -1) * 1, basic.expand_dims(m, (0, 3)) * 1]
    # FAST_RUN's graph on the Python linker: the names are graphs of opkit's ops, whose C tests/tensor runs
    got = opkit.function([m], outputs, mode=FAST_RUN_GRAPH)(c := np.arange(6.0).reshape(2, 3) / 4)
    rows, whole, cols = (np.exp(c - c.max(axis=a, keepdims=True)) for a in (1, None, 0))
    expected = [rows / rows.sum(axis=1, keepdims=True), whole / whole.sum(),
                np.log(cols / cols.sum(axis=0, keepdims=True)), c[:, :, None], c[None, :, :, None]]
    for value, want in zip(got, expected):
        np.testing.assert_allclose(value, want, rtol=1e-12)
    with pytest.raises(IndexError, match="axis 3 is out of bounds"):
        shape_padaxis(m, 3)
    with pytest.raises(ValueError, match="repeated axis"):
        basic.expand_dims(m, (0, 0))
    assert [getattr(s, "data", None) for s in shape_tuple(ot.TensorType("float64", (2, None))())][0] == 2
    assert basic.get_underlying_scalar_constant_value(ot.constant(2.0) * 3) == 6.0
    x = ot.dscalar("x")
    assert basic.get_underlying_scalar_constant_value(x, raise_not_constant=False) is x
    with pytest.raises(NotScalarConstantError):
        basic.get_scalar_constant_value(x)
    with pytest.raises(TypeError, match="can only be applied to scalars"):
        basic.get_scalar_constant_value(m)


def test_pytensors_graph_and_utils_helpers():
    from opkit.compat.pytensor import utils
    from opkit.compat.pytensor.graph import traversal

    x, y = ot.dvector("x"), ot.dvector("y")
    e = ot.exp(x)
    z = e * 2 + y
    assert set(traversal.explicit_graph_inputs(z)) == {x, y}
    assert traversal.variable_depends_on(z, [x]) and not traversal.variable_depends_on(e, [y])
    assert traversal.apply_depends_on(z.owner, e.owner) and not traversal.apply_depends_on(e.owner, [y])
    assert list(traversal.walk([1], lambda n: [2 * n, 2 * n + 1] if n < 4 else None)) == [1, 2, 3, 4, 5, 6, 7]
    assert list(traversal.walk([1], lambda n: [2 * n, 2 * n + 1] if n < 4 else None, bfs=False))[:3] == [1, 3, 7]
    assert utils.unzip([(1, 2), (3, 4)], 2) == ((1, 3), (2, 4)) and utils.unzip([], 3) == ((), (), ())
    assert utils.hash_from_code("a") == utils.hash_from_code(b"a") and utils.hash_from_code("a").startswith("m")
    assert utils.LOCAL_BITWIDTH in (32, 64) and utils.get_unbound_function(opkit.Op().make_node) is opkit.Op.make_node
