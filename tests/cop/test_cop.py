"""COp end to end: ops whose C lives in `#section` files, compiled for real.

Each distinct graph below is one compiled module; tests that need the same
module build the same graph, so the session cache serves them.
"""

import gc
import os
import pickle
import shutil
import sys
import textwrap
from pathlib import Path

import numpy
import pytest

import opkit
import opkit.tensor
from opkit import CompileError, SectionError
from opkit.cop.source.cop import COp
from opkit.core.tensor.types.type import TensorType
from opkit.core.type import MethodNotDefined

theano = opkit
gof = opkit
DATA = Path(__file__).parents[1] / "data" / "cop"
TUTORIAL_C = DATA.parent / "sections" / "vectorTimesVector.c"


# ---- the tutorial's op, ported by changing imports only ----

class VectorTimesVector(gof.COp):
    __props__ = ()

    func_file = "../data/sections/vectorTimesVector.c"  # the tutorial file, shared with the parser tests
    func_name = "APPLY_SPECIFIC(vector_times_vector)"

    def __init__(self):
        super(VectorTimesVector, self).__init__(self.func_file,
                                                self.func_name)

    def make_node(self, x, y):
        # Validate the inputs' type
        if x.type.ndim != 1:
            raise TypeError('x must be a 1-d vector')
        if y.type.ndim != 1:
            raise TypeError('y must be a 1-d vector')

        # Create an output variable of the same type as x
        output_var = theano.tensor.TensorType(
                        dtype=theano.scalar.upcast(x.dtype, y.dtype),
                        broadcastable=[False])()

        return gof.Apply(self, [x, y], [output_var])


# ---- ops of this file's own C files ----

class CheckedSqrt(COp):
    """sqrt of a vector from a `code` section; a negative input raises ValueError."""

    __props__ = ()

    def __init__(self):
        super().__init__("../data/cop/checked_sqrt.c")

    def make_node(self, x):
        dtype = x.dtype if x.dtype.startswith("float") else "float64"
        return opkit.Apply(self, [x], [TensorType(dtype, (None,))()])


class CallCounter(COp):
    """Return how often this compiled function has run: state kept in init_code_struct."""

    __props__ = ()

    def __init__(self):
        super().__init__(["../data/cop/call_counter.c"])

    def make_node(self, x):
        return opkit.Apply(self, [x], [TensorType("int64", ())()])


class _Elementwise(COp):
    """A float64 vector op computed by the function APPLY_SPECIFIC(run) of `func_file`."""

    __props__ = ()
    func_file = None

    def __init__(self):
        super().__init__(self.func_file, "APPLY_SPECIFIC(run)")

    def make_node(self, x):
        return opkit.Apply(self, [x], [opkit.tensor.dvector()])


class HelperA(_Elementwise):
    func_file = "../data/cop/helper_a.c"       # 2 * x + 1


class HelperB(_Elementwise):
    func_file = "../data/cop/helper_b.c"       # (x + 10) * 3; empty input fails silently


class FromPath(COp):
    """An op over float64 vectors whose C file and function are given at construction."""

    __props__ = ("func_files", "func_name")

    def __init__(self, path, func_name=None):
        super().__init__(path, func_name)

    def make_node(self, x):
        return opkit.Apply(self, [x], [opkit.tensor.dvector()])


def tutorial_graph():
    """Compile VectorTimesVector for float64, float32 x int16 and int32 inputs in one graph."""
    op = VectorTimesVector()
    x, y = opkit.tensor.dvector("x"), opkit.tensor.dvector("y")
    a, b = opkit.tensor.fvector("a"), opkit.tensor.vector("b", dtype="int16")
    i, j = opkit.tensor.ivector("i"), opkit.tensor.ivector("j")
    outputs = [op(x, y), op(a, b), op(i, j)]
    return opkit.function([x, y, a, b, i, j], outputs), outputs


def write(directory, name, text):
    """Write dedented text to directory/name and return its path."""
    path = Path(directory) / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


# ---- the tutorial ----

def test_tutorial_op_runs_for_several_dtypes_in_one_graph():
    f, outputs = tutorial_graph()
    assert [o.dtype for o in outputs] == ["float64", "float32", "int32"]
    assert len(f.maker.fgraph.toposort()) == 3
    x, y = numpy.arange(5.0), numpy.linspace(0, 1, 5)
    a, b = numpy.arange(5, dtype="float32") / 2, numpy.arange(-2, 3, dtype="int16")
    i, j = numpy.arange(5, dtype="int32"), numpy.arange(10, 15, dtype="int32")
    r1, r2, r3 = f(x, y, a, b, i, j)
    assert (r1.dtype, r2.dtype, r3.dtype) == (numpy.float64, numpy.float32, numpy.int32)
    numpy.testing.assert_allclose(r1, x * y)
    numpy.testing.assert_allclose(r2, a * b)
    numpy.testing.assert_array_equal(r3, i * j)
    strided = numpy.arange(10.0)[::2]
    numpy.testing.assert_allclose(f(strided, y, a, b, i, j)[0], strided * y)


