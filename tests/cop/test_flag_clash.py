"""Nodes whose compiler flags clash never share one module (issue 43 item 1: the last -D value won silently).

Theano's default linker compiled each node on its own; op packages rely on it. opkit compiles a region of
nodes as one module with the union of their flags, so opkit.link.partition cuts regions where flags clash
(opkit.cop.generate.flag_clash) and reorders the nodes so that a module holds one set of flags, not one node.
"""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.cop.toolchain.extension import BASE_COMPILE_ARGS, build_flags
from opkit.cop.generate.flag_clash import ModuleFlags, clash
from opkit.cop.generate.region import Region
from opkit.link.partition import partition
from helpers.caches import seeded


class Scale(opkit.Op):
    """y = x * SCALE, SCALE given by -D (a limb-darkening op's eccentric/circular switch, in small)."""

    __props__ = ("k", "how")

    def __init__(self, k, how="define"):
        self.k = k
        self.how = how

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * self.k

    def c_compile_args(self, c_compiler=None):
        return {"define": [f"-DSCALE={self.k}"], "split": ["-D", f"SCALE={self.k}"]}[self.how]

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (y,), fail = inputs, outputs, sub["fail"]
        return f"""
        Py_XDECREF({y});
        {y} = (PyArrayObject*)PyArray_FromArray({x}, PyArray_DescrFromType(NPY_FLOAT64), NPY_ARRAY_ENSURECOPY);
        if (!{y}) {fail}
        double* data = (double*)PyArray_DATA({y});
        for (npy_intp i = 0; i < PyArray_SIZE({y}); ++i) data[i] *= SCALE;
        """

    def c_code_cache_version(self):
        return (1,)


class Offset(Scale):
    """y = x + OFFSET where OFFSET is defined, else x: reads a macro it never defines itself."""

    __props__ = ()

    def __init__(self):
        super().__init__(0)

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0].copy()

    def c_compile_args(self, c_compiler=None):
        return []

    def c_code(self, node, name, inputs, outputs, sub):
        return super().c_code(node, name, inputs, outputs, sub).replace("*= SCALE", "+= OFFSET_OR_ZERO") \
            .replace("Py_XDECREF", "\n#ifdef OFFSET\n#define OFFSET_OR_ZERO OFFSET\n#else\n"
                                   "#define OFFSET_OR_ZERO 0\n#endif\nPy_XDECREF")


class Offsetting(Scale):
    """y = x * 1, but compiled with -DOFFSET=100: harmless to itself, wrong for an Offset beside it."""

    __props__ = ()

    def __init__(self):
        super().__init__(1)

    def c_compile_args(self, c_compiler=None):
        return ["-DOFFSET=100"]

    def c_code(self, node, name, inputs, outputs, sub):
        return super().c_code(node, name, inputs, outputs, sub).replace("*= SCALE", "*= 1")


def _regions(f):
    return [step for step in partition(f.maker.fgraph, f.maker.backend.target) if isinstance(step, Region)]


# Eight values of the macro repeat what three do (a module per value, one region cut per clash): soak (`-m soak`).
@pytest.mark.parametrize("ks", [(2, 3), (2, 3, 5), pytest.param((1, 2, 3, 4, 5, 6, 7, 8), marks=pytest.mark.soak)],
                         ids=["two", "three", "eight"])
def test_nodes_of_one_op_with_different_defines_each_compile_with_their_own(ks):
    x = ot.dvector("x")
    f = opkit.function([x], [Scale(k)(x) for k in ks])
    for result, k in zip(f(np.arange(3.0)), ks):
        np.testing.assert_array_equal(result, np.arange(3.0) * k)
    # A module per value of the macro, not one per node.
    assert len(_regions(f)) == len(ks)
    g = opkit.function([x], [Scale(k)(x) for k in ks], mode=opkit.Mode(linker="cop"))
    assert [list(r) for r in g(np.ones(2))] == [[k, k] for k in ks]


