"""C written for Theano's CLinker compiles and runs as Theano ran it (issue 43 items 2 to 5).

- c_code_cleanup is in c_code's block: it releases what c_code declared, whether c_code failed or not,
  in a whole-graph module, in one built from node functions (a big graph) and in an incremental build;
- the compiler is passed positionally to c_headers(self, compiler) and the other flags methods, of ops,
  of types and of a ParamsType's fields;
- numpy 2's PyArray_Descr fields (`->elsize`, `->alignment`) are visible: modules target the numpy that runs;
- Theano's BLAS prototypes (char*, not const char*) compile beside opkit's: calls and function pointers.
"""

import sys

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit import Apply, Op
from opkit.cop import blas
from helpers.caches import seeded


class HeldCopy(Op):
    """y = x * 2, holding a reference to x in a variable c_code declares and c_code_cleanup releases.

    Fails (ValueError) when x[0] < 0, after taking the reference: the cleanup must release it then too.
    """

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        if inputs[0].size and inputs[0].flat[0] < 0:
            raise ValueError("negative first element")
        outputs[0][0] = inputs[0] * 2

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (y,), fail = inputs, outputs, sub["fail"]
        return f"""
        PyArrayObject* held = {x};
        Py_INCREF(held);
        if (PyArray_SIZE(held) && ((double*)PyArray_DATA(held))[0] < 0) {{
            PyErr_SetString(PyExc_ValueError, "negative first element");
            {fail}
        }}
        Py_XDECREF({y});
        {y} = (PyArrayObject*)PyArray_NewCopy(held, NPY_CORDER);
        if (!{y}) {fail}
        for (npy_intp i = 0; i < PyArray_SIZE({y}); ++i) ((double*)PyArray_DATA({y}))[i] *= 2;
        """

    def c_code_cleanup(self, node, name, inputs, outputs, sub):
        return "Py_XDECREF(held); held = NULL;"

    def c_code_cache_version(self):
        return (1,)


@pytest.mark.parametrize("chain", [1, 30], ids=["one-function", "node-functions"])
def test_c_code_cleanup_releases_what_c_code_declared_on_success_and_failure(chain):
    x = ot.dvector("x")
    y = x
    for _ in range(chain):
        y = HeldCopy()(y)
    f = opkit.function([x], y)
    value = np.arange(3.0)
    before = sys.getrefcount(value)
    for _ in range(5):
        np.testing.assert_array_equal(f(value), value * 2.0 ** chain)
    assert sys.getrefcount(value) == before
    negative = np.array([-1.0, 2.0])
    before = sys.getrefcount(negative)
    for _ in range(5):
        with pytest.raises(ValueError, match="negative first element"):
            f(negative)
    assert sys.getrefcount(negative) == before


def test_c_code_cleanup_in_an_incremental_build(tmp_path, monkeypatch):
    import opkit.cop.incremental as incremental

    monkeypatch.setattr(incremental, "INCREMENTAL_ABOVE", 0)
    x = ot.dvector("x")
    with opkit.config.change_flags(compiledir=seeded(tmp_path), incremental=True):
        f = opkit.function([x], HeldCopy()(HeldCopy()(x) + 1.0))
        value = np.arange(3.0)
        before = sys.getrefcount(value)
        for _ in range(5):
            np.testing.assert_array_equal(f(value), (value * 2 + 1) * 2)
            with pytest.raises(ValueError, match="negative first element"):
                f(-value - 1)
        assert sys.getrefcount(value) == before
    assert any((tmp_path / "objects").rglob("*")) or any(tmp_path.rglob("*.o")), "no node object was built"


class TheanoFlags(Op):
    """y = x + OFFSET, every flags method written as Theano 1.0's were: the compiler positional."""

    __props__ = ("include",)

    def __init__(self, include):
        self.include = include

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def c_headers(self, compiler):
        assert compiler is None or hasattr(compiler, "__class__")
        return ["theano_offset.h"]

    def c_header_dirs(self, compiler):
        return [self.include]

    def c_compile_args(self, compiler):
        return ["-DTHEANO_STYLE=1"]

    def c_no_compile_args(self, compiler):
        return []

    def c_libraries(self, compiler):
        return []

    def c_lib_dirs(self, compiler):
        return []

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (y,), fail = inputs, outputs, sub["fail"]
        return f"""
        Py_XDECREF({y});
        {y} = (PyArrayObject*)PyArray_NewCopy({x}, NPY_CORDER);
        if (!{y}) {fail}
        for (npy_intp i = 0; i < PyArray_SIZE({y}); ++i) ((double*)PyArray_DATA({y}))[i] += OFFSET * THEANO_STYLE;
        """

    def c_code_cache_version(self):
        return (1,)


def test_flags_methods_that_take_the_compiler_positionally(tmp_path):
    (tmp_path / "theano_offset.h").write_text("#define OFFSET 10\n")
    x = ot.dvector("x")
    f = opkit.function([x], TheanoFlags(str(tmp_path))(x))
    np.testing.assert_array_equal(f(np.arange(3.0)), np.arange(3.0) + 10)


def test_a_params_type_field_whose_flags_methods_take_the_compiler_positionally():
    from opkit.core.params_type import ParamsType
    from opkit.core.scalar_type import ScalarType

    class TheanoScalar(ScalarType):
        def c_headers(self, compiler):
            return super().c_headers(compiler) + ["<cstdint>"]

        def c_compile_args(self, compiler):
            return super().c_compile_args(compiler) + ["-DFIELD_FLAG=3"]

    params = ParamsType(k=TheanoScalar("int64"))
    assert "<cstdint>" in params.c_headers(None)
    assert "-DFIELD_FLAG=3" in params.c_compile_args(None)