def test_tutorial_op_raises_its_shape_mismatch_value_error():
    f, _ = tutorial_graph()
    ok = [numpy.ones(2), numpy.ones(2), numpy.ones(2, "float32"), numpy.ones(2, "int16"),
          numpy.ones(2, "int32"), numpy.ones(2, "int32")]
    bad = list(ok)
    bad[5] = numpy.ones(3, "int32")
    with pytest.raises(ValueError, match=r"Shape mismatch : input0.shape\[0\] and input1.shape\[0\] "
                                         r"should match but x.shape\[0\] == 2 and y.shape\[0\] == 3"):
        f(*bad)
    numpy.testing.assert_array_equal(f(*ok)[2], numpy.ones(2))


def test_tutorial_op_one_module_per_node_with_the_cop_linker():
    x, y = opkit.tensor.dvector("x"), opkit.tensor.dvector("y")
    f = opkit.function([x, y], VectorTimesVector()(x, y), mode=opkit.Mode(linker="cop"))
    numpy.testing.assert_allclose(f(numpy.arange(3.0), numpy.arange(3.0)), [0.0, 1.0, 4.0])


def test_relative_files_resolve_against_the_defining_module_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    op = VectorTimesVector()
    assert op.func_files == (str(TUTORIAL_C),)
    assert op.c_header_dirs() == [str(TUTORIAL_C.parent)]
    f, _ = tutorial_graph()
    dtypes = ("float64", "float64", "float32", "int16", "int32", "int32")
    assert f(*[numpy.full(1, 3, d) for d in dtypes])[1] == 9.0


def test_generated_c_wraps_each_section_in_line_directive_and_balanced_macros():
    op = VectorTimesVector()
    x, y = opkit.tensor.fvector(), opkit.tensor.vector(dtype="int16")
    node = op.make_node(x, y)
    path = str(TUTORIAL_C)
    support = op.c_support_code()
    assert support.startswith(f'#line 2 "{path}"\n') and "#define" not in support
    apply = op.c_support_code_apply(node, "node_7")
    assert "#define APPLY_SPECIFIC(str) str##_node_7\n" in apply
    assert "#define DTYPE_INPUT_1 npy_int16\n" in apply and "#define TYPENUM_OUTPUT_0 NPY_FLOAT32\n" in apply
    assert f'#line 8 "{path}"\n' in apply
    defined = [line.split()[1].split("(")[0] for line in apply.splitlines() if line.startswith("#define")]
    undefined = [line.split()[1] for line in apply.splitlines() if line.startswith("#undef")]
    assert sorted(defined) == sorted(undefined)
    code = op.c_code(node, "node_7", ["V0", "V1"], ["V2"], {"fail": "{ goto fail; }"})
    assert "if (APPLY_SPECIFIC(vector_times_vector)(V0, V1, &V2) != 0) {" in code
    assert code.index("#define APPLY_SPECIFIC") < code.index("vector_times_vector)(") < code.index(
        "#undef APPLY_SPECIFIC")
    assert op.c_code_cleanup(node, "node_7", ["V0", "V1"], ["V2"], {"fail": ""}) == ""
    op.check_input = False
    assert "#define DTYPE_" not in op.c_support_code_apply(node, "node_7")


def test_op_is_named_by_its_class_compares_equal_and_pickles():
    op = VectorTimesVector()
    assert str(op) == "VectorTimesVector"
    assert op == VectorTimesVector() and hash(op) == hash(VectorTimesVector())
    clone = pickle.loads(pickle.dumps(op))
    assert clone == op and clone.func_files == op.func_files
    assert clone.code_sections == op.code_sections


# ---- sections with macros: code, struct state ----

def test_code_section_with_io_names_fail_and_dtype_macros():
    x, n = opkit.tensor.fvector("x"), opkit.tensor.ivector("n")
    op = CheckedSqrt()
    f = opkit.function([x, n], [op(x), op(n)])
    rx, rn = f(numpy.array([4, 9, 2], "float32"), numpy.array([16, 0], "int32"))
    assert (rx.dtype, rn.dtype) == (numpy.float32, numpy.float64)
    numpy.testing.assert_allclose(rx, numpy.sqrt([4, 9, 2]).astype("float32"))
    numpy.testing.assert_array_equal(rn, [4.0, 0.0])
    with pytest.raises(ValueError, match="CheckedSqrt: negative input at index 1"):
        f(numpy.array([1, -3], "float32"), numpy.array([1], "int32"))
    numpy.testing.assert_array_equal(f(numpy.ones(1, "float32"), numpy.ones(1, "int32"))[1], [1.0])


