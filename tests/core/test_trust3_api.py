"""Trust 3, API items: shape= on every typed constructor, eval/givens on intermediates, grad wrt constants,
0-d known gradients."""

import pathlib

import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import opkit
import opkit.tensor as ot
from opkit.core.tensor.types.constructors import plural_constructors
from opkit.core.tensor.types.type import named_types

# ---------------------------------------------------------------- T6: shape= on every typed constructor

_GENERIC = {"scalar": 0, "vector": 1, "matrix": 2, "tensor3": 3, "tensor4": 4}


def _ndim_of(name):
    """Return the ndim a constructor name stands for (dvector -> 1, fmatrices -> 2)."""
    for kind, ndim in _GENERIC.items():
        if kind in name or (kind == "matrix" and "matrices" in name):
            return ndim
    raise AssertionError(name)


TYPED = sorted(named_types())
PLURALS = sorted(plural_constructors(named_types()))


def test_every_constructor_is_enumerated():
    """The lists below cover every public constructor name of opkit.tensor (a new one must be added)."""
    public = {name for name in ot.__all__ if any(kind in name for kind in (*_GENERIC, "matrices"))
              and "_" not in name and callable(getattr(ot, name))  # not matrix_transpose: a function
              and name != "vectorize"}  # numpy.vectorize for graphs, not a vector constructor
    assert public == set(TYPED) | set(PLURALS) | set(_GENERIC)
    assert len(TYPED) == 20 and len(PLURALS) == 25


@pytest.mark.parametrize("name", TYPED)
def test_typed_constructor_takes_shape(name):
    make, ndim = getattr(ot, name), _ndim_of(name)
    shape = tuple(range(2, 2 + ndim))
    v = make("v", shape=shape)
    assert v.name == "v" and v.type.shape == shape and v.dtype == make.dtype
    assert make.shape == (None,) * ndim  # the module-level type itself is unchanged
    partial = make(shape=(None,) * ndim)
    assert partial.type == make and partial.name is None
    article = "an" if name[0] in "aeiou" else "a"
    with pytest.raises(ValueError, match=rf"^{name}: shape \(1, 2, 3, 4, 5\) has 5 entries but {article} {name} "
                                         rf"has {ndim} dimensions?\.\nHint: pass one entry per dimension"):
        make("v", shape=(1, 2, 3, 4, 5))
    with pytest.raises(TypeError, match=rf"^{name}: shape must be a tuple of ints and None"):
        make("v", shape=3)
    if ndim:
        with pytest.raises(ValueError, match=rf"^{name}: shape entry 0 is -1; lengths cannot be negative"):
            make(shape=(-1,) + (None,) * (ndim - 1))
        with pytest.raises(ValueError, match=rf"^{name}: shape \({', '.join(['None'] * (ndim + 1))},?\) has "
                                             rf"{ndim + 1} entries"):
            make(shape=(None,) * (ndim + 1))


@pytest.mark.parametrize("name", PLURALS)
def test_plural_constructor_takes_shape(name):
    make, ndim = getattr(ot, name), _ndim_of(name)
    shape = (3,) * ndim
    a, b = make("a", "b", shape=shape)
    assert (a.name, b.name) == ("a", "b") and a.type.shape == b.type.shape == shape
    assert make("c", shape=shape).type.shape == shape
    assert [v.type.shape for v in make(2, shape=shape)] == [shape, shape]
    with pytest.raises(ValueError, match=r"has 5 entries but an? \w+ has"):
        make("a", "b", shape=(1, 2, 3, 4, 5))


def test_shape_on_a_type_with_static_lengths():
    typ = ot.TensorType("float64", (3, None))
    assert typ("m", shape=(None, 4)).type.shape == (3, 4)
    assert typ("m", shape=(3, 4)).type.shape == (3, 4)
    with pytest.raises(ValueError, match=r"^TensorType\(float64, shape=\(3, None\)\): shape entry 0 is 4 but "
                                         r"TensorType\(float64, shape=\(3, None\)\) has length 3 on axis 0$"):
        typ("m", shape=(4, 4))
    with pytest.raises(ValueError, match=r"shape \(1,\) has 1 entry but a TensorType\(float64, shape=\(3, None\)\) "
                                         r"has 2 dimensions"):
        typ("m", shape=(1,))


