"""c_support_code_apply of several nodes in one module (issue 34, item 3): equal texts are emitted once;
texts that define the same C names with other bodies (a float32 and a float64 node of an op whose support
code defines `im2col`, as Theano's corr ops) build, each in a namespace of its own; when they still cannot
(two `extern "C"` definitions), the compiler's error names the nodes and their support code."""

import logging

import numpy as np
import pytest

import opkit
import opkit.scalar as os_
import opkit.tensor as ot
from opkit import Apply, CompileError, Op, ParamsType
from opkit.cop.generate.codegen import render_module
from opkit.cop.source.cop import COp
from opkit.cop.generate.region import Region
from opkit.link.function import FunctionMaker
from opkit.link.mode import get_mode
from helpers.caches import seeded

DTYPES = ["float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16"]


def source_of(inputs, outputs):
    """Return the C++ source opkit generates for the graph (after FAST_RUN's rewrites)."""
    fgraph = FunctionMaker(inputs, outputs, get_mode(None)).fgraph
    return render_module(Region.from_nodes(fgraph.toposort(), lambda variable: True)).source


class Im2Col(Op):
    """As Theano's CorrMM: fixed C names in c_support_code_apply, bodies that depend on the dtype.

    out = x * scale + offset, where offset (1 for 4-byte types, 3 otherwise) comes from the support
    code's body, so a node that called the other node's function would give other numbers.
    """

    __props__ = ("scale",)
    params_type = ParamsType(scale=os_.int64)  # params: nodes never share their apply code

    def __init__(self, scale=2):
        self.scale = scale

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    @staticmethod
    def offset(dtype):
        return 1 if np.dtype(dtype).itemsize == 4 else 3

    def perform(self, node, inputs, outputs, params):
        (x,) = inputs
        outputs[0][0] = (x * params.scale + self.offset(x.dtype)).astype(x.dtype)

    def c_support_code_apply(self, node, name):
        ctype = "npy_" + node.inputs[0].dtype
        return f"""
        #include <algorithm>
        static int element_size() {{ return (int)sizeof({ctype}); }}
        void im2col(const {ctype}* src, {ctype}* dst, npy_intp n, npy_int64 scale) {{
            const {ctype} offset = ({ctype})(element_size() == 4 ? 1 : 3);
            for (npy_intp i = 0; i < n; ++i) dst[i] = ({ctype})(src[i] * ({ctype})scale + offset);
        }}
        """

    def c_code(self, node, name, inp, out, sub):
        x, z, fail, params = inp[0], out[0], sub["fail"], sub["params"]
        ctype = "npy_" + node.inputs[0].dtype
        return f"""
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_FROM_OTF((PyObject*){x}, PyArray_TYPE({x}),
                                              NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ENSURECOPY);
        if (!{z}) {fail}
        im2col(({ctype}*)PyArray_DATA({z}), ({ctype}*)PyArray_DATA({z}), PyArray_SIZE({z}), {params}->scale);
        """

    def c_code_cache_version(self):
        return (1,)


def _expected(x, scale=2):
    return (x * scale + Im2Col.offset(x.dtype)).astype(x.dtype)


def _data(dtype, n=7):
    values = np.arange(-3, n - 3)
    if np.dtype(dtype).kind == "u":
        values = np.arange(n)
    return values.astype(dtype)


def test_same_op_twice_emits_its_support_code_once():
    x = ot.dvector("x")
    outs = [Im2Col(2)(x), Im2Col(3)(x), Im2Col(2)(Im2Col(5)(x))]
    source = source_of([x], outs)
    assert source.count("void im2col(") == 1 and "opkit_apply_" not in source  # one text: global, as before
    got = opkit.function([x], outs)(_data("float64"))
    data = _data("float64")
    np.testing.assert_array_equal(got[0], _expected(data, 2))
    np.testing.assert_array_equal(got[1], _expected(data, 3))
    np.testing.assert_array_equal(got[2], _expected(_expected(data, 5), 2))