def test_every_tag_reaches_its_c_method():
    op = CheckedSqrt()
    node = op.make_node(opkit.tensor.fvector())
    sub = {"fail": "{ return -1; }"}
    assert op.has_c_code(node)
    [init] = op.c_init_code()
    assert "checked_sqrt_module_ready = 1;" in init and "#define" not in init
    assert "#define APPLY_SPECIFIC(str) str##_n\n" in op.c_init_code_apply(node, "n")
    cleanup = op.c_code_cleanup(node, "n", ["V0"], ["V1"], sub)
    assert "#define INPUT_0 V0\n" in cleanup and "#define FAIL { { return -1; } }\n" in cleanup
    assert op.c_init_code_struct(node, "n", sub) == op.c_cleanup_code_struct(node, "n") == ""


def test_files_without_code_or_func_name_give_no_c_code(tmp_path):
    op = FromPath(str(write(tmp_path, "support_only.c", "#section support_code\nint x;\n")))
    node = op.make_node(opkit.tensor.dvector())
    assert not op.has_c_code(node)
    with pytest.raises(MethodNotDefined):
        op.c_code(node, "n", ["V0"], ["V1"], {"fail": ""})


def test_struct_state_lives_per_function_and_is_freed_with_it(tmp_path, monkeypatch):
    log = tmp_path / "cleanup.log"
    monkeypatch.setenv("OPKIT_TEST_COP_LOG", str(log))
    x = opkit.tensor.dvector("x")
    out = CallCounter()(x)
    first, second = opkit.function([x], out), opkit.function([x], out)
    data = numpy.zeros(2)
    assert [int(first(data)) for _ in range(3)] == [1, 2, 3]
    assert int(second(data)) == 1          # its own state, not the first function's
    assert not log.exists()
    del first
    gc.collect()
    assert log.read_text() == "freed after 3 calls\n"
    del second
    gc.collect()
    assert log.read_text() == "freed after 3 calls\nfreed after 1 calls\n"


# ---- two ops, two files, the same APPLY_SPECIFIC names ----

def two_helper_graph():
    x = opkit.tensor.dvector("x")
    return opkit.function([x], HelperB()(HelperA()(x)))


def test_ops_from_two_files_with_the_same_apply_specific_names_share_a_module():
    f = two_helper_graph()
    assert [type(n.op) for n in f.maker.fgraph.toposort()] == [HelperA, HelperB]
    numpy.testing.assert_allclose(f(numpy.array([0.0, 1.0, -2.0])), [33.0, 39.0, 21.0])
    assert HelperA().c_support_code() != HelperB().c_support_code()


def test_func_returning_nonzero_without_an_exception_raises_runtime_error():
    f = two_helper_graph()
    with pytest.raises(RuntimeError, match=r"HelperB: APPLY_SPECIFIC\(run\) returned non-zero "
                                           "without setting a Python exception"):
        f(numpy.zeros(0))
    numpy.testing.assert_allclose(f(numpy.zeros(1)), [33.0])


# ---- errors point at the user's file ----

def test_section_errors_name_file_and_line(tmp_path):
    cases = [
        ("unknown.c", "#section support_code\nint x;\n#section suport_code_apply\n", None, 3,
         "unknown section tag 'suport_code_apply'; did you mean 'support_code_apply'"),
        ("stray.c", "// fine\nint x;\n#section support_code\n", None, 2, "code before the first"),
        ("empty.c", "int x;\n", None, 1, "no '#section <tag>' line"),
        ("both.c", "#section support_code\n\n#section code\nz = 1;\n", "f", 3,
         "'#section code' cannot be combined with func_name 'f'"),
    ]
    for name, text, func_name, line, message in cases:
        path = write(tmp_path, name, text)
        with pytest.raises(SectionError, match=message) as excinfo:
            FromPath(str(path), func_name)
        assert (excinfo.value.path, excinfo.value.line) == (str(path), line)
        assert str(excinfo.value).startswith(f"{path}:{line}: ")
        assert isinstance(excinfo.value, ValueError)


def test_missing_file_names_the_path_resolved_against_the_op_module():
    class Missing(COp):
        def __init__(self):
            super().__init__("../data/cop/no_such_file.c")

    with pytest.raises(SectionError, match="cannot read C section file") as excinfo:
        Missing()
    assert excinfo.value.path == str(DATA / "no_such_file.c")


def test_bad_func_name_is_rejected_at_construction():
    with pytest.raises(ValueError, match="func_name must name a C function"):
        FromPath(str(DATA / "helper_a.c"), "run(x); evil()")


