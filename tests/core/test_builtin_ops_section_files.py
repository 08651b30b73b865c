"""DeepCopyOp, ViewOp, Shape and Shape_i with C registered as `#section` files (TensorType's own, and a user's)."""

import pathlib

import numpy as np
import pytest

import opkit
from opkit.cop.generate.cinterface import op_has_c
from opkit.core import builtin_ops
from opkit.core.builtin_ops import Shape_i, deep_copy_op, shape_op, view_op
from opkit.core.tensor.types import c_interface
from opkit.core.tensor.types.type import TensorType

C = opkit.Mode(linker="c", optimizer=None)


def test_tensor_type_registers_section_files_beside_c_interface():
    here = pathlib.Path(c_interface.__file__).parent
    assert builtin_ops._DEEP_COPY_C[TensorType] == (here / "tensor_deep_copy.c", (1,))
    assert builtin_ops._VIEW_C[TensorType] == (here / "tensor_view.c", (1,))
    assert builtin_ops._SHAPE_C[TensorType] == (here / "tensor_shape.c", (1,))
    assert builtin_ops._SHAPE_I_C[TensorType] == (here / "tensor_shape_i.c", here / "tensor_shape_i_check.c", (1,))
    assert all(path.is_file() for path in c_interface.TENSOR_C_FILES.values())


def test_the_files_compile_and_give_numpy_results():
    inputs = [TensorType(dtype, (None,) * ndim)(f"x{ndim}")
              for ndim, dtype in enumerate(("float64", "int32", "bool", "complex64"))]
    outputs = []
    for x in inputs:
        outputs += [deep_copy_op(x), view_op(x), shape_op(x), *(Shape_i(i)(x) for i in range(x.ndim))]
    assert all(op_has_c(out.owner) for out in outputs)
    f = opkit.function(inputs, outputs, mode=C)
    rng = np.random.default_rng(0)
    values = [(rng.standard_normal((2, 3, 4)[:x.ndim]) * 5).astype(x.dtype) for x in inputs]
    results = iter(f(*values))
    for value in values:
        copied, viewed, shape = next(results), next(results), next(results)
        np.testing.assert_array_equal(copied, value)
        np.testing.assert_array_equal(viewed, value)
        assert copied.dtype == value.dtype and not np.shares_memory(copied, value)
        assert shape.dtype == np.int64 and tuple(shape) == value.shape
        for i in range(value.ndim):
            dim = next(results)
            assert dim.dtype == np.int64 and dim.shape == () and int(dim) == value.shape[i]


class Boxed(TensorType):
    """A tensor type of a user's, with Shape_i C of its own."""


def test_a_users_section_file_is_expanded_with_cop_macros(tmp_path, monkeypatch):
    source = tmp_path / "boxed_shape_i.c"
    source.write_text("#section code\n"
                      "if (!OUTPUT_0) {\n"
                      "    OUTPUT_0 = (PyArrayObject*)PyArray_EMPTY(0, NULL, TYPENUM_OUTPUT_0, 0);\n"
                      "    if (!OUTPUT_0) FAIL\n"
                      "}\n"
                      "((DTYPE_OUTPUT_0*)PyArray_DATA(OUTPUT_0))[0] = 10 * PyArray_DIMS(INPUT_0)[SHAPE_I_INDEX]"
                      " + SHAPE_I_INDEX;\n")
    monkeypatch.setitem(builtin_ops._SHAPE_I_C, Boxed, None)
    opkit.register_shape_i_c_code(Boxed, source, "", version=(1,))  # a file for the code, a str (none) for the check
    x = Boxed("float64", (None, None))("x")
    f = opkit.function([x], [Shape_i(0)(x), Shape_i(1)(x)], mode=C)
    assert [int(v) for v in f(np.zeros((2, 3)))] == [20, 31]


@pytest.mark.parametrize("dtype", ["float64", "int8", "bool", "complex64"])
def test_tensor_c_is_the_text_rendered_for_each_variable_not_only_for_the_placeholders(dtype):
    from opkit.core.c_source import render
    from opkit.core.tensor.types.type import TensorType

    tensor = TensorType(dtype, (None, 3))
    for name, fail in (("V1", "{ __failure = 2; goto __label_2; }"), ("V12", "{ goto fail_x; }")):
        sub = {"fail": fail}
        direct = {
            "declare": render("tensor_type.c.j2", "declare", name=name, ctype=c_interface.c_dtype(dtype)),
            "init": render("tensor_type.c.j2", "init", name=name),
            "extract": render("tensor_type.c.j2", "extract", name=name, typenum=c_interface.c_typenum(dtype), ndim=2,
                              dtype=dtype, check_input=1, fail=fail),
            "sync": render("tensor_type.c.j2", "sync", name=name),
            "cleanup": render("tensor_type.c.j2", "cleanup", name=name),
        }
        assert tensor.c_declare(name, sub) == direct["declare"]
        assert tensor.c_init(name, sub) == direct["init"]
        assert tensor.c_extract(name, sub) == direct["extract"]
        assert tensor.c_sync(name, sub) == direct["sync"]
        assert tensor.c_cleanup(name, sub) == direct["cleanup"]
        assert all(c_interface.NAME not in text and c_interface.FAIL not in text for text in direct.values())