def test_interleaved_in_a_chain_each_node_keeps_its_value_and_equal_flags_share_a_module():
    x = ot.dvector("x")
    y = x
    ks = [2, 3, 2, 3, 5, 2]
    for k in ks:
        y = Scale(k)(y)
    outputs = [y, Scale(2)(x), Scale(2, how="split")(x) + 1.0]
    f = opkit.function([x], outputs)
    got = f(np.arange(4.0))
    np.testing.assert_array_equal(got[0], np.arange(4.0) * np.prod(ks))
    np.testing.assert_array_equal(got[1], np.arange(4.0) * 2)
    np.testing.assert_array_equal(got[2], np.arange(4.0) * 2 + 1)  # "-D", "SCALE=2": the same macro as -DSCALE=2


# One graph per case, in a cache of its own: three values of the macro (three regions, each linked from node objects,
# nodes of a chain reordered between them) take every path that two or eight do; those are soak (`-m soak`).
@pytest.mark.parametrize("ks", [pytest.param((2, 3), marks=pytest.mark.soak), (2, 3, 5),
                                pytest.param(tuple(range(1, 9)), marks=pytest.mark.soak)],
                         ids=["two", "three", "eight"])
def test_the_incremental_build_keeps_each_node_s_flags(tmp_path, monkeypatch, ks):
    import opkit.cop.incremental as incremental
    from opkit.cop.store import objects

    monkeypatch.setattr(incremental, "INCREMENTAL_ABOVE", 0)  # every region links from node objects
    built = []
    monkeypatch.setattr(objects, "object_cache", _counting(objects.object_cache, built))
    monkeypatch.setattr(incremental, "object_cache", _counting(incremental.object_cache, built))
    x = ot.dvector("x")
    with opkit.config.change_flags(compiledir=seeded(tmp_path), incremental=True):
        chained = x
        for k in ks:
            chained = Scale(k)(chained) + 1.0
        f = opkit.function([x], [Scale(k)(x) for k in ks] + [chained])
        got = f(np.arange(3.0))
        for result, k in zip(got, ks):
            np.testing.assert_array_equal(result, np.arange(3.0) * k)
        expected = np.arange(3.0)
        for k in ks:
            expected = expected * k + 1.0
        np.testing.assert_array_equal(got[-1], expected)
    assert built, "the incremental build was not used"


def _counting(make_cache, built):
    def counted(*args, **kwargs):
        built.append(1)
        return make_cache(*args, **kwargs)
    return counted


def test_a_macro_one_node_defines_never_reaches_a_node_that_reads_it_undefined():
    x = ot.dvector("x")
    f = opkit.function([x], [Offsetting()(x), Offset()(x)])
    one, other = f(np.arange(3.0))
    np.testing.assert_array_equal(one, np.arange(3.0))
    np.testing.assert_array_equal(other, np.arange(3.0))  # not + 100


class IsNan(Scale):
    """y = (x != x): NaN where x is; -ffast-math beside it would fold the test to 0."""

    __props__ = ("fast",)

    def __init__(self, fast):
        super().__init__(1)
        self.fast = fast

    def c_compile_args(self, c_compiler=None):
        return ["-ffast-math"] if self.fast else []

    def c_code(self, node, name, inputs, outputs, sub):
        return super().c_code(node, name, inputs, outputs, sub).replace(
            "data[i] *= SCALE;", "{ volatile double v = data[i]; data[i] = (v != v) ? 1.0 : 0.0; }")


def test_an_option_only_one_node_passes_is_not_applied_to_the_others():
    x = ot.dvector("x")
    f = opkit.function([x], [IsNan(fast=False)(x), IsNan(fast=True)(x)])
    strict, _ = f(np.array([1.0, np.nan]))
    np.testing.assert_array_equal(strict, [0.0, 1.0])
    assert len(_regions(f)) == 2