def test_the_readme_line_runs_and_checks_the_length():
    v = ot.dvector("v", shape=(3,))
    f = opkit.function([v], v * 2)
    np.testing.assert_array_equal(f([1.0, 2.0, 3.0]), [2.0, 4.0, 6.0])
    with pytest.raises(TypeError, match=r"axis 0 must be 3"):
        f([1.0, 2.0])


# ---------------------------------------------------------------- T9: eval on intermediates and by name

DTYPES = ["bool", "int8", "int32", "int64", "uint8", "uint16", "float16", "float32", "float64", "complex64",
          "complex128"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_eval_replaces_an_intermediate_result_every_dtype(dtype):
    x, w = ot.vector("x", dtype=dtype), ot.vector("w", dtype=dtype)
    y = x + w
    y.name = "y"
    z = y * w
    given, weights = np.array([1, 0, 1], dtype), np.array([1, 1, 0], dtype)
    want = given * weights
    for key in (y, "y"):
        result = z.eval({key: given, w: weights}, mode="FAST_COMPILE")
        np.testing.assert_array_equal(result, want, strict=True)
    p = y.type()
    f = opkit.function([p, w], z, givens={y: p}, mode="FAST_COMPILE")
    np.testing.assert_array_equal(f(given, weights), want, strict=True)


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", "DebugMode"])
def test_eval_on_intermediates_in_every_mode_agrees_with_givens(mode):
    x = ot.dvector("x")
    y = ot.exp(x)
    y.name = "y"
    z = y * 2 + x.sum()
    y_value, x_value = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    want = y_value * 2 + x_value.sum()
    np.testing.assert_array_equal(z.eval({y: y_value, x: x_value}, mode=mode), want)
    np.testing.assert_array_equal(z.eval({"y": y_value, "x": x_value}, mode=mode), want)
    p = y.type("p")
    f = opkit.function([p, x], z, givens={y: p}, mode=mode)
    np.testing.assert_array_equal(f(y_value, x_value), want)
    np.testing.assert_array_equal(z.eval({"x": x_value}, mode=mode), np.exp(x_value) * 2 + x_value.sum())
    np.testing.assert_array_equal(z.eval({z: y_value}, mode=mode), y_value)  # the output itself


def test_eval_on_a_shared_variable_sets_it_for_that_call_only():
    s = opkit.shared(np.array([1.0, 2.0]), name="s")
    out = s * 3
    np.testing.assert_array_equal(out.eval({s: np.array([5.0, 6.0])}), [15.0, 18.0])
    np.testing.assert_array_equal(out.eval({"s": np.array([0.0, 1.0])}), [0.0, 3.0])
    np.testing.assert_array_equal(out.eval(), [3.0, 6.0])
    np.testing.assert_array_equal(s.get_value(), [1.0, 2.0])


def test_eval_key_errors():
    x = ot.dvector("x")
    c = ot.as_tensor_variable(2.0)
    a1, a2 = ot.dscalar("a"), ot.dscalar("a")
    z = x * c + a1 + a2
    with pytest.raises(TypeError, match=r"^eval: 2.0 is a constant; its value cannot be set.\nHint: build the graph "
                                        r"with a variable"):
        z.eval({c: 3.0, x: [1.0], a1: 0.0, a2: 0.0})
    with pytest.raises(ValueError, match=r"^eval: nope not found in graph of add.out: no variable has that name.\n"
                                         r"Hint: pass the variable itself as the key, or check its .name.$"):
        z.eval({"nope": 1.0})
    assert z.eval({"nope": 1.0, x: [1.0], a1: 0.0, a2: 0.0}, on_unused_input="ignore") == [2.0]  # as PyTensor's
    with pytest.raises(ValueError, match=r"^eval: Found multiple variables with name a \(2\) in the graph of add.out, "
                                         r"so the name does not say which one to set.\nHint: pass the variable itself"):
        z.eval({"a": 1.0})
    with pytest.raises(TypeError, match=r"^eval: the key 3 is neither a Variable nor the name of one$"):
        z.eval({3: 1.0})
    with pytest.raises(ValueError, match=r"^eval: x is given twice \(once by name, once as a variable\)$"):
        z.eval({"x": [1.0], x: [2.0]})
    y = x * 2
    with pytest.raises(TypeError, match=r"expected TensorType\(float64, vector\).*wrong number of dimensions"):
        (y + 1).eval({y: [[1.0]]})


def test_function_refuses_an_intermediate_input_and_says_how_to_use_givens():
    x = ot.dvector("x")
    y = x * 2
    with pytest.raises(TypeError, match=r"^input 0 \(mul.out\) is computed by mul; function inputs must be free "
                                        r"variables.\nHint: .*givens=\{mul.out: v\}"):
        opkit.function([y], y + 1)
    v = y.type()
    np.testing.assert_array_equal(opkit.function([v], y + 1, givens={y: v})([1.0, 2.0]), [2.0, 3.0])


# ---------------------------------------------------------------- T10: the gradient with respect to a constant

@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", "DebugMode"])
def test_grad_wrt_a_python_number_constant(dtype, mode):
    x = ot.vector("x", dtype=dtype)
    c = ot.as_tensor_variable(2.0)  # a Python float: retyped to x's dtype where they meet (NEP 50)
    cost = (x * c + c * c).sum()
    g = opkit.grad(cost, c)
    assert g.dtype == "float64" and g.ndim == 0
    x_value = np.array([1.0, 2.0, 4.0], dtype)
    result = opkit.function([x], g, mode=mode)(x_value)
    # c * c is broadcast over the 3 elements of x: d/dc of 3 c^2 is 6c.
    np.testing.assert_allclose(result, x_value.astype(float).sum() + 6 * 2.0, rtol=1e-3)


def test_grad_wrt_python_int_constant_and_an_array_constant():
    x = ot.fvector("x")
    i = ot.as_tensor_variable(3)  # int64, retyped to float32 by x * i: the gradient flows as through a cast
    g = opkit.grad((x * i).sum(), i)
    assert g.dtype == "float32"
    np.testing.assert_allclose(g.eval({x: np.array([1.0, 2.0], "float32")}), 3.0)
    c = ot.constant(np.array([1.0, 2.0]))
    g, gx = opkit.grad((ot.dvector("y") * c).sum() + (c ** 2).sum(), [c, x], disconnected_inputs="ignore")
    np.testing.assert_allclose(g.eval({"y": np.array([5.0, 7.0])}), [5.0 + 2.0, 7.0 + 4.0])


_USES_OF_A_CONSTANT = {
    "dot": lambda c, x: ot.dot(c, x), "concatenate": lambda c, x: (ot.concatenate([c, x]) ** 2).sum(),
    "maximum": lambda c, x: ot.maximum(c, x).sum(), "subtensor": lambda c, x: c[0] * x.sum(),
    "stack": lambda c, x: (ot.stack([c, x]) * 3).sum(), "reshape": lambda c, x: ot.reshape(c, (2, 1)).sum() * x.sum(),
    "pow": lambda c, x: (x ** c).sum(), "prod": lambda c, x: ot.prod(c) * x.sum(), "mean": lambda c, x: ot.mean(c * x),
    "where": lambda c, x: ot.where(x > 1, c, x).sum(), "clip": lambda c, x: ot.clip(c, 0.0, 1.5).sum() * x.sum(),
    "dimshuffle": lambda c, x: (c.dimshuffle("x", 0) * x).sum(), "cast": lambda c, x: ot.cast(c, "float32").sum(),
    "alloc": lambda c, x: ot.alloc(c, 3, 2).sum() * x.sum(), "specify_shape": lambda c, x: (ot.specify_shape(c, (2,)) * x).sum(),
    "python_number": lambda c, x: (c * 2.5 + x).sum(),
}


@pytest.mark.parametrize("name", sorted(_USES_OF_A_CONSTANT))
def test_grad_wrt_a_constant_equals_grad_wrt_a_variable_of_that_value(name):
    build, value = _USES_OF_A_CONSTANT[name], np.array([1.0, 2.0])
    x, v = ot.dvector("x"), ot.dvector("v")
    c = ot.constant(value)
    x_value = np.array([0.5, 3.0])
    via_constant = opkit.function([x], opkit.grad(build(c, x), c), mode="FAST_COMPILE",
                                  on_unused_input="ignore")(x_value)
    via_variable = opkit.function([x, v], opkit.grad(build(v, x), v), mode="FAST_COMPILE",
                                  on_unused_input="ignore")(x_value, value)
    np.testing.assert_array_equal(via_constant, via_variable)


def test_a_constant_the_cost_does_not_use_is_still_disconnected():
    x, c = ot.dscalar("x"), ot.as_tensor_variable(2.0)
    with pytest.raises(opkit.gradient.DisconnectedInputError, match=r"the cost does not depend on wrt\[0\] \(2.0\)"):
        opkit.grad(x * 3.0, c)


# ---------------------------------------------------------------- T12: known_grads and eval points broadcast

@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_known_grads_takes_a_0d_gradient_for_an_nd_output(dtype):
    m = ot.matrix("m", dtype=dtype)
    out = ot.exp(m) * 2
    g = ot.scalar("g", dtype=dtype)
    m_value = np.zeros((2, 3), dtype)
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = opkit.function([m, g], opkit.grad(None, m, known_grads={out: g}), mode=mode)
        np.testing.assert_allclose(f(m_value, 3.0), np.full((2, 3), 6.0, dtype), rtol=1e-3)
        lop = opkit.function([m, g], opkit.Lop(out, m, g), mode=mode)
        np.testing.assert_allclose(lop(m_value, 3.0), np.full((2, 3), 6.0, dtype), rtol=1e-3)
    for number in (1.0, np.float64(1.0), np.array(1.0)):
        result = opkit.grad(None, m, known_grads={out: number}).eval({m: m_value}, mode="FAST_COMPILE")
        np.testing.assert_allclose(result, np.full((2, 3), 2.0), rtol=1e-3)
        assert result.dtype == dtype


def test_known_grads_broadcast_a_lower_rank_gradient_numpy_style():
    m, v = ot.dmatrix("m"), ot.dvector("v")
    out = m * 2
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = opkit.function([m, v], opkit.grad(None, m, known_grads={out: v}), mode=mode)
        np.testing.assert_array_equal(f(np.zeros((2, 3)), np.array([1.0, 2.0, 3.0])), [[2, 4, 6], [2, 4, 6]])
        op = "alloc" if mode == "FAST_RUN" else "fill"
        with pytest.raises(ValueError, match=rf"^{op}: cannot broadcast a value of shape \(2,\) to the shape "
                                             r"\(2, 3\): numpy's broadcasting needs"):
            f(np.zeros((2, 3)), np.array([1.0, 2.0]))


def test_known_grads_broadcast_a_gradient_whose_type_has_length_1_axes():
    m = ot.dmatrix("m")
    out = m * 2
    m_value = np.zeros((2, 3))
    g1, g2 = ot.TensorType("float32", shape=(1, None))("g1"), ot.TensorType("float64", shape=(None, 1))("g2")
    gradients = [gradient for g in (g1, g2) for gradient in (opkit.grad(None, m, known_grads={out: g}),
                                                             opkit.Lop(out, m, g))]
    constant = opkit.grad(None, m, known_grads={out: np.ones((1, 3))})
    for mode in ("FAST_RUN", "FAST_COMPILE"):  # one function of every gradient: one module
        results = opkit.function([m, g1, g2], [*gradients, constant], mode=mode)(
            m_value, np.ones((1, 3), "float32"), np.ones((2, 1)))
        for result in results:
            assert result.dtype == "float64"
            np.testing.assert_array_equal(result, np.full((2, 3), 2.0))


def test_gradient_points_with_too_many_dimensions_or_for_rop():
    m = ot.dmatrix("m")
    out = m * 2
    with pytest.raises(ValueError, match=r"^known_grads\[mul.out\] has 3 dimensions but mul.out has 2\nHint: give "
                                         r"it at most 2 dimensions; fewer are broadcast to mul.out's shape.$"):
        opkit.grad(None, m, known_grads={out: np.ones((1, 2, 3))})
    with pytest.raises(ValueError, match=r"^eval_points\[0\] has 3 dimensions but mul.out has 2\nHint: give it at "
                                         r"most 2"):
        opkit.Lop(out, m, np.ones((1, 2, 3)))
    # Rop's eval points are tangents of wrt: PyTensor, too, wants them with wrt's dimensions.
    with pytest.raises(ValueError, match=r"^eval_points\[0\] has 0 dimensions but m has 2\nHint: give it 2 "
                                         r"dimensions, the shape of m.$"):
        opkit.Rop(out, m, 1.0)


# ---------------------------------------------------------------- T11: DebugMode hands C code preallocated outputs

class _AddC(opkit.Op):
    """x + y for float64 matrices: perform is right; the C code reuses an output of the right shape.

    `strict` C code reuses only a C-contiguous output; the careless one writes into any output
    of the right shape as if it were C-contiguous (it ignores the output's strides).
    """

    __props__ = ("strict",)

    def __init__(self, strict):
        self.strict = strict

    def make_node(self, x, y):
        x, y = ot.as_tensor_variable(x), ot.as_tensor_variable(y)
        return opkit.Apply(self, [x, y], [ot.dmatrix()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] + inputs[1]

    def c_code(self, node, name, inputs, outputs, sub):
        (x, y), (z,) = inputs, outputs
        contiguous = f"|| !PyArray_IS_C_CONTIGUOUS({z})" if self.strict else ""
        return f"""
        npy_intp rows = PyArray_DIMS({x})[0], cols = PyArray_DIMS({x})[1];
        if (!{z} || PyArray_DIMS({z})[0] != rows || PyArray_DIMS({z})[1] != cols {contiguous}) {{
            Py_XDECREF({z});
            {z} = (PyArrayObject*)PyArray_SimpleNew(2, PyArray_DIMS({x}), NPY_FLOAT64);
            if (!{z}) {sub['fail']}
        }}
        for (npy_intp i = 0; i < rows; ++i)
            for (npy_intp j = 0; j < cols; ++j)
                ((double*)PyArray_DATA({z}))[i * cols + j] =
                    *(double*)PyArray_GETPTR2({x}, i, j) + *(double*)PyArray_GETPTR2({y}, i, j);
        """


def test_debugmode_gives_c_code_fortran_and_strided_preallocated_outputs():
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    a, b = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
    for check_py_code in (True, False):
        every = opkit.DebugMode(check_py_code=check_py_code, check_preallocated_output="ALL")
        np.testing.assert_array_equal(opkit.function([x, y], _AddC(True)(x, y), mode=every)(a, b), a + b)
        for kind in ("initial", "previous", "c_contiguous", "wrong_size"):
            mode = opkit.DebugMode(check_py_code=check_py_code, check_preallocated_output=[kind])
            np.testing.assert_array_equal(opkit.function([x, y], _AddC(False)(x, y), mode=mode)(a, b), a + b)
        for kind in ("f_contiguous", "strided"):
            mode = opkit.DebugMode(check_py_code=check_py_code, check_preallocated_output=[kind])
            f = opkit.function([x, y], _AddC(False)(x, y), mode=mode)
            with pytest.raises(opkit.BadThunkOutput,
                               match=rf"C code and C code with preallocated outputs \({kind}\) disagree on output 0"):
                f(a, b)
    # Run as a compiled graph, the careless op only ever sees its own previous result: right.
    f = opkit.function([x, y], _AddC(False)(x, y) * 2, mode="FAST_RUN")
    for _ in range(2):
        np.testing.assert_array_equal(f(a, b), (a + b) * 2)


# ---------------------------------------------------------------- T7: includes the code identity cannot look up

class _SectionIdentity(opkit.COp):
    """Returns a copy of x; its C code is in a section file the test writes."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])


_COPY_CODE = ("#section code\n"
              "Py_XDECREF(OUTPUT_0);\n"
              "OUTPUT_0 = (PyArrayObject*)PyArray_NewCopy(INPUT_0, NPY_CORDER);\n"
              "if (!OUTPUT_0) FAIL;\n")


def _section_file(folder, includes):
    path = folder / "op.c"
    path.write_text("#section support_code\n" + "".join(f'#include "{name}"\n' for name in includes) + _COPY_CODE)
    return path


def test_an_include_the_identity_cannot_look_up_is_a_section_error_at_its_line(tmp_path):
    (tmp_path / "adir.h").mkdir()
    (tmp_path / "loop.h").symlink_to(tmp_path / "loop.h")
    (tmp_path / "nested.h").write_text('// a header that includes a directory\n\n#include "adir.h"\n')
    too_long = "h" * 300 + ".h"
    cases = {too_long: (2, r'#include "hhhh\S*\.\.\.\S*hhh\.h \(302 characters\)": cannot look the header up: '
                           r"File name too long"),
             "adir.h": (2, rf'#include "adir.h" names {tmp_path}/adir.h, which is not a regular file'),
             "loop.h": (2, r'#include "loop.h": cannot look the header up: Too many levels of symbolic links')}
    x = ot.dvector("x")
    for name, (line, message) in cases.items():
        path = _section_file(tmp_path, ["numpy/arrayobject.h", name])
        with pytest.raises(opkit.SectionError, match=rf"^{path}:{line + 1}: {message}$") as excinfo:
            opkit.function([x], _SectionIdentity(str(path))(x))
        assert excinfo.value.path == str(path) and excinfo.value.line == line + 1
    path = _section_file(tmp_path, ["nested.h"])
    with pytest.raises(opkit.SectionError, match=rf"^{tmp_path}/nested.h:3: #include \"adir.h\" names "):
        opkit.function([x], _SectionIdentity(str(path))(x))
    # Neighbours: a header found nowhere local is the compiler's to find; a local one is part of the identity.
    (tmp_path / "ok.h").write_text("#define OPKIT_TEST_OK 1\n")
    path = _section_file(tmp_path, ["numpy/arrayobject.h", "ok.h"])
    f = opkit.function([x], _SectionIdentity(str(path))(x))
    np.testing.assert_array_equal(f(np.array([1.0, 2.0])), [1.0, 2.0])


# ---------------------------------------------------------------- F12: paths that are not UTF-8 in generated source

def test_section_files_under_a_folder_whose_name_is_not_utf8_compile_and_run(tmp_path):
    import os

    folder = pathlib.Path(os.fsdecode(os.fsencode(tmp_path) + b"/pkg\xff\xfe \"q\\"))
    folder.mkdir()
    (folder / "local.h").write_text("#define OPKIT_TEST_SCALE 3.0\n")
    path = folder / "op.c"
    path.write_text('#section support_code\n#include "local.h"\n' + _COPY_CODE
                    + "for (npy_intp i = 0; i < PyArray_SIZE(OUTPUT_0); ++i)\n"
                      "    ((double*)PyArray_DATA(OUTPUT_0))[i] *= OPKIT_TEST_SCALE;\n")
    x = ot.dvector("x")
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = opkit.function([x], _SectionIdentity(str(path))(x) * 2, mode=mode)
        np.testing.assert_array_equal(f(np.array([1.0, 2.0])), [6.0, 12.0])
    # A second process finds the module in the cache under the same key and runs it.
    script = ("import os, sys, numpy as np, opkit, opkit.tensor as ot\n"
              "sys.path.insert(0, os.environ['TESTS'])\n"
              "from test_trust3_api import _SectionIdentity\n"
              "x = ot.dvector('x')\n"
              "f = opkit.function([x], _SectionIdentity(os.fsdecode(bytes.fromhex(sys.argv[1])))(x) * 2)\n"
              "print(f(np.array([1.0, 2.0])).tolist())\n")
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", script, os.fsencode(path).hex()], capture_output=True, text=True,
                          env={**os.environ, "TESTS": str(pathlib.Path(__file__).parent)}, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "[6.0, 12.0]\n", "")
    # The compiler's errors point into the file: its #line directive kept the folder's bytes.
    path.write_text("#section support_code\n" + _COPY_CODE + "int broken = ;\n")
    with pytest.raises(opkit.CompileError) as excinfo:
        opkit.function([x], _SectionIdentity(str(path))(x))
    assert "/pkg\ufffd\ufffd \"q\\/op.c:6:" in str(excinfo.value)


def test_c_string_literal_keeps_the_bytes_of_any_path():
    import os

    from opkit.cop.source.sections import c_string_literal

    assert c_string_literal(os.fsdecode(b"/a\xff/\xc3\xa9\\\"\n.c")) == '"/a\\377/\u00e9\\\\\\"\\012.c"'
    assert c_string_literal("\ud800") == '"\\355\\240\\200"'  # a lone surrogate not from a path: its UTF-8 bytes


@settings(max_examples=30, deadline=None)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=3), data=st.data())
def test_known_grads_of_any_broadcastable_shape_match_numpy(shape, data):
    kept = data.draw(st.integers(0, len(shape)), label="axes of g")  # the last ones, each of length 1 or shape's
    g_shape = tuple(data.draw(st.sampled_from([n, 1])) for n in shape[len(shape) - kept:])
    g_value = data.draw(hnp.arrays("float64", g_shape, elements=st.floats(-4, 4)), label="g")
    t = ot.TensorType("float64", shape=(None,) * len(shape))("t")
    g = ot.TensorType("float64", shape=tuple(1 if n == 1 else None for n in g_shape))("g")
    gradient = opkit.grad(None, t, known_grads={t * 3: g})
    result = opkit.function([t, g], gradient, mode="FAST_COMPILE", on_unused_input="ignore")(np.zeros(shape), g_value)
    np.testing.assert_array_equal(result, 3 * np.broadcast_to(g_value, shape))