def test_float32_and_float64_nodes_with_clashing_support_code_build_and_compute():
    a, b = ot.fvector("a"), ot.dvector("b")
    outs = [Im2Col()(a), Im2Col()(b), Im2Col(3)(a) * 2, Im2Col()(b) + ot.cast(Im2Col()(a), "float64")]
    source = source_of([a, b], outs)
    assert source.count("void im2col(") == 2 and source.count("namespace opkit_apply_") >= 2
    f = opkit.function([a, b], outs)
    x, y = _data("float32"), _data("float64")
    got = f(x, y)
    np.testing.assert_array_equal(got[0], _expected(x))
    np.testing.assert_array_equal(got[1], _expected(y))
    np.testing.assert_array_equal(got[2], _expected(x, 3) * 2)
    np.testing.assert_array_equal(got[3], _expected(y) + _expected(x).astype("float64"))
    assert got[0].dtype == np.float32 and got[1].dtype == np.float64


def test_every_pair_of_dtypes_in_one_function():
    """A node of each dtype in one function (one module, where every pair of dtypes' support code meets), and the
    first node again (merged: its output twice)."""
    inputs = [ot.vector(f"x_{dtype}", dtype=dtype) for dtype in DTYPES]
    f = opkit.function(inputs, [Im2Col()(x) for x in inputs] + [Im2Col()(inputs[0])])
    values = [_data(dtype)[::-1] if k % 2 else _data(dtype) for k, dtype in enumerate(DTYPES)]  # reversed strides
    got = f(*values)
    for g, want in zip(got, [_expected(value) for value in values + values[:1]]):
        np.testing.assert_array_equal(g, want)
        assert g.dtype == want.dtype


def test_fast_compile_and_python_give_the_same_numbers():
    a, b = ot.fvector("a"), ot.dvector("b")
    outs = [Im2Col()(a), Im2Col()(b)]
    x, y = _data("float32"), _data("float64")
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        got = opkit.function([a, b], outs, mode=mode)(x, y)
        np.testing.assert_array_equal(got[0], _expected(x))
        np.testing.assert_array_equal(got[1], _expected(y))


class StructIm2Col(Im2Col):
    """Clashing support code used from struct members (a buffer and a method), init/cleanup and code_cleanup."""

    def c_support_code_struct(self, node, name):
        ctype = "npy_" + node.inputs[0].dtype
        return f"""
        {ctype}* buffer_{name};
        npy_intp filled_{name};
        int run_{name}(const {ctype}* src, npy_intp n, npy_int64 scale) {{
            im2col(src, buffer_{name}, n, scale);  // the support code's function, from a member
            filled_{name} = n;
            return element_size();
        }}
        """

    def c_init_code_struct(self, node, name, sub):
        ctype = "npy_" + node.inputs[0].dtype
        return f"buffer_{name} = ({ctype}*)malloc(64 * sizeof({ctype})); filled_{name} = element_size() * 0;"

    def c_cleanup_code_struct(self, node, name):
        return f"free(buffer_{name}); (void)element_size();"

    def c_code(self, node, name, inp, out, sub):
        x, z, fail, params = inp[0], out[0], sub["fail"], sub["params"]
        ctype = "npy_" + node.inputs[0].dtype
        return f"""
        if (PyArray_SIZE({x}) > 64) {{ PyErr_SetString(PyExc_ValueError, "at most 64"); {fail} }}
        {{
            PyArrayObject* src = (PyArrayObject*)PyArray_FROM_OTF((PyObject*){x}, PyArray_TYPE({x}),
                                                                NPY_ARRAY_C_CONTIGUOUS);
            if (!src) {fail}
            int size = run_{name}(({ctype}*)PyArray_DATA(src), PyArray_SIZE(src), {params}->scale);
            Py_DECREF(src);
            if (size != (int)sizeof({ctype})) {{ PyErr_SetString(PyExc_RuntimeError, "wrong body"); {fail} }}
        }}
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS({x}), PyArray_TYPE({x}), 0);
        if (!{z}) {fail}
        memcpy(PyArray_DATA({z}), buffer_{name}, filled_{name} * sizeof({ctype}));
        """

    def c_code_cleanup(self, node, name, inp, out, sub):
        return "(void)element_size();"

    def c_code_cache_version(self):
        return (1,)


