"""op.compute(*values): one compiled module per (op, input types), kept in memory and in the cache."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.op import EAGER_MEMO
from opkit.cop.store.cache import module_events
from opkit.link import eager

from conftest import ROOT


@pytest.fixture
def vector_times_vector(monkeypatch):
    """The example package's op, imported from its source tree (the installed case runs in plugin_venv:
    tests/plugins/test_examples.py)."""
    monkeypatch.syspath_prepend(str(ROOT / "examples" / "vector_times_vector"))
    from vector_times_vector.op import VectorTimesVector

    return VectorTimesVector()


class DivMod(opkit.Op):
    """Two outputs and perform only: the quotient and remainder of integer vectors."""

    __props__ = ()

    def make_node(self, x, y):
        return opkit.Apply(self, [x, y], [x.type(), x.type()])

    def perform(self, node, inputs, output_storage):
        quotient, remainder = np.divmod(*inputs)
        output_storage[0][0], output_storage[1][0] = quotient, remainder


@opkit.as_op(itypes=[ot.dvector], otypes=[ot.dvector])
def reverse(x):
    return x[::-1].copy()


def test_compute_equals_numpy_and_the_second_call_is_served_from_memory(vector_times_vector):
    a, b = np.linspace(0, 1, 7), np.arange(7.0)
    np.testing.assert_array_equal(vector_times_vector.compute(a, b), a * b)
    compiled, events = eager.compiled_count(), dict(module_events)
    for _ in range(3):
        np.testing.assert_array_equal(vector_times_vector.compute(b, a), b * a)
    assert eager.compiled_count() == compiled  # no new (op, input types)
    assert dict(module_events) == events  # no module built, none loaded from disk


@pytest.mark.parametrize("dtype", ["float64", "float32", "int16"])
def test_one_compiled_function_per_op_and_input_types(vector_times_vector, dtype):
    a = np.arange(1, 6).astype(dtype)
    before = eager.compiled_count()
    for _ in range(2):
        result = vector_times_vector.compute(a, a[::-1])  # a strided input: the same types
        np.testing.assert_array_equal(result, a * a[::-1])
        assert result.dtype == np.dtype(dtype)
    assert eager.compiled_count() - before <= 1


def test_compute_of_builtin_ops_broadcasts_and_converts_python_values():
    np.testing.assert_array_equal(ot.add.compute(np.ones((2, 3)), np.arange(3.0)), np.ones((2, 3)) + np.arange(3.0))
    assert float(ot.mul.compute(2.0, 4.0)) == 8.0
    np.testing.assert_array_equal(opkit.ops.exp.compute(np.zeros(3, dtype="float32")), np.ones(3, dtype="float32"))
    assert ot.exp.compute(np.zeros(0)).shape == (0,)


def test_compute_of_perform_only_ops_and_several_outputs():
    quotient, remainder = DivMod().compute(np.array([7, 9]), np.array([2, 4]))
    assert (quotient.tolist(), remainder.tolist()) == ([3, 2], [1, 1])
    np.testing.assert_array_equal(reverse.compute(np.arange(3.0)), [2.0, 1.0, 0.0])


def test_compute_names_inputs_the_op_rejects(vector_times_vector):
    with pytest.raises(TypeError, match=r"VectorTimesVector.compute: the op does not take inputs of "
                                        r"types \(TensorType\(float64, matrix\), TensorType\(float64, matrix\)\): "
                                        r"x must be a 1-d vector"):
        vector_times_vector.compute(np.ones((2, 2)), np.ones((2, 2)))


# The registered op computing from an installed package: tests/plugins/test_examples.py's
# test_an_installed_op_is_found_and_runs_from_any_directory_in_a_function_and_computes (the same plugin venv's child).


def test_ops_made_afresh_for_every_call_share_one_function_and_do_not_pile_up(monkeypatch):
    monkeypatch.setattr(eager, "_IDENTITY_LIMIT", 8)
    a = np.arange(3.0)
    ot.Elemwise(ot.exp.scalar_op).compute(a)
    compiled = eager.compiled_count()
    for _ in range(20):
        np.testing.assert_array_equal(ot.Elemwise(ot.exp.scalar_op).compute(a), np.exp(a))
    assert eager.compiled_count() == compiled  # equal ops: one (op, input types) entry
    assert len(EAGER_MEMO) <= 8
