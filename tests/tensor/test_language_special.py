"""What users of the elementwise and special functions meet beyond their values: the errors they can reach
(complex inputs, dtypes numpy refuses, scipy missing, a gradient opkit does not have), the dtype choices that
differ from a numpy ufunc of the same name, and where the special functions run (C, perform, never the GPU)."""

import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.tensor.scalars import scalar_elementary, scalar_special


@pytest.mark.parametrize("name, nin", [("erf", 1), ("gammaln", 1), ("psi", 1), ("logit", 1), ("gammainc", 2),
                                       ("xlogy0", 2), ("log1mexp", 1)])
def test_a_complex_input_to_a_special_function_is_refused_when_the_node_is_built(name, nin):
    z = ot.tensor("complex128", (None,), name="z")
    with pytest.raises(TypeError) as error:
        getattr(ot, name)(*[z] * nin)
    assert str(error.value).startswith(f"{name} is not defined for complex inputs (dtype complex128): opkit's "
                                       f"{name} is a real function of bool, integer and float tensors")


def test_a_weak_complex_number_is_refused_too():
    with pytest.raises(TypeError, match=r"erf is not defined for complex inputs \(dtype Python complex\)"):
        ot.erf(1j)


@pytest.mark.parametrize("name, dtype", [("arctan2", "complex64"), ("hypot", "complex128"), ("logaddexp", "complex64"),
                                         ("deg2rad", "complex128"), ("trunc", "complex64")])
def test_numpy_refusals_of_complex_raise_numpys_type_error_when_building(name, dtype):
    z = ot.tensor(dtype, (None,))
    op = getattr(ot, name)
    with pytest.raises(TypeError, match=f"{name} is not defined for inputs of dtype {dtype}.*as in numpy"):
        op(*[z] * op.scalar_op.nin)


def test_the_elementary_functions_of_complex_inputs_run_numpy():
    z = ot.tensor("complex128", (None,), name="z")
    values = np.array([0.5 + 1j, -2 - 0.25j, 0j])
    f = opkit.function([z], [ot.tan(z), ot.arcsinh(z), ot.real(z), ot.imag(z), ot.conj(z), ot.isnan(z), ot.log10(z),
                             ot.reciprocal(z), ot.exp2(z)])
    with np.errstate(all="ignore"):
        expected = [np.tan(values), np.arcsinh(values), values.real, values.imag, np.conj(values), np.isnan(values),
                    np.log10(values), np.reciprocal(values), np.exp2(values)]
    for result, wanted in zip(f(values), expected):
        assert result.dtype == wanted.dtype
        np.testing.assert_array_equal(result, wanted)


def test_bitwise_functions_of_floats_are_refused_as_in_numpy():
    x = ot.dvector("x")
    with pytest.raises(TypeError, match="and_ is not defined for inputs of dtype float64, float64, as in numpy"):
        ot.bitwise_and(x, x)


def test_reciprocal_of_an_integer_is_the_true_division_not_numpys_integer_reciprocal():
    i = ot.tensor("int8", (None,))
    out = ot.reciprocal(i)
    assert out.dtype == "float64"
    values = np.array([0, 1, 2, -4], np.int8)
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        with np.errstate(divide="ignore"):
            np.testing.assert_array_equal(opkit.function([i], out, mode=mode)(values), [np.inf, 1.0, 0.5, -0.25])


def test_real_and_imag_never_return_a_view_of_their_input():
    x = ot.dvector("x")
    f = opkit.function([x], [ot.real(x), ot.imag(x)], mode="FAST_COMPILE")
    values = np.array([1.0, 2.0])
    real, imag = f(values)
    assert not np.shares_memory(real, values) and real.flags.writeable and imag.flags.writeable


def test_the_dtypes_follow_numpys_float_rule():
    for dtype, expected in (("bool", "float16"), ("int8", "float16"), ("uint16", "float32"), ("int32", "float64"),
                            ("uint64", "float64"), ("float16", "float16"), ("float32", "float32")):
        x = ot.tensor(dtype, (None,))
        assert ot.erf(x).dtype == ot.tan(x).dtype == ot.gammainc(x, x).dtype == expected, dtype
    assert ot.gammainc(2.0, ot.fvector()).dtype == "float32"  # a Python number is weak, as in numpy
    assert ot.isnan(ot.lvector()).dtype == ot.isinf(ot.tensor("float16", (None,))).dtype == "bool"
    assert ot.trunc(ot.tensor("uint8", (None,))).dtype == "uint8"
    assert ot.conj(ot.tensor("bool", (None,))).dtype == "int8"  # np.conjugate has no bool loop


