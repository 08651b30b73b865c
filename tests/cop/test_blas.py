"""BLAS for C ops: config.blas__ldflags, opkit_blas.h, Theano's helpers, the wheel's BLAS, opkit doctor.

The ops here are written as Theano's BLAS ops are: blas_header_text() in their
support code, ldflags() from c_libraries, c_lib_dirs and c_compile_args. Each
real C op calls dgemm_/sgemm_ (Fortran) or cblas_dgemm/cblas_sgemm and is
compared with numpy's matmul.
"""

import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opkit
import opkit.tensor as ot
from opkit import Apply, Op
from opkit.config import Config, config
from opkit.core.type import MethodNotDefined
from opkit.cop import blas
from opkit.cop.toolchain.compiler import find_compiler

C_LINKER = opkit.Mode(linker="c", optimizer=None)
HERE = pathlib.Path(__file__).resolve().parent
# The C of a gemm call: row-major out (m x n) = a (m x k) @ b (k x n), as the column-major out.T = b.T @ a.T.
# An input that is C-contiguous is read as is, a Fortran-contiguous one through the transposed flag,
# any other layout from a C-contiguous copy.
GEMM_C = """
PyArrayObject* a = {a}; PyArrayObject* b = {b};
int a_c = PyArray_IS_C_CONTIGUOUS(a), a_f = !a_c && PyArray_IS_F_CONTIGUOUS(a);
int b_c = PyArray_IS_C_CONTIGUOUS(b), b_f = !b_c && PyArray_IS_F_CONTIGUOUS(b);
a = (a_c || a_f) ? (Py_INCREF(a), a) : (PyArrayObject*)PyArray_NewCopy(a, NPY_CORDER);
b = (b_c || b_f) ? (Py_INCREF(b), b) : (PyArrayObject*)PyArray_NewCopy(b, NPY_CORDER);
if (!a || !b) {{ Py_XDECREF(a); Py_XDECREF(b); {fail} }}
int m = (int)PyArray_DIM(a, 0), k = (int)PyArray_DIM(a, 1), n = (int)PyArray_DIM(b, 1);
if (PyArray_DIM(b, 0) != k) {{
    Py_DECREF(a); Py_DECREF(b);
    PyErr_SetString(PyExc_ValueError, "gemm: shapes do not match"); {fail}
}}
npy_intp dims[2] = {{m, n}};
Py_XDECREF({out});
{out} = (PyArrayObject*)PyArray_ZEROS(2, dims, {typenum}, 0);
if (!{out}) {{ Py_DECREF(a); Py_DECREF(b); {fail} }}
if (m > 0 && n > 0) {{
    {ctype} one = 1, zero = 0;
    int lda = a_f ? (m > 1 ? m : 1) : (k > 1 ? k : 1);
    int ldb = b_f ? (k > 1 ? k : 1) : (n > 1 ? n : 1);
    int ldc = n > 1 ? n : 1;
    {call}
}}
Py_DECREF(a); Py_DECREF(b);
"""
FORTRAN_CALL = """char ta = a_f ? 'T' : 'N', tb = b_f ? 'T' : 'N';
    {p}gemm_(&tb, &ta, &n, &m, &k, &one, ({ctype}*)PyArray_DATA(b), &ldb, ({ctype}*)PyArray_DATA(a), &lda,
             &zero, ({ctype}*)PyArray_DATA({out}), &ldc);"""
CBLAS_CALL = """cblas_{p}gemm(CblasColMajor, b_f ? CblasTrans : CblasNoTrans, a_f ? CblasTrans : CblasNoTrans,
                  n, m, k, one, ({ctype}*)PyArray_DATA(b), ldb, ({ctype}*)PyArray_DATA(a), lda,
                  zero, ({ctype}*)PyArray_DATA({out}), ldc);"""


