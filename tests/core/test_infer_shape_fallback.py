"""An op's infer_shape that raises (other than NotImplementedError), as Theano: a warning naming the op and
the exception, and the shape from running the op; config.on_shape_error = "raise" makes it an error for op
authors' tests (issue 34, item 5)."""

import logging

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit import Apply, Op
from opkit.config import Config
from opkit.core.shape_inference import ShapeInferenceError

LOGGER = "opkit.shape_inference"


class Repeat(Op):
    """out = np.repeat(x, 2): its infer_shape is given per test."""

    __props__ = ("how",)

    def __init__(self, how):
        self.how = how

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [ot.vector(dtype=x.dtype)])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = np.repeat(inputs[0], 2)

    def infer_shape(self, node, input_shapes):
        (n,) = input_shapes[0]
        if self.how == "raises":
            raise ValueError("boom in infer_shape")
        if self.how == "key_error":
            return {"shape": n}["missing"]
        if self.how == "not_implemented":
            raise NotImplementedError
        if self.how == "too_few":
            return []
        if self.how == "none":
            return None
        if self.how == "float_dim":
            return [(2.5,)]
        return [(n * 2,)]


class RepeatC(Repeat):
    def c_code(self, node, name, inp, out, sub):
        x, z, fail = inp[0], out[0], sub["fail"]
        return f"""
        {{
            npy_intp n = 2 * PyArray_DIM({x}, 0);
            Py_XDECREF({z});
            {z} = (PyArrayObject*)PyArray_EMPTY(1, &n, PyArray_TYPE({x}), 0);
            if (!{z}) {fail}
            for (npy_intp i = 0; i < n; ++i)
                memcpy(PyArray_GETPTR1({z}, i), PyArray_GETPTR1({x}, i / 2), PyArray_ITEMSIZE({x}));
        }}
        """

    def c_code_cache_version(self):
        return (1,)


def _run(op, mode, dtype="float64"):
    x = ot.vector("x", dtype=dtype)
    y = op(x)
    f = opkit.function([x], [y.shape, y * 2, y.shape[0] + 1], mode=mode)
    data = np.arange(5).astype(dtype)
    shape, doubled, plus = f(data)
    np.testing.assert_array_equal(shape, [10])
    np.testing.assert_array_equal(doubled, np.repeat(data, 2) * 2)
    assert int(plus) == 11


FAILING = ["raises", "key_error", "too_few", "none"]


@pytest.mark.parametrize("cls", [Repeat, RepeatC])
@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_a_raising_infer_shape_warns_naming_the_op_and_runs_it_for_the_shape(cls, mode, caplog):
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        _run(cls("raises"), mode)
    warnings = [r for r in caplog.records if r.name == LOGGER]
    if mode == "FAST_COMPILE" and not warnings:
        return  # no shape rewrite asked for infer_shape: nothing to warn about, and the shape is right
    assert len(warnings) >= 1
    text = warnings[0].getMessage()
    assert text.startswith(f"infer_shape of {cls.__name__}{{how='raises'}} (op {cls.__module__}.{cls.__qualname__}) "
                           f"raised ValueError: boom in infer_shape; opkit runs the op for its output shapes "
                           f"instead.\nHint: fix infer_shape, or raise NotImplementedError where it cannot tell; "
                           f"OPKIT_FLAGS=on_shape_error=raise makes this an error (for op authors' tests).")
    assert warnings[0].levelno == logging.WARNING


@pytest.mark.parametrize("how, said", [("key_error", "KeyError: 'missing'"),
                                       ("too_few", r"TypeError: infer_shape returned \[\], not a list of one "
                                                   r"shape per output \(1\)"),
                                       ("none", "TypeError: infer_shape returned None, not a list of one shape "
                                                "per output"),
                                       ("float_dim", "TypeError: infer_shape gave the dimension 2.5")])
def test_every_kind_of_failure_falls_back(how, said, caplog):
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        _run(Repeat(how), "FAST_RUN")
    messages = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert messages and any(__import__("re").search(said, m) for m in messages), messages


def test_not_implemented_is_quiet(caplog):
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        _run(Repeat("not_implemented"), "FAST_RUN")
        _run(Repeat("works"), "FAST_RUN")
    assert not [r for r in caplog.records if r.name == LOGGER]


@pytest.mark.parametrize("how, cause", [("raises", ValueError), ("key_error", KeyError), ("too_few", TypeError)])
def test_on_shape_error_raise_makes_it_an_error_for_op_authors(how, cause):
    x = ot.dvector("x")
    y = Repeat(how)(x)
    with opkit.config.change_flags(on_shape_error="raise"):
        with pytest.raises(ShapeInferenceError, match=rf"^infer_shape of Repeat{{how='{how}'}} \(op "
                                                      rf"{__name__}\.Repeat\) raised {cause.__name__}: .*\n"
                                                      rf"\(config\.on_shape_error is 'raise'; with 'warn', the "
                                                      rf"default, opkit warns and runs the op for its output "
                                                      rf"shapes\)$") as excinfo:
            opkit.function([x], y.shape)
    assert isinstance(excinfo.value.__cause__, cause)
    with opkit.config.change_flags(on_shape_error="raise"):
        _run(Repeat("works"), "FAST_RUN")  # a working infer_shape is not affected
        _run(Repeat("not_implemented"), "FAST_RUN")


def test_the_flag_is_checked_and_read_from_opkit_flags():
    assert opkit.config.on_shape_error == "warn"
    assert Config({"OPKIT_FLAGS": "on_shape_error=raise"}).on_shape_error == "raise"
    with pytest.raises(ValueError, match=r"opkit flag on_shape_error='maybe' is not one of 'warn', 'raise'"):
        opkit.config.on_shape_error = "maybe"


def test_infer_shape_tester_reports_the_exception_not_a_missing_infer_shape():
    from opkit.testing import InferShapeError, InferShapeTester

    tester = InferShapeTester()
    x = ot.dvector("x")
    with pytest.raises(InferShapeError, match=r"^infer_shape of Repeat\{how='raises'\} .* raised ValueError: boom in "
                                              r"infer_shape\n") as excinfo:
        tester._compile_and_check([x], [Repeat("raises")(x)], [np.arange(3.0)], Repeat)
    assert isinstance(excinfo.value.__cause__, ValueError) and excinfo.value.cls is Repeat
    tester._compile_and_check([x], [Repeat("works")(x)], [np.arange(3.0)], Repeat)
    assert opkit.config.on_shape_error == "warn"  # the tester's setting does not leak