class FromHeader(Scale):
    """y = x * SCALE_FROM_HEADER, the macro defined by scale.h in the op's own header directory."""

    __props__ = ("directory",)

    def __init__(self, directory):
        super().__init__(0)
        self.directory = directory

    def perform(self, node, inputs, outputs):
        raise AssertionError("C only")

    def c_compile_args(self, c_compiler=None):
        return []

    def c_headers(self, c_compiler=None):
        return ["scale_from_header.h"]

    def c_header_dirs(self, c_compiler=None):
        return [self.directory]

    def c_code(self, node, name, inputs, outputs, sub):
        return super().c_code(node, name, inputs, outputs, sub).replace("*= SCALE", "*= SCALE_FROM_HEADER")


def test_a_header_two_nodes_find_in_different_directories_is_each_node_s_own(tmp_path):
    dirs = []
    for k in (2, 7):
        directory = tmp_path / f"include{k}"
        directory.mkdir()
        (directory / "scale_from_header.h").write_text(f"#define SCALE_FROM_HEADER {k}\n")
        dirs.append(str(directory))
    x = ot.dvector("x")
    f = opkit.function([x], [FromHeader(d)(x) for d in dirs])
    two, seven = f(np.ones(2))
    assert list(two) == [2, 2] and list(seven) == [7, 7]


def test_opkit_s_own_ops_beside_a_user_op_with_defines_still_share_its_module():
    x = ot.dvector("x")
    f = opkit.function([x], ot.exp(Scale(3)(x) * 2.0 + 1.0).sum())
    np.testing.assert_allclose(f(np.arange(3.0)), np.exp(np.arange(3.0) * 6 + 1).sum())
    assert len(_regions(f)) == 1


def _flags(*ops):
    x = ot.dvector("x")
    nodes = [op(x).owner for op in ops]
    module = ModuleFlags(nodes, (*BASE_COMPILE_ARGS, *build_flags()[0]))
    return module, [module.flags(node) for node in nodes]


class Flagged(Scale):
    __props__ = ("args", "removed")

    def __init__(self, args, removed=()):
        super().__init__(1)
        self.args, self.removed = tuple(args), tuple(removed)

    def c_compile_args(self, c_compiler=None):
        return list(self.args)

    def c_no_compile_args(self, c_compiler=None):
        return list(self.removed)


@pytest.mark.parametrize("one, other, why", [
    (["-DJ=1"], ["-DJ=2"], "macro J is '1' for one and '2' for the other"),
    (["-DJ"], ["-UJ"], "macro J is '1' for one and undefined for the other"),
    (["-O3"], [], "compile options differ: ['-O3']"),
    (["-std=c++11"], ["-std=c++14"], "compile options differ"),
    (["-fopenmp"], ["-fno-openmp"], "-fopenmp and the other with -fno-openmp"),
    (["-funroll-loops"], ["-fno-unroll-loops"], "compile options differ"),
])
def test_what_clashes(one, other, why):
    _, (a, b) = _flags(Flagged(one), Flagged(other))
    assert why in clash(a, b)
    assert clash(b, a) is not None


@pytest.mark.parametrize("one, other", [
    (["-DJ=1"], ["-DJ=1"]), (["-DJ=1"], ["-D", "J=1"]), (["-DJ=1"], []), (["-Wall", "-g"], ["-Wextra"]),
    (["-fopenmp"], []), (["-O2", "-ffp-contract=off"], []), (["-DOPKIT_X=1"], []),
])
def test_what_does_not_clash(one, other):
    module, (a, b) = _flags(Flagged(one), Flagged(other))
    assert clash(a, b) is None and clash(b, a) is None


def test_a_flag_one_node_removes_clashes_with_a_node_that_passes_it():
    _, (a, b) = _flags(Flagged(["-DJ=1"]), Flagged([], removed=["-DJ=1"]))
    assert "removes ['-DJ=1'], which the other passes" in clash(a, b)


def test_a_graph_without_clashing_flags_is_not_checked_node_by_node():
    x = ot.dvector("x")
    module = ModuleFlags([(x + 1).owner, ot.exp(x).owner, (x * 2).owner])
    assert not module.possible