class BlasGemm(Op):
    """out = a @ b through the BLAS of config.blas__ldflags, Theano's way (interface: fortran or cblas)."""

    __props__ = ("interface",)

    def __init__(self, interface="fortran"):
        self.interface = interface

    def make_node(self, a, b):
        a, b = ot.as_tensor_variable(a), ot.as_tensor_variable(b)
        assert a.dtype == b.dtype and a.dtype in ("float32", "float64") and a.ndim == b.ndim == 2
        return Apply(self, [a, b], [ot.matrix(dtype=a.dtype)])

    def c_support_code(self, **kwargs):
        return blas.blas_header_text()

    def c_libraries(self, c_compiler=None):
        return blas.ldflags()

    def c_lib_dirs(self, c_compiler=None):
        return blas.ldflags(libs=False, libs_dir=True)

    def c_header_dirs(self, c_compiler=None):
        return blas.ldflags(libs=False, include_dir=True)

    def c_compile_args(self, c_compiler=None):
        return blas.ldflags(libs=False, flags=True)

    def c_code(self, node, name, inputs, outputs, sub):
        (a, b), (out,) = inputs, outputs
        dtype = node.inputs[0].dtype
        ctype, p, typenum = ("float", "s", "NPY_FLOAT32") if dtype == "float32" else ("double", "d", "NPY_FLOAT64")
        call = (FORTRAN_CALL if self.interface == "fortran" else CBLAS_CALL).format(p=p, ctype=ctype, out=out)
        return GEMM_C.format(a=a, b=b, out=out, fail=sub["fail"], typenum=typenum, ctype=ctype, call=call)

    def c_code_cache_version(self):
        return (1, blas.blas_header_version())


class HeaderGemm(BlasGemm):
    """The same op reading opkit_blas.h as a header file instead of the header text."""

    def c_support_code(self, **kwargs):
        return ""

    def c_headers(self, c_compiler=None):
        return [blas.HEADER]

    def c_header_dirs(self, c_compiler=None):
        return [blas.include_dir()]


def gemm_function(dtype, op):
    a, b = ot.matrix("a", dtype=dtype), ot.matrix("b", dtype=dtype)
    return opkit.function([a, b], op(a, b), mode=C_LINKER)


def layouts(rng, shape, dtype):
    """Yield (name, array) of `shape` in several layouts: C, Fortran (a transposed view), strided, reversed."""
    base = rng.standard_normal(shape).astype(dtype)
    yield "C", base
    yield "Fortran", np.asfortranarray(base)
    yield "transposed", np.ascontiguousarray(base.T).T
    yield "strided", rng.standard_normal((shape[0] * 2, shape[1] * 3)).astype(dtype)[::2, ::3]
    yield "reversed", base[::-1, ::-1]


def assert_matches_matmul(result, a, b):
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64))
    assert result.shape == expected.shape and result.dtype == a.dtype
    tol = 1e-5 if a.dtype == np.float32 else 1e-12
    scale = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64) + 1
    assert np.all(np.abs(result - expected) <= tol * scale), (result, expected)


SHAPES = [(1, 1, 1), (3, 5, 7), (17, 1, 9), (2, 33, 1), (65, 31, 7), (0, 4, 3), (4, 0, 3), (4, 3, 0), (0, 0, 0)]


