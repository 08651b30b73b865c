"""Errors keep their cause and add nothing false (Trust 4, item 11).

(a) An error raised while a function's call sets up its first runner instance (an op's
    get_params, say) was shown "During handling of the above exception" of an
    unrelated ``IndexError: pop from empty list`` (the runner's empty pool): it is now
    raised on its own, with no such context.
(b) An AttributeError raised inside a property that ParamsType.get_params reads (a removed
    numpy constant, say) was reported as "has no attribute for the params field(s)
    [...]", hiding the real error: it is now an AttributeError naming the field and the
    class, the original as its ``__cause__``; a field that is really missing still says so.
"""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.params_type import ParamsType
from opkit.core.scalar_type import ScalarType
from opkit.core.type import MethodNotDefined
from opkit.link.runner import sequential_runner


class ScaleByParams(Op):
    """x * scale, where scale is a params field read from the op (perform only)."""

    __props__ = ("factor",)
    params_type = ParamsType(scale=ScalarType("float64"))

    def __init__(self, factor=2.0):
        self.factor = factor

    @property
    def scale(self):
        return self.factor

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage, params):
        output_storage[0][0] = np.asarray(inputs[0] * params.scale, dtype=node.outputs[0].type.dtype)


class RemovedNumpyConstant(ScaleByParams):
    """Its property reads a numpy name numpy 2 removed: an AttributeError inside the property."""

    __props__ = ()

    def __init__(self):
        super().__init__(1.0)

    @property
    def scale(self):
        return float(np.float_(3.0))  # removed in numpy 2.0: AttributeError


class NoScale(Op):
    """It has no attribute for the params field at all."""

    __props__ = ()
    params_type = ParamsType(scale=ScalarType("float64"))

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])


class FailingParams(ScaleByParams):
    """get_params raises its own error (as a user's get_params can)."""

    __props__ = ()

    def __init__(self):
        super().__init__(1.0)

    def get_params(self, node):
        raise ValueError("the scale could not be read from the config")


def _chain(exc):
    found = []
    while exc is not None:
        found.append(exc)
        exc = exc.__cause__ or exc.__context__
    return found


def test_the_params_op_works():
    x = ot.dvector("x")
    f = opkit.function([x], ScaleByParams(2.0)(x), mode="FAST_COMPILE")
    np.testing.assert_array_equal(f(np.arange(3.0)), 2.0 * np.arange(3.0))


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "FAST_RUN"])
def test_an_error_setting_up_the_first_runner_instance_has_no_unrelated_context(mode):
    x = ot.dvector("x")
    with pytest.raises(ValueError, match="the scale could not be read from the config") as excinfo:
        f = opkit.function([x], FailingParams()(x), mode=mode)
        f(np.arange(3.0))
    chain = _chain(excinfo.value)
    assert not any(isinstance(e, IndexError) for e in chain), chain
    assert "pop from empty list" not in "".join(map(str, chain))


def test_the_runner_raises_a_build_error_as_it_is():
    """sequential_runner directly: the error building an instance is not raised during an IndexError."""

    class Graph:
        inputs, outputs = [], [object()]

        def toposort(self):
            return []

        def variables(self):
            return []

    def build(storage, compute_map):
        raise RuntimeError("cannot build the thunks")

    run = sequential_runner(Graph(), build)
    with pytest.raises(RuntimeError, match="cannot build the thunks") as excinfo:
        run()
    assert excinfo.value.__context__ is None and excinfo.value.__cause__ is None


def test_an_attribute_error_inside_a_params_property_is_shown_with_its_cause():
    op = RemovedNumpyConstant()
    node = op.make_node(ot.dvector("x"))
    with pytest.raises(AttributeError) as excinfo:
        op.get_params(node)
    text = str(excinfo.value)
    assert "reading RemovedNumpyConstant.scale for the params field 'scale'" in text, text
    assert "float_" in text, text  # the real error's words
    assert "has no attribute for the params field" not in text, text
    cause = excinfo.value.__cause__
    assert isinstance(cause, AttributeError) and "float_" in str(cause)
    assert not isinstance(excinfo.value, MethodNotDefined)


def test_the_same_error_reaches_a_function_call_with_its_cause():
    x = ot.dvector("x")
    with pytest.raises(AttributeError) as excinfo:
        opkit.function([x], RemovedNumpyConstant()(x), mode="FAST_COMPILE")(np.arange(3.0))
    chain = _chain(excinfo.value)
    assert any("float_" in str(e) for e in chain[1:]), chain
    assert not any(isinstance(e, IndexError) for e in chain), chain


def test_a_field_that_is_really_missing_still_says_so():
    op = NoScale()
    node = op.make_node(ot.dvector("x"))
    with pytest.raises(MethodNotDefined, match=r"NoScale has no attribute for the params field\(s\) \['scale'\]"):
        op.get_params(node)


def test_a_dynamic_attribute_is_read_and_its_absence_is_a_missing_field():
    class Dynamic:
        def __getattr__(self, name):
            if name == "scale":
                return 4.0
            raise AttributeError(name)

    params = ScaleByParams.params_type.get_params(Dynamic())
    assert params.scale == 4.0
    with pytest.raises(MethodNotDefined, match="has no attribute for the params field"):
        ParamsType(other=ScalarType("float64")).get_params(Dynamic())