def test_where_each_special_function_has_c():
    """float32 results of erf, erfc, gammaln, gamma compute in double (scipy's values); float64 erfc, gammaln and
    gamma, and the scipy-only functions, run perform; psi, i0, i1, erfcx and erfinv have opkit's own C."""
    for op in (scalar_special.erf, scalar_special.psi, scalar_special.i0, scalar_special.i1, scalar_special.erfcx,
               scalar_special.erfinv):
        assert op.has_c("float64") and op.has_c("float32"), op
    for op in (scalar_special.erfc, scalar_special.gammaln, scalar_special.gamma):
        assert op.has_c("float32") and not op.has_c("float64")
    for op in (scalar_special.j0, scalar_special.j1, scalar_special.erfcinv, scalar_special.gammainc):
        assert not op.has_c("float32") and not op.has_c("float64")
    assert not scalar_special.erf.has_c("float16")


def test_the_new_scalar_functions_pickle_by_reference():
    for op in (*scalar_elementary.ALL.values(), *scalar_special.ALL.values()):
        assert pickle.loads(pickle.dumps(op)) is op


def test_the_new_functions_stay_on_the_host_in_a_gpu_graph():
    """The GPU kernels know the functions scalar_device.cu.j2 writes; a program with another runs on the host."""
    from opkit.core.tensor.scalars import scalar_ops
    from opkit.gpu.ops import gpu_program_ok

    assert gpu_program_ok([(scalar_ops.exp, (0,), "float64")], ["float64"])
    for op in (scalar_elementary.tan, scalar_elementary.logaddexp, scalar_special.erf, scalar_special.xlogy0):
        assert not gpu_program_ok([(op, tuple(range(op.nin)), "float64")], ["float64"] * op.nin), op


def test_no_gradient_of_gammainc_in_its_shape_parameter_names_the_op():
    from opkit.core.gradient_types import NullTypeGradError

    k, x = ot.dvector("k"), ot.dvector("x")
    with pytest.raises(NullTypeGradError, match="input 0 \\(k\\) of the gammainc op is not implemented. opkit has "
                                                "no derivative of gammainc\\(k, x\\) in k"):
        opkit.grad(ot.sum(ot.gammainc(k, x)), k)
    gx = opkit.grad(ot.sum(ot.gammainc(k, x)), x)  # the other input's gradient is there
    value = opkit.function([k, x], gx)(np.array([2.0]), np.array([1.5]))
    np.testing.assert_allclose(value, 1.5 * np.exp(-1.5), rtol=1e-12)


def test_the_special_functions_need_scipy_only_where_they_run_perform(tmp_path):
    """Without scipy (a None entry in sys.modules hides it): graphs build, C runs, perform says what to install."""
    script = tmp_path / "no_scipy.py"
    script.write_text(textwrap.dedent("""
        import sys
        sys.modules["scipy"] = None
        sys.modules["scipy.special"] = None
        import numpy as np
        import opkit
        import opkit.tensor as ot

        x = ot.dvector("x")
        f = opkit.function([x], [ot.erf(x), ot.logit(x), ot.xlogx(x), ot.psi(x), ot.i0(x), ot.i1(x), ot.erfcx(x),
                                 ot.erfinv(x)])  # C for float64: no scipy
        print(f(np.array([0.25, 0.5]))[0].round(6).tolist())
        g = opkit.function([x], ot.j0(x))  # building is fine; running needs scipy.special.j0
        try:
            g(np.array([0.25]))
        except ImportError as error:
            print("ImportError", error.name)
            print(error)
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "[0.276326, 0.5205]"
    assert lines[1] == "ImportError scipy"
    assert lines[2].startswith("j0 needs scipy: opkit computes it with scipy.special.j0 where it has no C code")
    assert lines[3] == "Install scipy: pip install scipy"