@pytest.mark.parametrize("interface", ["fortran", "cblas"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gemm_through_the_blas_matches_numpy(interface, dtype, opkit_rng):
    f = gemm_function(dtype, BlasGemm(interface))
    for m, k, n in SHAPES:
        for (a_layout, a), (b_layout, b) in zip(layouts(opkit_rng, (m, k), dtype), layouts(opkit_rng, (k, n), dtype)):
            assert_matches_matmul(f(a, b), a, b)
        a = opkit_rng.standard_normal((m, k)).astype(dtype)
        for _, b in layouts(opkit_rng, (k, n), dtype):  # every layout of b against a C-contiguous a
            assert_matches_matmul(f(a, b), a, b)


def test_the_header_file_route_gives_the_same_numbers(opkit_rng):
    f = gemm_function("float64", HeaderGemm("cblas"))
    a, b = opkit_rng.standard_normal((5, 3)), opkit_rng.standard_normal((3, 4))
    assert_matches_matmul(f(a, b), a, b)
    assert_matches_matmul(f(a.T.copy().T, b[::-1]), a, b[::-1])


@settings(max_examples=40, deadline=None)
@given(m=st.integers(0, 12), k=st.integers(0, 12), n=st.integers(0, 12), a_order=st.sampled_from("CFS"),
       b_order=st.sampled_from("CFS"), seed=st.integers(0, 2**32 - 1))
def test_gemm_matches_numpy_for_any_shape_and_layout(m, k, n, a_order, b_order, seed):
    f = _fortran_float64_gemm()
    rng = np.random.default_rng(seed)

    def make(shape, order):
        if order == "S":  # a strided view: neither C- nor Fortran-contiguous (unless a dimension is 0 or 1)
            return rng.standard_normal((shape[0], shape[1] * 2))[:, ::2]
        return np.array(rng.standard_normal(shape), order=order)

    a, b = make((m, k), a_order), make((k, n), b_order)
    assert_matches_matmul(f(a, b), a, b)


_compiled = {}


def _fortran_float64_gemm():
    if "f" not in _compiled:
        _compiled["f"] = gemm_function("float64", BlasGemm("fortran"))
    return _compiled["f"]


def _modules(compiledir):
    """Return the cache entries of compiled graphs (not opkit's own call-path module, made once per cache)."""
    return sorted(p.parent for p in pathlib.Path(compiledir).rglob("meta.json")
                  if '"description": "graph of' in p.read_text())


def test_a_fresh_process_loads_the_cached_module_without_ld_library_path(seeded_compiledir, opkit_rng):
    f = gemm_function("float64", BlasGemm("fortran"))
    a, b = opkit_rng.standard_normal((4, 3)), opkit_rng.standard_normal((3, 2))
    assert_matches_matmul(f(a, b), a, b)
    before = _modules(seeded_compiledir)
    libraries = [p for d in before for p in d.iterdir() if p.suffix == ".so"]
    assert libraries
    wheel_dirs = blas.ldflags(libs=False, libs_dir=True)
    # The module records where its BLAS is: an rpath (or runpath) to the library's directory.
    dynamic = subprocess.run(["readelf", "-d", str(libraries[0])], capture_output=True, text=True).stdout
    assert all(d in dynamic for d in wheel_dirs), dynamic
    script = (f"import sys; sys.path.insert(0, {str(HERE)!r})\n"
              "import numpy as np, opkit\nfrom test_blas import BlasGemm, gemm_function\n"
              "a = np.arange(12.0).reshape(4, 3); b = np.arange(6.0).reshape(3, 2)\n"
              "assert np.allclose(gemm_function('float64', BlasGemm('fortran'))(a, b), a @ b)\nprint('ok')\n")
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "OPKIT_FLAGS")}
    env["OPKIT_COMPILEDIR"] = str(seeded_compiledir)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr
    assert _modules(seeded_compiledir) == before  # loaded from the cache, not compiled again


def test_another_blas_is_another_module(seeded_compiledir, tmp_path, opkit_rng):
    f = gemm_function("float64", BlasGemm("cblas"))
    a, b = opkit_rng.standard_normal((3, 3)), opkit_rng.standard_normal((3, 2))
    assert_matches_matmul(f(a, b), a, b)
    first = _modules(seeded_compiledir)
    # The same library from another directory: other link flags (a link named as its soname, which loads it).
    parts = blas._parts(config.blas__ldflags)
    library = pathlib.Path(parts["dirs"][0]) / f"lib{parts['libs'][0]}.so"
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / library.name).symlink_to(library)
    with config.change_flags(blas__ldflags=f"-L{tmp_path / 'lib'} -l{parts['libs'][0]}"):
        g = gemm_function("float64", BlasGemm("cblas"))
        assert_matches_matmul(g(a, b), a, b)
        assert len(_modules(seeded_compiledir)) == len(first) + 1
    assert_matches_matmul(gemm_function("float64", BlasGemm("cblas"))(a, b), a, b)
    assert len(_modules(seeded_compiledir)) == len(first) + 1  # the first module again


@pytest.fixture
def wheel_flags():
    flags = blas._wheel_flags()
    assert flags, "the scipy-openblas32 wheel is a test dependency"
    return flags