def test_struct_members_params_and_cleanup_of_namespaced_nodes_see_their_own_support_code():
    a, b = ot.fvector("a"), ot.dvector("b")
    outs = [StructIm2Col(2)(a), StructIm2Col(4)(b), StructIm2Col(3)(a)]
    source = source_of([a, b], outs)
    assert "struct opkit_members_node_" in source
    f = opkit.function([a, b], outs)
    for _ in range(2):  # the struct's buffer is reused by the next call
        x, y = _data("float32", 9), _data("float64", 5)
        got = f(x, y)
        np.testing.assert_array_equal(got[0], _expected(x, 2))
        np.testing.assert_array_equal(got[1], _expected(y, 4))
        np.testing.assert_array_equal(got[2], _expected(x, 3))
    with pytest.raises(ValueError, match="at most 64"):
        f(np.zeros(65, "float32"), y)


class InitApply(Op):
    """c_init_code_apply calls the node's own (clashing) support code once, at module load."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def c_support_code_apply(self, node, name):
        ctype = "npy_" + node.inputs[0].dtype
        return f"static {ctype} table[4];\nstatic void fill_table() {{ for (int i = 0; i < 4; ++i) " \
               f"table[i] = ({ctype})(i * sizeof({ctype})); }}"

    def c_init_code_apply(self, node, name):
        return "fill_table();"

    def c_code(self, node, name, inp, out, sub):
        x, z, fail = inp[0], out[0], sub["fail"]
        ctype = "npy_" + node.inputs[0].dtype
        return f"""
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS({x}), PyArray_TYPE({x}), 0);
        if (!{z}) {fail}
        for (npy_intp i = 0; i < PyArray_SIZE({z}); ++i)
            (({ctype}*)PyArray_DATA({z}))[i] = *({ctype}*)PyArray_GETPTR1({x}, i) + table[i % 4];
        """

    def c_code_cache_version(self):
        return (1,)


def test_init_code_apply_of_namespaced_nodes():
    a, b, c = ot.fvector("a"), ot.dvector("b"), ot.fvector("c")
    # the third node shares the first's apply code (same op, same types, no params): its namespace too
    f = opkit.function([a, b, c], [InitApply()(a), InitApply()(b), InitApply()(c)])
    x, y = np.ones(6, "float32"), np.ones(5)
    got = f(x, y, x * 2)
    np.testing.assert_array_equal(got[0], 1 + np.array([0, 4, 8, 12, 0, 4], "float32"))
    np.testing.assert_array_equal(got[1], 1 + np.array([0, 8, 16, 24, 0]))
    np.testing.assert_array_equal(got[2], 2 + np.array([0, 4, 8, 12, 0, 4], "float32"))


SECTION_FILE = """
#section support_code
static double opkit_test_half(double v) { return v / 2; }

#section support_code_apply
/* fixed names, bodies from the node's dtype (the section's macros) */
static DTYPE_OUTPUT_0 plus_size(DTYPE_INPUT_0 v) { return (DTYPE_OUTPUT_0)(v + sizeof(DTYPE_INPUT_0)); }