def test_compile_error_names_the_users_file_and_line(tmp_path):
    path = write(tmp_path, "broken.c", """
        #section support_code_apply
        int APPLY_SPECIFIC(broken)(PyArrayObject* x, PyArrayObject** out)
        {
            *out = NULL;
            return undeclared_name_in_user_code;
        }
        """)
    x = opkit.tensor.dvector("x")
    with pytest.raises(CompileError) as excinfo:
        opkit.function([x], FromPath(str(path), "APPLY_SPECIFIC(broken)")(x))
    assert f"{path}:5" in str(excinfo.value)
    assert excinfo.value.errors[0].startswith(f"{path}:5:")
    assert "undeclared_name_in_user_code" in excinfo.value.errors[0]


def test_error_in_generated_code_after_a_section_names_the_generated_line(tmp_path):
    path = write(tmp_path, "wrong_signature.c", """
        #section support_code_apply
        int APPLY_SPECIFIC(one_argument)(PyArrayObject* x)
        {
            return 0;
        }
        """)
    x = opkit.tensor.dvector("x")
    with pytest.raises(CompileError) as excinfo:
        opkit.function([x], FromPath(str(path), "APPLY_SPECIFIC(one_argument)")(x))
    first = excinfo.value.errors[0]
    assert "too many arguments" in first and "wrong_signature.c" not in first
    file, line = first.split(":")[:2]
    kept = Path(excinfo.value.source_path)
    assert file == kept.name
    assert "APPLY_SPECIFIC(one_argument)(V0, &V1)" in kept.read_text().splitlines()[int(line) - 1]


# ---- the cache follows the files ----

def test_editing_only_a_nested_header_recompiles(tmp_path):
    shutil.copytree(DATA / "header", tmp_path / "op")
    op = FromPath(str(tmp_path / "op" / "scaled.c"), "APPLY_SPECIFIC(scale)")
    assert op.c_header_dirs() == [str(tmp_path / "op")]
    x = opkit.tensor.dvector("x")
    before = opkit.function([x], op(x))
    version = op.c_code_cache_version()
    numpy.testing.assert_array_equal(before(numpy.array([1.0, 2.0])), [2.0, 4.0])

    (tmp_path / "op" / "factor.h").write_text("#pragma once\n#define FACTOR 5\n")
    assert op.c_code_cache_version() != version
    after = opkit.function([x], FromPath(str(tmp_path / "op" / "scaled.c"), "APPLY_SPECIFIC(scale)")(x))
    numpy.testing.assert_array_equal(after(numpy.array([1.0, 2.0])), [5.0, 10.0])
    assert type(after._runner).__module__ != type(before._runner).__module__
    numpy.testing.assert_array_equal(before(numpy.array([1.0])), [2.0])   # old module still loaded


def test_an_op_keeps_the_code_it_parsed_and_a_new_op_gets_the_edited_file(tmp_path):
    shutil.copytree(DATA / "header", tmp_path / "op")
    source = tmp_path / "op" / "scaled.c"
    x, data = opkit.tensor.dvector("x"), numpy.array([1.0])
    old_op = FromPath(str(source), "APPLY_SPECIFIC(scale)")
    source.write_text(source.read_text().replace("= SCALE *", "= -SCALE *"))
    # The op renders what it parsed at construction, whatever the file says now ...
    numpy.testing.assert_array_equal(opkit.function([x], old_op(x))(data), [2.0])
    # ... and that must not be what a new op, parsed from the edited file, gets.
    new_op = FromPath(str(source), "APPLY_SPECIFIC(scale)")
    numpy.testing.assert_array_equal(opkit.function([x], new_op(x))(data), [-2.0])


# ---- ops shipped inside a package ----

def test_op_in_a_package_finds_its_files_from_any_directory(tmp_path, monkeypatch):
    package = tmp_path / "site" / "cop_pkg_for_tests"
    (package / "c").mkdir(parents=True)
    shutil.copy(TUTORIAL_C, package / "c" / "vtv.c")
    write(package, "__init__.py", """
        import opkit

        class PackagedOp(opkit.COp):
            def __init__(self):
                super().__init__("c/vtv.c", "APPLY_SPECIFIC(vector_times_vector)")
        """)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "cop_pkg_for_tests", raising=False)
    import cop_pkg_for_tests

    assert cop_pkg_for_tests.PackagedOp().func_files == (str(package / "c" / "vtv.c"),)

    class Derived(cop_pkg_for_tests.PackagedOp):
        """Defined in another directory: the base class's directory still finds the file."""

    assert Derived().func_files == (str(package / "c" / "vtv.c"),)
    assert os.path.isabs(Derived().c_header_dirs()[0])