class DescrFields(Op):
    """y = [elsize, alignment] of x's dtype, read as numpy 2's C API gives them (PyArray_DESCR(x)->elsize)."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [ot.lvector()])

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (y,), fail = inputs, outputs, sub["fail"]
        return f"""
        npy_intp two = 2;
        Py_XDECREF({y});
        {y} = (PyArrayObject*)PyArray_SimpleNew(1, &two, NPY_INT64);
        if (!{y}) {fail}
        ((npy_int64*)PyArray_DATA({y}))[0] = PyArray_DESCR({x})->elsize;
        ((npy_int64*)PyArray_DATA({y}))[1] = PyArray_DESCR({x})->alignment;
        """

    def c_code_cache_version(self):
        return (1,)


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32", "float64", "complex128"])
def test_numpy_2_descr_fields_compile_and_read_the_running_numpy(dtype):
    x = ot.tensor(dtype=dtype, shape=(None,))
    f = opkit.function([x], DescrFields()(x))
    assert list(f(np.zeros(2, dtype))) == [np.dtype(dtype).itemsize, np.dtype(dtype).alignment]


class TheanoGemm(Op):
    """out = a @ b through dgemm_ as Theano's BatchedDot calls it: a pointer of Theano's prototype, and a direct
    call with char variables and one with string literals (opkit's const char* prototype)."""

    __props__ = ("how",)

    def __init__(self, how):
        self.how = how

    def make_node(self, a, b):
        a, b = ot.as_tensor_variable(a), ot.as_tensor_variable(b)
        return Apply(self, [a, b], [ot.dmatrix()])

    def c_support_code(self):
        return blas.blas_header_text() + """
        typedef void (*theano_gemm)(char*, char*, const int*, const int*, const int*, const double*,
                                    const double*, const int*, const double*, const int*, const double*, double*,
                                    const int*);
        static theano_gemm theano_dgemm = dgemm_;
        """

    def c_libraries(self):
        return blas.ldflags()

    def c_lib_dirs(self):
        return blas.ldflags(libs=False, libs_dir=True)

    def c_compile_args(self):
        return blas.ldflags(libs=False, flags=True)

    def c_header_dirs(self):
        return blas.ldflags(libs=False, include_dir=True)

    def c_code(self, node, name, inputs, outputs, sub):
        (a, b), (out,), fail = inputs, outputs, sub["fail"]
        call = {"pointer": "theano_dgemm(&N, &N, &n, &m, &k, &one, B, &n, A, &k, &zero, C, &n);",
                "chars": "dgemm_(&N, &N, &n, &m, &k, &one, B, &n, A, &k, &zero, C, &n);",
                "literal": 'dgemm_("N", "N", &n, &m, &k, &one, B, &n, A, &k, &zero, C, &n);'}[self.how]
        return f"""
        PyArrayObject* ac = (PyArrayObject*)PyArray_FromAny((PyObject*){a}, PyArray_DescrFromType(NPY_FLOAT64),
                                                            2, 2, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, NULL);
        PyArrayObject* bc = (PyArrayObject*)PyArray_FromAny((PyObject*){b}, PyArray_DescrFromType(NPY_FLOAT64),
                                                            2, 2, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, NULL);
        if (!ac || !bc) {{ Py_XDECREF(ac); Py_XDECREF(bc); {fail} }}
        npy_intp dims[2] = {{PyArray_DIM(ac, 0), PyArray_DIM(bc, 1)}};
        Py_XDECREF({out});
        {out} = (PyArrayObject*)PyArray_ZEROS(2, dims, NPY_FLOAT64, 0);
        if (!{out}) {{ Py_DECREF(ac); Py_DECREF(bc); {fail} }}
        {{
            char N = 'N';
            int m = (int)dims[0], n = (int)dims[1], k = (int)PyArray_DIM(ac, 1);
            double one = 1.0, zero = 0.0;
            const double* A = (const double*)PyArray_DATA(ac);
            const double* B = (const double*)PyArray_DATA(bc);
            double* C = (double*)PyArray_DATA({out});
            if (m && n && k) {{ {call} }}
            (void)N;
        }}
        Py_DECREF(ac); Py_DECREF(bc);
        """

    def c_code_cache_version(self):
        return (1, blas.blas_header_version())


def test_theano_s_blas_prototypes_compile_beside_opkit_s():
    if not blas.ldflags():
        pytest.skip("no BLAS: pip install 'opkit-sdk[blas]'")
    a, b = ot.dmatrix("a"), ot.dmatrix("b")
    f = opkit.function([a, b], [TheanoGemm(how)(a, b) for how in ("pointer", "chars", "literal")])
    rng = np.random.default_rng(0)
    left, right = rng.normal(size=(3, 4)), rng.normal(size=(4, 5))
    for result in f(left, right[:, ::-1]):
        np.testing.assert_allclose(result, left @ right[:, ::-1], rtol=1e-12)


class NoPrefix(HeldCopy):
    """Theano's ConvOp includes <numpy/noprefix.h>, which numpy 2 removed."""

    def c_headers(self, compiler):
        return ["<numpy/noprefix.h>"]

    def c_code_cleanup(self, node, name, inputs, outputs, sub):
        return ""


def test_a_header_numpy_2_removed_names_the_header_to_include_instead():
    x = ot.dvector("x")
    with pytest.raises(opkit.CompileError) as caught:
        opkit.function([x], NoPrefix()(x))
    assert "hint: header 'numpy/noprefix.h' is not among numpy" in str(caught.value)
    assert "include <numpy/arrayobject.h>" in str(caught.value)