def test_the_flag_reads_and_sets_under_both_spellings(wheel_flags):
    assert config.blas.ldflags == config.blas__ldflags
    assert "blas" in dir(config) and "blas__ldflags" in dir(config) and dir(config.blas) == ["ldflags"]
    before = config.blas__ldflags
    try:
        config.blas.ldflags = "-lopenblas"
        assert config.blas__ldflags == "-lopenblas" == config.blas.ldflags
        with config.change_flags(blas__ldflags=wheel_flags):
            assert config.blas.ldflags == wheel_flags
        assert config.blas.ldflags == "-lopenblas"
        config.blas__ldflags = "  -L/opt/my\\ blas/lib   -lblas "  # the text is kept, trimmed
        assert config.blas.ldflags == "-L/opt/my\\ blas/lib   -lblas"
        assert blas._parts(config.blas.ldflags)["dirs"] == ["/opt/my blas/lib"]
    finally:
        config.blas__ldflags = before


@pytest.mark.parametrize("value", ["openblas", "-1", "-L/x -lblas nonsense", "'-lblas"])
def test_flag_values_that_are_not_link_flags_are_refused(value):
    with pytest.raises(ValueError, match=re.escape(f"opkit flag blas__ldflags={value!r} must be link flags")):
        Config(environ={"OPKIT_FLAGS": f"blas__ldflags={value}"})
    with pytest.raises(ValueError, match="must be link flags"):
        config.blas.ldflags = value


def run_python(code, **environ):
    env = {k: v for k, v in os.environ.items() if k not in ("OPKIT_FLAGS", "LD_LIBRARY_PATH")}
    env.update(environ)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


