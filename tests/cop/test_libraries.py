"""External libraries: c_headers, c_header_dirs, c_libraries and c_lib_dirs compile, load and run.

One library comes from a pip install (the BLAS of the scipy-openblas32 wheel,
a test dependency; its symbols are prefixed: scipy_cblas_ddot), one is built
here into a temporary directory that is not on the loader's path: opkit adds
an rpath for each c_lib_dirs directory.
"""

import subprocess

import numpy as np
import pytest
import scipy_openblas32

import opkit
import opkit.scalar as os_
import opkit.tensor as ot
from opkit import Apply, CompileError, Op
from opkit.cop.toolchain.compiler import find_compiler

C_LINKER = opkit.Mode(linker="c", optimizer=None)


class Ddot(Op):
    """The dot product of two float64 vectors through the wheel's cblas."""

    __props__ = ()

    def make_node(self, x, y):
        return Apply(self, [ot.as_tensor_variable(x), ot.as_tensor_variable(y)], [os_.float64()])

    def c_headers(self, c_compiler=None):
        return ["cblas.h"]

    def c_header_dirs(self, c_compiler=None):
        return [scipy_openblas32.get_include_dir()]

    def c_libraries(self, c_compiler=None):
        return [scipy_openblas32.get_library()]

    def c_lib_dirs(self, c_compiler=None):
        return [scipy_openblas32.get_lib_dir()]

    def c_code(self, node, name, inputs, outputs, sub):
        (x, y), (z,) = inputs, outputs
        return f"""
        if (PyArray_DIM({x}, 0) != PyArray_DIM({y}, 0)) {{
            PyErr_SetString(PyExc_ValueError, "ddot: vectors of different lengths");
            {sub['fail']}
        }}
        {z} = scipy_cblas_ddot((blasint)PyArray_DIM({x}, 0),
                               (const double*)PyArray_DATA({x}), (blasint)(PyArray_STRIDE({x}, 0) / 8),
                               (const double*)PyArray_DATA({y}), (blasint)(PyArray_STRIDE({y}, 0) / 8));
        """

    def c_code_cache_version(self):
        return (1,)


def test_an_op_calling_the_pip_installed_blas_matches_numpy(opkit_rng):
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], Ddot()(x, y), mode=C_LINKER)
    for n in (1, 7, 1000):
        a, b = opkit_rng.normal(size=n), opkit_rng.normal(size=n)
        np.testing.assert_allclose(f(a, b), np.dot(a, b), rtol=1e-12)
    a = opkit_rng.normal(size=20)
    np.testing.assert_allclose(f(a[::2], a[1::2]), np.dot(a[::2], a[1::2]), rtol=1e-12)  # strided views


@pytest.fixture(scope="module")
def private_library(tmp_path_factory):
    """Build libopkitscale.so and its header into a temporary directory off the loader's path."""
    root = tmp_path_factory.mktemp("private-lib")
    (root / "include").mkdir()
    (root / "lib").mkdir()
    (root / "include" / "opkit_scale.h").write_text('extern "C" double opkit_scale(double x);\n')
    source = root / "opkit_scale.cpp"
    source.write_text('extern "C" double opkit_scale(double x) { return 3 * x + 0.5; }\n')
    subprocess.run([*find_compiler().command, "-shared", "-fPIC", str(source), "-o", str(root / "lib" / "libopkitscale.so")],
                   check=True)
    return root


class PrivateScale(Op):
    __props__ = ("library_root", "libraries", "headers")

    def __init__(self, library_root, libraries=("opkitscale",), headers=("opkit_scale.h",)):
        self.library_root, self.libraries, self.headers = str(library_root), tuple(libraries), tuple(headers)

    def make_node(self, x):
        return Apply(self, [os_.as_scalar(x)], [os_.float64()])

    def c_headers(self, c_compiler=None):
        return list(self.headers)

    def c_header_dirs(self, c_compiler=None):
        return [f"{self.library_root}/include"]

    def c_libraries(self, c_compiler=None):
        return list(self.libraries)

    def c_lib_dirs(self, c_compiler=None):
        return [f"{self.library_root}/lib"]

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = opkit_scale({inputs[0]});"

    def c_code_cache_version(self):
        return (1,)


def test_a_library_built_off_the_loader_path_loads_and_runs(private_library):
    x = os_.float64("x")
    f = opkit.function([x], PrivateScale(private_library)(x), mode=C_LINKER)
    assert f(2.0) == 6.5 and f(-1.0) == -2.5


def test_a_missing_library_is_a_compile_error_naming_it(private_library):
    x = os_.float64("x")
    op = PrivateScale(private_library, libraries=("opkit_no_such_library",))
    with pytest.raises(CompileError, match=r"(?s)hint: library 'opkit_no_such_library' not found.*c_lib_dirs"):
        opkit.function([x], op(x), mode=C_LINKER)


def test_a_missing_header_is_a_compile_error_naming_it(private_library):
    x = os_.float64("x")
    op = PrivateScale(private_library, headers=("opkit_no_such_header.h",))
    with pytest.raises(CompileError, match=r"(?s)hint: header 'opkit_no_such_header.h' not found.*c_header_dirs"):
        opkit.function([x], op(x), mode=C_LINKER)
