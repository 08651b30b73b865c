"""PyTensor's graph behaviours on opkit's own classes (found by porting PyTensor's graph and C linker tests).

Auto-naming, NominalVariable, node cloning on inputs of other types, eval's unused keys, numpy
operands on the left of a tensor operator, "floatX" as a dtype, MethodNotDefined as NotImplementedError.
"""

import pickle
from itertools import count

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.clinker import MethodNotDefined
from opkit.core.fgraph import FunctionGraph
from opkit.core.graph import NominalVariable, Variable
from opkit.link.function import UnusedInputError


def test_every_variable_takes_the_next_auto_name_from_the_class_counter(monkeypatch):
    monkeypatch.setattr(Variable, "__count__", count(1000))
    x, c = ot.dvector(), ot.constant(1.5)
    assert (x.auto_name, c.auto_name, x.clone().auto_name) == ("auto_1000", "auto_1001", "auto_1002")


def test_nominal_variables_are_one_per_type_and_id_with_the_types_variable_class():
    vector = ot.dvector().type
    x = NominalVariable(0, vector, name="x")
    assert NominalVariable(0, ot.TensorType("float64", (None,))) is x and x.clone() is x
    assert pickle.loads(pickle.dumps(x)) is x and NominalVariable(1, vector) is not x
    assert isinstance(x, ot.TensorVariable) and x.ndim == 1 and x.signature() == (vector, 0)
    with pytest.raises(ValueError, match=r"^NominalTensorVariable\(0, TensorType\(float64, vector\)\) is a "
                                         r"NominalVariable: it cannot be the output of "):
        opkit.Apply(ot.add, [], [x])
    y = NominalVariable(1, vector)
    f = opkit.function([x, y], x * 2 + y)
    np.testing.assert_array_equal(f([1.0, 2.0], [10.0, 20.0]), [12.0, 24.0])


def test_numpy_operands_on_the_left_defer_to_the_tensor_operators():
    x = ot.dvector("x")
    value, left = np.array([1.0, 2.0, 4.0]), np.array([2.0, 3.0, 4.0])
    cases = [(left + x, left + value), (left - x, left - value), (left * x, left * value),
             (left / x, left / value), (left ** x, left ** value), (left < x, left < value)]
    assert all(isinstance(out, Variable) for out, _ in cases)
    for got, (_, expected) in zip(opkit.function([x], [out for out, _ in cases])(value), cases, strict=True):
        np.testing.assert_array_equal(got, expected)  # one function (one module) of the six, not an eval each


def test_clone_with_new_inputs_converts_inputs_and_remakes_the_node_when_their_types_change():
    x, y = ot.tensor("float64", shape=(None,)), ot.tensor("float64", shape=(1,))
    node = ot.add(x, y).owner
    assert node.clone_with_new_inputs([ot.tensor("float64", shape=(1,)), y]).outputs[0].type.shape == (1,)
    narrow = ot.add(ot.tensor("float64", shape=(1,)), y).owner
    kept = narrow.clone_with_new_inputs([x, y])  # strict: x gets the static shape (a SpecifyShape)
    assert kept.inputs[0].type.shape == (1,) and kept.outputs[0].type.shape == (1,)
    with pytest.raises(ValueError, match=r"^specify_shape: expected shape \(1,\), got \(2,\)"):  # at run time
        opkit.function([x, y], kept.outputs[0], mode="FAST_COMPILE")([1.0, 2.0], [1.0])
    with pytest.raises(TypeError, match=r"^cannot use a variable of type TensorType\(int32, vector\) where "
                                        r"TensorType\(float64, vector\) is expected$"):
        node.clone_with_new_inputs([ot.ivector(), y])
    assert node.clone_with_new_inputs([ot.ivector(), y], strict=False).outputs[0].dtype == "float64"


def test_eval_raises_on_an_unused_key_unless_told_and_then_ignores_unknown_names():
    x, y = ot.dscalars("x", "y")
    z = x + y
    w = z * 2
    with pytest.raises(UnusedInputError, match=r"input x \(position \d\) is not used to compute the outputs"):
        w.eval({z: 3.0, x: 1.0})
    assert w.eval({z: 3.0, x: 1.0}, on_unused_input="ignore") == 6.0
    assert (x + 1).eval({"x": 1.0, "nope": 2.0}, on_unused_input="ignore") == 2.0
    with pytest.warns(UserWarning, match="Keyword arguments could not be used to create a cache key"):
        assert w.eval({x: 1.0}, givens={y: ot.constant(2.0)}) == 6.0
    assert not hasattr(pickle.loads(pickle.dumps(w)), "_fn_cache") and hasattr(w, "_fn_cache")


def test_floatx_names_the_configured_float_dtype():
    with opkit.config.change_flags(floatX="float32"):
        assert ot.constant(2.0, dtype="floatX").dtype == "float32"
        assert ot.TensorType("floatX", (None,)).dtype == "float32"


def test_a_missing_optional_method_is_a_not_implemented_error():
    assert issubclass(MethodNotDefined, NotImplementedError)
    op = opkit.as_op([ot.dvector], [ot.dvector])(lambda v: v)
    with pytest.raises(NotImplementedError):
        op.c_code(op(ot.dvector()).owner, "n", ["x"], ["z"], {"fail": ""})


def test_a_function_graph_of_outputs_alone_takes_their_free_inputs():
    x, y = ot.dscalars("x", "y")
    fg = FunctionGraph(outputs=[x * 2 + y + ot.constant(1.0)], clone=False)
    assert fg.inputs == [x, y] or fg.inputs == [y, x]