def test_opkit_flags_sets_the_blas_flags(wheel_flags, tmp_path):
    assert Config(environ={"OPKIT_FLAGS": f"floatX=float32, blas__ldflags={wheel_flags}"}).blas.ldflags == wheel_flags
    code = ("import opkit, sys\nfrom opkit.cop import blas\n"
            "print(opkit.config.blas.ldflags); print(opkit.config.blas__ldflags); print(blas.ldflags())\n"
            "print('detected' if blas._detected is not None else 'not detected')")
    run = run_python(code, OPKIT_FLAGS="blas__ldflags=-L/nowhere -lmyblas", OPKIT_COMPILEDIR=str(tmp_path))
    assert run.returncode != 0 and "config.blas__ldflags='-L/nowhere -lmyblas' does not give a working BLAS" \
        in run.stderr
    assert run.stdout.splitlines() == ["-L/nowhere -lmyblas"] * 2
    run = run_python(code, OPKIT_FLAGS=f"blas__ldflags={wheel_flags}", OPKIT_COMPILEDIR=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [wheel_flags, wheel_flags, str(blas._parts(wheel_flags)["libs"]),
                                       "not detected"]


def test_import_opkit_finds_no_blas_until_the_flag_is_read(tmp_path):
    # config imports no module above it: the opkit package installs the finder, which imports opkit.cop.blas
    code = ("import sys, opkit\nassert 'opkit.cop.blas' not in sys.modules\n"
            "assert 'found on first use' in repr(opkit.config)\n"
            "with opkit.config.change_flags(blas__ldflags='-lblas'):\n    pass\n"
            "assert 'opkit.cop.blas' not in sys.modules and 'found on first use' in repr(opkit.config)\n"  # a check only
            "print(opkit.config.blas.ldflags)")
    run = run_python(code, OPKIT_COMPILEDIR=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == blas.detect_ldflags()


def test_a_flag_without_a_finder_says_so_and_what_to_set():
    from opkit.config import _Detected

    with pytest.raises(RuntimeError, match=r"blas__ldflags: the BLAS is found on first use by a finder .* none is "
                                           r"installed: set blas__ldflags"):
        _Detected("the BLAS").value("blas__ldflags")


def test_the_blas_found_here_works_and_is_kept(tmp_path, monkeypatch):
    with config.change_flags(compiledir=str(tmp_path)):
        found = blas.detect_ldflags()
        assert found and "fortran=ok" in blas.verify(found)
        assert len(list((tmp_path / "host").glob("blas-detect-*"))) == 1

        def look_again(*args):
            raise AssertionError("the kept answer was not used")

        monkeypatch.setattr(blas, "_first_working", look_again)
        assert blas.detect_ldflags() == found
    compiler = find_compiler()
    if not blas._environment_dirs() and not any(blas._compiler_finds(compiler, n) for n in (*blas.TUNED, "blas")):
        assert found == blas._wheel_flags()  # no system BLAS: the wheel


def test_flags_that_link_no_blas_are_an_error_that_says_what_to_do(opkit_rng):
    with config.change_flags(blas__ldflags="-lno_such_blas"):
        with pytest.raises(blas.BlasError) as excinfo:
            gemm_function("float64", BlasGemm("fortran"))
    message = str(excinfo.value)
    assert message.startswith("config.blas__ldflags='-lno_such_blas' does not give a working BLAS: a test program "
                              "calling dgemm_ with these flags failed:")
    assert "-lno_such_blas" in message.splitlines()[1]
    assert "fix: set blas__ldflags to flags that link a BLAS with 32-bit integers" in message
    assert "pip install 'opkit-sdk[blas]'" in message and "opkit doctor" in message
    assert isinstance(excinfo.value, opkit.CompileError)


def test_a_library_that_is_no_blas_is_refused(tmp_path):
    (tmp_path / "lib").mkdir()
    source = tmp_path / "notblas.cpp"
    source.write_text('extern "C" int not_a_blas(void) { return 1; }\n')
    subprocess.run([*find_compiler().command, "-shared", "-fPIC", str(source), "-o",
                    str(tmp_path / "lib" / "libnotblas.so")], check=True)
    with config.change_flags(blas__ldflags=f"-L{tmp_path / 'lib'} -lnotblas"):
        with pytest.raises(blas.BlasError, match="undefined reference to `dgemm_'"):
            blas.ldflags()


class GemmOrPerform(BlasGemm):
    """PyTensor's pattern: no C code without a BLAS, and perform() instead."""

    def c_code(self, node, name, inputs, outputs, sub):
        if not config.blas.ldflags:
            raise MethodNotDefined("c_code", type(self), "no BLAS")
        return super().c_code(node, name, inputs, outputs, sub)

    def perform(self, node, inputs, outputs):
        outputs[0][0] = np.matmul(*inputs)


def test_empty_flags_mean_no_blas(opkit_rng):
    a, b = opkit_rng.standard_normal((3, 4)), opkit_rng.standard_normal((4, 2))
    with config.change_flags(blas__ldflags=""):
        assert config.blas.ldflags == "" and blas.ldflags() == [] and blas.ldflags(libs_dir=True) == []
        assert blas.ldflags(libs=False, flags=True) == [f"-D{blas.NO_BLAS}"]
        assert blas.blas_header_text().startswith(f"#ifndef {blas.NO_BLAS}\n#define {blas.NO_BLAS} 1\n")
        # An op that calls a BLAS routine anyway: a compile error that says how to get a BLAS.
        for op in (BlasGemm("fortran"), BlasGemm("cblas"), HeaderGemm("fortran")):
            with pytest.raises(opkit.CompileError) as excinfo:
                gemm_function("float64", op)
            message = str(excinfo.value)
            assert "no BLAS: opkit.config.blas__ldflags is empty; pip install 'opkit-sdk[blas]'" in message, message
            assert re.search(r"call to .(cblas_)?dgemm_?. declared with attribute error", message), message
        # An op that tests the flag and has perform() runs without a BLAS (in Python: FAST_COMPILE).
        f = opkit.function([x := ot.dmatrix("x"), y := ot.dmatrix("y")], GemmOrPerform()(x, y), mode="FAST_COMPILE")
        assert_matches_matmul(f(a, b), a, b)


def doctor(**environ):
    env = {k: v for k, v in os.environ.items() if k != "OPKIT_FLAGS"}
    env.update(environ)
    run = subprocess.run([sys.executable, "-m", "opkit", "doctor"], capture_output=True, text=True, env=env,
                         timeout=300)
    lines = [line for line in run.stdout.splitlines() if re.match(r"(ok  |FAIL)  BLAS ", line)]
    assert len(lines) == 1, run.stdout + run.stderr
    return run.returncode, re.sub(r"\s+", " ", lines[0])


def test_doctor_names_the_blas_in_use(tmp_path, wheel_flags):
    code, line = doctor(OPKIT_COMPILEDIR=str(tmp_path))
    found = blas.detect_ldflags()
    assert line.startswith(f"ok BLAS {blas.blas_name(found)}, Fortran and CBLAS: {found} (found by opkit; "
                           "OPKIT_FLAGS=blas__ldflags=... chooses another)"), line
    code, line = doctor(OPKIT_COMPILEDIR=str(tmp_path), OPKIT_FLAGS=f"blas__ldflags={wheel_flags}")
    assert line == (f"ok BLAS scipy-openblas32 {blas._wheel_version()} (pip wheel), Fortran and CBLAS: {wheel_flags} "
                    "(set by blas__ldflags; OPKIT_FLAGS=blas__ldflags=... chooses another)")
    code, line = doctor(OPKIT_COMPILEDIR=str(tmp_path), OPKIT_FLAGS="blas__ldflags=-lno_such_blas")
    assert code == 1
    assert line.startswith("FAIL BLAS config.blas__ldflags='-lno_such_blas' does not give a working BLAS (")
    assert "cannot find -lno_such_blas" in line and "fix: set blas__ldflags" in line
    code, line = doctor(OPKIT_COMPILEDIR=str(tmp_path), OPKIT_FLAGS="blas__ldflags=")
    assert line == ("ok BLAS none: blas__ldflags is set empty, so ops that call BLAS cannot compile; unset it to use "
                    "the BLAS opkit finds")


def _declared_names():
    text = (blas.HEADER_DIR / blas.HEADER).read_text()
    body = text[text.index("/* Fortran BLAS */"):text.index("/* Theano's prototypes")]
    return re.findall(r"\b(\w+)\((?:const |enum |int |char|float|double|void)", body)


def test_the_header_declares_the_routines_ops_call():
    names = set(_declared_names())
    for routine in ("gemm", "gemv", "ger", "dot", "axpy", "scal", "copy", "nrm2", "trsm", "syrk"):
        assert {f"s{routine}_", f"d{routine}_", f"cblas_s{routine}", f"cblas_d{routine}"} <= names, routine
    assert {"cgemm_", "zgemm_", "cblas_cgemm", "cblas_zgemm", "zherk_", "cblas_zdotc_sub"} <= names
    defines = set(re.findall(r"#define (\w+)\s+scipy_\1\b", (blas.HEADER_DIR / blas.HEADER).read_text()))
    assert names <= defines  # every name maps onto the wheel's


@pytest.mark.parametrize("language", ["c", "c++"])
def test_every_declared_routine_links_against_the_wheel(language, tmp_path, wheel_flags):
    names = _declared_names()
    body = "\n".join(f"    (any_function)&{name}," for name in names)
    source = tmp_path / f"all.{'c' if language == 'c' else 'cpp'}"
    threads = "\n".join(f"#include \"{h}\"" for h in ("openblas_threads.h", "mkl_threads.h"))
    # An array with external linkage, read in main: the linker must find every symbol.
    source.write_text(f'#include "{blas.HEADER}"\n{threads}\n#include <stdio.h>\n'
                      "typedef void (*any_function)(void);\n"
                      f"extern any_function const every[];\nany_function const every[] = {{\n{body}\n"
                      "    (any_function)&openblas_set_num_threads, (any_function)&openblas_get_num_threads,\n"
                      "    (any_function)&goto_set_num_threads,\n};\n"
                      "int main(void) {\n    int found = 0;\n    openblas_set_num_threads(1);\n"
                      "    for (size_t i = 0; i < sizeof every / sizeof every[0]; ++i) found += every[i] != 0;\n"
                      "    printf(\"%d\\n\", found);\n    return 0;\n}\n")
    program = tmp_path / "all"
    driver = ["gcc", "-x", "c"] if language == "c" else [*find_compiler().command]
    # In C++ the address of an overloaded name (Theano's prototypes beside opkit's) needs a type: this file's
    # untyped casts leave them out; test_theano_s_prototypes_... takes them with their types.
    untyped = [] if language == "c" else ["-DOPKIT_BLAS_NO_THEANO_PROTOTYPES"]
    command = [*driver, str(source), f"-I{blas.include_dir()}", f"-D{blas.SCIPY_NAMES}", *untyped, "-Wall",
               "-Wextra", "-Werror", "-pedantic", "-o", str(program), *blas.split_ldflags(wheel_flags),
               *[f"-Wl,-rpath,{d}" for d in blas._parts(wheel_flags)["dirs"]], "-Wl,--no-as-needed"]
    if language == "c" and subprocess.run(["gcc", "--version"], capture_output=True).returncode != 0:
        pytest.fail("gcc is needed to check the header as C")
    build = subprocess.run(command, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[:3000]
    run = subprocess.run([str(program)], capture_output=True, text=True, env={"PATH": os.environ.get("PATH", "")})
    assert run.returncode == 0 and int(run.stdout) == len(names) + 3, run.stderr


def _theano_prototypes():
    """(return type, name, parameter types) of each overload with Theano 1.0's prototype in opkit_blas.h."""
    text = (blas.HEADER_DIR / blas.HEADER).read_text()
    found = re.findall(r"OPKIT_BLAS_FORWARD (\w+) (\w+)\(([^)]*)\)", text)
    return [(ret, name, ", ".join(p.rsplit(" ", 1)[0] for p in params.split(", "))) for ret, name, params in found]


THEANO_PROGRAM = """#include "{header}"
#include <stdio.h>
int main(void) {{
    int found = 0;
{pointers}
    char N = 'N'; int two = 2; double a[4] = {{1, 2, 3, 4}}, c[4] = {{0}}, d[4] = {{0}}, one = 1, zero = 0;
    p_dgemm_(&N, &N, &two, &two, &two, &one, a, &two, a, &two, &zero, c, &two);  /* c = a a */
    dgemm_(&N, &N, &two, &two, &two, &one, a, &two, c, &two, &zero, d, &two);  /* d = a c */
    dgemm_("N", "N", &two, &two, &two, &one, a, &two, a, &two, &one, d, &two);  /* d += a a */
    printf("%d %g %g %g %g\\n", found, d[0], d[1], d[2], d[3]);
    return 0;
}}
"""


def test_theano_s_prototypes_compile_link_and_call_beside_opkit_s(tmp_path, wheel_flags):
    """Every routine Theano declared with char* (not const char*): its pointer of Theano's type, and dgemm_ called
    with char variables, string literals and through such a pointer, in one program linked with the wheel."""
    prototypes = _theano_prototypes()
    assert len(prototypes) == 90 and ("void", "dgemm_", "char*, char*, const int*, const int*, const int*, "
                                      "const double*, const double*, const int*, const double*, const int*, "
                                      "const double*, double*, const int*") in prototypes
    pointers = "\n".join(f"    {ret} (*p_{name})({params}) = &{name};\n    found += p_{name} != 0;"
                         for ret, name, params in prototypes)
    source = tmp_path / "theano.cpp"
    source.write_text(THEANO_PROGRAM.format(header=blas.HEADER, pointers=pointers))
    program = tmp_path / "theano"
    command = [*find_compiler().command, str(source), f"-I{blas.include_dir()}", f"-D{blas.SCIPY_NAMES}", "-Wall",
               "-Wextra", "-Werror", "-o", str(program), *blas.split_ldflags(wheel_flags),
               *[f"-Wl,-rpath,{d}" for d in blas._parts(wheel_flags)["dirs"]]]
    build = subprocess.run(command, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[:3000]
    run = subprocess.run([str(program)], capture_output=True, text=True, check=True)
    a = np.array([[1.0, 3.0], [2.0, 4.0]])  # column-major [1, 2, 3, 4]
    c = a @ (a @ a) + a @ a
    assert run.stdout.split() == [str(len(prototypes)), *[f"{v:g}" for v in c.T.ravel()]]


def test_theano_helpers_have_theano_shapes(wheel_flags):
    with config.change_flags(blas__ldflags=wheel_flags):
        directory = blas._parts(wheel_flags)["dirs"][0]
        assert blas.ldflags() == ["scipy_openblas"]
        assert blas.ldflags(libs=False, libs_dir=True) == [directory]
        assert blas.ldflags(libs=False, flags=True) == [f"-Wl,-rpath,{directory}", f"-D{blas.SCIPY_NAMES}"]
        assert blas.ldflags(libs=False, include_dir=True) == []
        text = blas.blas_header_text()
        assert text.startswith(f"#ifndef {blas.SCIPY_NAMES}\n#define {blas.SCIPY_NAMES} 1\n") and "dgemm_(" in text
        assert blas.cblas_header_text() == text
        assert "scipy_openblas_set_num_threads" in blas.openblas_threads_text()
        assert "mkl_set_num_threads" in blas.mkl_threads_text()
        assert isinstance(blas.blas_header_version(), tuple)
    with config.change_flags(blas__ldflags="-L/usr/lib -lopenblas -fopenmp"):
        assert blas.uses_scipy_names(config.blas.ldflags) is False
        assert blas._parts(config.blas.ldflags) == {"libs": ["openblas"], "dirs": ["/usr/lib"], "includes": [],
                                                    "other": ["-fopenmp"]}


FAKE_ILP64 = r"""
// A BLAS built for 64-bit integers: each int argument is read as a long. It refuses sizes it cannot
// have been given (as xerbla does), so 32-bit ints from a caller give wrong numbers, not a crash.
extern "C" {
static int sane(const long* m, const long* n, const long* k) { return *m >= 0 && *m < 100000 && *n >= 0
                                                                      && *n < 100000 && *k >= 0 && *k < 100000; }
void dgemm_(const char*, const char*, const long* m, const long* n, const long* k, const double* alpha,
            const double* a, const long* lda, const double* b, const long* ldb, const double* beta, double* c,
            const long* ldc) {
    if (!sane(m, n, k)) return;
    for (long j = 0; j < *n; ++j)
        for (long i = 0; i < *m; ++i) {
            double s = 0;
            for (long p = 0; p < *k; ++p) s += a[i + p * *lda] * b[p + j * *ldb];
            c[i + j * *ldc] = *alpha * s + *beta * c[i + j * *ldc];
        }
}
void sgemm_(const char*, const char*, const long*, const long*, const long*, const float*, const float*,
            const long*, const float*, const long*, const float*, float*, const long*) {}
double ddot_(const long*, const double*, const long*, const double*, const long*) { return 0; }
}
"""


def test_a_blas_built_for_64_bit_integers_is_refused(tmp_path):
    (tmp_path / "lib").mkdir()
    source = tmp_path / "ilp64.cpp"
    source.write_text(FAKE_ILP64)
    subprocess.run([*find_compiler().command, "-shared", "-fPIC", str(source), "-o",
                    str(tmp_path / "lib" / "libfakeilp64.so")], check=True)
    with config.change_flags(blas__ldflags=f"-L{tmp_path / 'lib'} -lfakeilp64"):
        with pytest.raises(blas.BlasError) as excinfo:
            blas.blas_header_text()
    assert "dgemm_ gave wrong numbers, as it does with a BLAS built for 64-bit integers" in str(excinfo.value)


def test_numpys_own_blas_does_not_fit():
    bundled = sorted(pathlib.Path(np.__file__).parent.parent.glob("numpy.libs/libscipy_openblas64_*.so"))
    if not bundled:
        pytest.skip("this numpy does not bundle OpenBLAS (not a PyPI wheel)")
    flags = f"-L{bundled[0].parent} -l:{bundled[0].name}"
    with config.change_flags(blas__ldflags=flags):
        with pytest.raises(blas.BlasError, match="undefined reference to `dgemm_'"):
            blas.ldflags()


def test_without_a_compiler_no_blas_is_found_and_doctor_says_how_to_get_one(monkeypatch):
    monkeypatch.setattr(blas, "_detected", blas._detected)  # put back what this process found
    with config.change_flags(cxx="/no/such/compiler"):
        assert blas.detect_ldflags() == ""
        with config.change_flags(blas__ldflags=""):
            assert blas.describe() == ("BLAS", True, "none found: ops that call BLAS cannot compile; to get one: "
                                                     "pip install 'opkit-sdk[blas]' (the scipy-openblas32 wheel)")