int APPLY_SPECIFIC(run)(PyArrayObject* x, PyArrayObject** out)
{
    Py_XDECREF(*out);
    *out = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS(x), TYPENUM_OUTPUT_0, 0);
    if (*out == NULL) return 1;
    for (npy_intp i = 0; i < PyArray_DIMS(x)[0]; ++i)
        *(DTYPE_OUTPUT_0*)PyArray_GETPTR1(*out, i) =
            plus_size(*(DTYPE_INPUT_0*)PyArray_GETPTR1(x, i)) + (DTYPE_OUTPUT_0)opkit_test_half(0);
    return 0;
}
"""


class SectionPlusSize(COp):
    __props__ = ()

    def __init__(self, path):
        super().__init__(path, "APPLY_SPECIFIC(run)")

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])


def test_section_file_ops_with_fixed_names_in_two_dtypes(tmp_path):
    path = tmp_path / "plus_size.c"
    path.write_text(SECTION_FILE)
    op = SectionPlusSize(str(path))
    a, b, c = ot.fvector("a"), ot.dvector("b"), ot.vector("c", dtype="int16")
    f = opkit.function([a, b, c], [op(a), op(b), op(c), op(a) * 2])
    x, y, z = np.arange(3, dtype="float32"), np.arange(4.0), np.arange(5, dtype="int16")
    got = f(x, y, z)
    np.testing.assert_array_equal(got[0], x + 4)
    np.testing.assert_array_equal(got[1], y + 8)
    np.testing.assert_array_equal(got[2], z + 2)
    np.testing.assert_array_equal(got[3], (x + 4) * 2)


class _SharedSupport(Op):
    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def c_support_code(self):
        return "static double shared_twice(double v) { return 2 * v; }"

    def c_code(self, node, name, inp, out, sub):
        x, z, fail = inp[0], out[0], sub["fail"]
        return f"""
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS({x}), NPY_FLOAT64, 0);
        if (!{z}) {fail}
        for (npy_intp i = 0; i < PyArray_SIZE({z}); ++i)
            ((double*)PyArray_DATA({z}))[i] = shared_twice(*(double*)PyArray_GETPTR1({x}, i)) + {self.add};
        """

    def c_code_cache_version(self):
        return (1,)


class TwiceOne(_SharedSupport):
    add = 1


class TwiceTwo(_SharedSupport):
    add = 2


def test_equal_c_support_code_of_two_op_classes_is_emitted_once():
    x = ot.dvector("x")
    outs = [TwiceOne()(x), TwiceTwo()(x)]
    assert source_of([x], outs).count("static double shared_twice") == 1
    got = opkit.function([x], outs)(np.arange(3.0))
    np.testing.assert_array_equal(got[0], 2 * np.arange(3.0) + 1)
    np.testing.assert_array_equal(got[1], 2 * np.arange(3.0) + 2)


class ExternC(Im2Col):
    """Clashing support code that no namespace separates: extern "C" functions are one entity per name."""

    def c_support_code_apply(self, node, name):
        ctype = "npy_" + node.inputs[0].dtype
        return f'extern "C" void opkit_test_clash(const {ctype}* src, {ctype}* dst) {{ dst[0] = src[0]; }}'

    def c_code(self, node, name, inp, out, sub):
        return f"Py_XDECREF({out[0]}); {out[0]} = {inp[0]}; Py_INCREF({out[0]});"


class ExternCBlock(ExternC):
    def c_support_code_apply(self, node, name):
        ctype = "npy_" + node.inputs[0].dtype
        return f'extern "C" {{\n{ctype} opkit_test_table[2] = {{0, 1}};\n}}'


def test_extern_c_definitions_that_clash_are_an_error_naming_the_nodes():
    a, b = ot.fvector("a"), ot.dvector("b")
    for op, symbol in [(ExternC(), "opkit_test_clash"), (ExternCBlock(), "opkit_test_table")]:
        with pytest.raises(CompileError, match=rf"^the c_support_code_apply of two nodes define {symbol} with C "
                                               rf"linkage \(extern \"C\"\), which no namespace separates:\n  "
                                               rf"node_0 \({type(op).__name__} on float32\)\n  node_1 "
                                               rf"\({type(op).__name__} on float64\)\nHint: drop extern \"C\""):
            opkit.function([a, b], [op(a), op(b)])
    # equal texts are emitted once: no clash
    f = opkit.function([a], [ExternC()(a), ExternC(3)(a)])
    np.testing.assert_array_equal(f(np.ones(2, "float32"))[1], np.ones(2))


class MacroLeak(ExternC):
    """A macro left defined with a node-dependent body: no namespace scopes it."""

    def c_support_code_apply(self, node, name):
        return f"#define OPKIT_TEST_ELEMENT npy_{node.inputs[0].dtype}\nstatic int unused_{name};"


class MacroTidy(ExternC):
    def c_support_code_apply(self, node, name):
        return (f"#define OPKIT_TEST_ELEMENT npy_{node.inputs[0].dtype}\nstatic OPKIT_TEST_ELEMENT first(const "
                f"OPKIT_TEST_ELEMENT* v) {{ return v[0]; }}\n#undef OPKIT_TEST_ELEMENT")


def test_a_macro_left_defined_differently_is_an_error_never_a_silent_last_definition():
    a, b = ot.fvector("a"), ot.dvector("b")
    with pytest.raises(CompileError, match=r"^the c_support_code_apply of two nodes define the macro "
                                           r"OPKIT_TEST_ELEMENT differently, and a macro is not scoped by the "
                                           r"namespace each node's support code gets:\n  node_0 \(MacroLeak on float32\): "
                                           r"#define OPKIT_TEST_ELEMENT npy_float32\n  node_1 \(MacroLeak on "
                                           r"float64\): #define OPKIT_TEST_ELEMENT npy_float64\nThe later definition "
                                           r"would serve both nodes' code\.\nHint: #undef OPKIT_TEST_ELEMENT"):
        opkit.function([a, b], [MacroLeak()(a), MacroLeak()(b)])
    f = opkit.function([a, b], [MacroTidy()(a), MacroTidy()(b)])
    np.testing.assert_array_equal(f(np.ones(2, "float32"), np.zeros(3))[1], np.zeros(3))


class OnlyFloat32(ExternC):
    def c_support_code_apply(self, node, name):
        ctype = "npy_" + node.inputs[0].dtype
        return f'\n#include <vector>\nstatic_assert(sizeof({ctype}) == 4, "this support code is for 4-byte types");\n'


def test_a_compiler_error_in_namespaced_support_code_names_the_node_and_its_line():
    a, b = ot.fvector("a"), ot.dvector("b")
    with pytest.raises(CompileError) as excinfo:
        opkit.function([a, b], [OnlyFloat32()(a), OnlyFloat32()(b)])
    first = excinfo.value.errors[0]
    assert first.startswith("c_support_code_apply of node_1 (OnlyFloat32 on float64):3:")  # its own line numbers
    assert "this support code is for 4-byte types" in first
    assert "node_0" not in str(excinfo.value).split("full source kept")[0].split("\n", 1)[1].split("while")[0]


class InlineOffset(Im2Col):
    """Same-named inline code (a struct's member function: a weak symbol) with a body per dtype."""

    def c_support_code_apply(self, node, name):
        ctype = "npy_" + node.inputs[0].dtype
        return f"""
        #include <algorithm>
        struct Offset {{ static {ctype} value() {{ return ({ctype})(sizeof({ctype}) == 4 ? 1 : 3); }} }};
        static int element_size() {{ return (int)sizeof({ctype}); }}
        void im2col(const {ctype}* src, {ctype}* dst, npy_intp n, npy_int64 scale) {{
            for (npy_intp i = 0; i < n; ++i) dst[i] = ({ctype})(src[i] * ({ctype})scale + Offset::value());
        }}
        """


@pytest.mark.parametrize("incremental", [True, False])
@pytest.mark.parametrize("op_class", [Im2Col, InlineOffset])
def test_big_graphs_with_clashing_support_code(incremental, op_class, caplog, tmp_path):
    """Above QUICK_RUN_ABOVE nodes: node functions, and, incrementally, objects of a few nodes each (each node's
    support code in its own namespace there too, with internal linkage: no other object's stands in for it).
    Each case builds in a cache of its own: the setting is not part of the module's key (both builds compute the
    same), so in a shared cache the second case would load the module the first built."""
    inputs = [ot.vector(f"x_{dtype}", dtype=dtype) for dtype in DTYPES]
    outs, want, values = [], [], [_data(dtype) for dtype in DTYPES]
    for k in range(4):
        for x, value in zip(inputs, values):
            outs.append(op_class(k + 1)(x))
            want.append(_expected(value, k + 1))
    with caplog.at_level(logging.INFO, logger="opkit"):
        with opkit.config.change_flags(incremental=incremental, compiledir=seeded(tmp_path)):
            got = opkit.function(inputs, outs)(*values)
    assert list(tmp_path.rglob("opkit_*.so")), "built here, not loaded from another case's build"
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        assert g.dtype == w.dtype
    assert not [r for r in caplog.records if "incremental build" in r.getMessage()]  # built as planned


class CHeaderInExternC(Im2Col):
    """A C header included in an extern "C" block of the support code: its types must be global for both nodes."""

    def c_support_code_apply(self, node, name):
        ctype = "npy_" + node.inputs[0].dtype
        return f"""
        extern "C" {{
        #include <fenv.h>
        }}
        static int rounding_{node.inputs[0].dtype}() {{ fenv_t env; fegetenv(&env); return fegetround(); }}
        void im2col(const {ctype}* src, {ctype}* dst, npy_intp n, npy_int64 scale) {{
            const {ctype} offset = ({ctype})(sizeof({ctype}) == 4 ? 1 : 3) + 0 * rounding_{node.inputs[0].dtype}();
            for (npy_intp i = 0; i < n; ++i) dst[i] = ({ctype})(src[i] * ({ctype})scale + offset);
        }}
        """


def test_a_system_header_in_an_extern_c_block_serves_both_namespaces():
    a, b = ot.fvector("a"), ot.dvector("b")
    assert 'extern "C" {\n#include <fenv.h>\n}\n// ---- c_support_code_apply' in source_of(
        [a, b], [CHeaderInExternC()(a), CHeaderInExternC()(b)])
    got = opkit.function([a, b], [CHeaderInExternC()(a), CHeaderInExternC()(b)])(_data("float32"), _data("float64"))
    np.testing.assert_array_equal(got[0], _expected(_data("float32")))
    np.testing.assert_array_equal(got[1], _expected(_data("float64")))


COMMON_H = """// a helper header shared by an op package's files, with an include guard
#ifndef OPKIT_TEST_COMMON_H
#define OPKIT_TEST_COMMON_H
struct CommonPair { double a, b; };
static inline double opkit_test_common_twice(double v) { return 2 * v; }
#endif
"""

COMMON_USER = """
#section support_code_apply
#include "common.h"
static DTYPE_OUTPUT_0 plus_common(DTYPE_INPUT_0 v)
{
    CommonPair p = {1, 2};
    return (DTYPE_OUTPUT_0)(opkit_test_common_twice(v) + p.b);
}

int APPLY_SPECIFIC(run)(PyArrayObject* x, PyArrayObject** out)
{
    Py_XDECREF(*out);
    *out = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS(x), TYPENUM_OUTPUT_0, 0);
    if (*out == NULL) return 1;
    for (npy_intp i = 0; i < PyArray_DIMS(x)[0]; ++i)
        *(DTYPE_OUTPUT_0*)PyArray_GETPTR1(*out, i) = plus_common(*(DTYPE_INPUT_0*)PyArray_GETPTR1(x, i));
    return 0;
}
"""


@pytest.mark.parametrize("incremental", [False, True])
def test_a_guarded_header_included_by_two_nodes_support_code_is_global(tmp_path, incremental, caplog):
    (tmp_path / "common.h").write_text(COMMON_H)
    (tmp_path / "plus_common.c").write_text(COMMON_USER)
    op = SectionPlusSize(str(tmp_path / "plus_common.c"))
    inputs = [ot.vector(f"x_{dtype}", dtype=dtype) for dtype in ("float32", "float64", "int32")]
    outs = [op(x) for x in inputs] * (12 if incremental else 1)  # above QUICK_RUN_ABOVE: incremental chunks
    values = [np.arange(4).astype(x.dtype) for x in inputs]
    with caplog.at_level(logging.INFO, logger="opkit"):
        with opkit.config.change_flags(incremental=incremental):
            got = opkit.function(inputs, [o * 1 for o in outs])(*values)
    for g, value in zip(got, values * 12):
        np.testing.assert_array_equal(g, (2 * value + 2).astype(value.dtype))
    assert not [r for r in caplog.records if "incremental build" in r.getMessage()]
