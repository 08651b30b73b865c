"""InferShapeTester: check an op's infer_shape against the shapes it really produces."""

from __future__ import annotations

import warnings

import numpy as np

from opkit.config import config
from opkit.core.shape_inference import ShapeInferenceError
from opkit.gpu.device import using_device
from opkit.link.function import function
from opkit.link.mode import get_mode
from opkit.testing.case import OpTestCase


class InferShapeError(AssertionError):
    """An op's infer_shape is missing, unused or wrong."""

    def __init__(self, message, cls=None, output_index=None, expected=None, inferred=None):
        self.cls = cls
        self.output_index = output_index
        self.expected = expected
        self.inferred = inferred
        super().__init__(message)


class RepeatedDimensionWarning(UserWarning):
    """Test inputs with equal dimension lengths cannot tell those dimensions apart."""


class InferShapeTester(OpTestCase):
    """Base class giving tests ``self._compile_and_check`` (also ``self.rng``, seeded, and ``self.mode``).

    ``self.mode`` is the class's ``mode`` attribute if set, else FAST_RUN:
    shape inference is one of its rewrites.
    """

    mode = None

    def prepare_fixture(self):
        self.mode = get_mode(self.mode if self.mode is not None else "FAST_RUN")

    def _compile_and_check(self, inputs, outputs, numeric_inputs, cls, excluding=None, warn=True, check_topo=True):
        """Check that shapes of `outputs` are inferred without running `cls`, and are right.

        `numeric_inputs` are values for `inputs`. With `warn`, inputs whose
        dimensions share a length (a square matrix) trigger a warning, as
        they cannot reveal swapped dimensions. `check_topo=False` skips the
        check that `cls` is gone from the shape-only graph.
        """
        if getattr(self, "mode", None) is None or isinstance(self.mode, str):
            self.prepare_fixture()
        mode = self.mode.excluding(*excluding) if excluding else self.mode
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        # Shapes are under test, not dtypes: float64 test data may feed float32 inputs.
        device = mode.resolved_device() if hasattr(mode, "resolved_device") else config.device
        with using_device(device):  # a GPU input's values are the device's (numpy ones when interpreted)
            numeric_inputs = [v.type.filter(value, allow_downcast=True) for v, value in zip(inputs, numeric_inputs)]
        if warn:
            _warn_repeated_lengths(inputs, numeric_inputs, cls)
        # An infer_shape that raises is an error here, not the warning and fallback a user gets.
        with config.change_flags(on_shape_error="raise"):
            try:
                outputs_fn = function(inputs, outputs, mode=mode)
                shapes_fn = function(inputs, [o.shape for o in outputs], mode=mode, on_unused_input="ignore")
            except ShapeInferenceError as exc:
                raise InferShapeError(str(exc), cls=cls) from exc.__cause__
        if check_topo:
            left = [node for node in shapes_fn.maker.fgraph.toposort() if isinstance(node.op, cls)]
            if left:
                raise InferShapeError(
                    f"{_name(cls)} is still computed when only the output shapes are needed: {left[0]}.\n"
                    "Hint: give the op an infer_shape(node, input_shapes) method returning one shape tuple "
                    "per output.", cls=cls)
        if not any(isinstance(node.op, cls) for node in outputs_fn.maker.fgraph.toposort()):
            raise InferShapeError(f"the compiled outputs do not use {_name(cls)} at all; is cls the op under test?",
                                  cls=cls)
        values = outputs_fn(*numeric_inputs)
        shapes = shapes_fn(*numeric_inputs)
        for index, (value, shape) in enumerate(zip(values, shapes)):
            computed, inferred = tuple(np.shape(value)), tuple(int(s) for s in shape)
            if computed != inferred:
                raise InferShapeError(
                    f"infer_shape of {_name(cls)} is wrong for output {index}.\n"
                    f"inferred shape: {inferred}\ncomputed shape: {computed}",
                    cls=cls, output_index=index, expected=computed, inferred=inferred)


def _name(cls):
    return getattr(cls, "__name__", str(cls))


def _warn_repeated_lengths(inputs, numeric_inputs, cls):
    """Warn if some input has two non-broadcastable dimensions of the same length."""
    for variable, value in zip(inputs, numeric_inputs):
        if not hasattr(value, "shape"):
            value = np.asarray(value)
        static = getattr(variable.type, "shape", (None,) * value.ndim)
        lengths = [n for n, s in zip(value.shape, static) if s != 1]
        if len(set(lengths)) != len(lengths):
            warnings.warn(
                f"testing the shape inference of {_name(cls)} with an input of shape {value.shape}, "
                "which repeats a dimension length (like a square matrix): swapped dimensions would go "
                "unnoticed.\nHint: use distinct lengths, or pass warn=False if the op needs them equal.",
                RepeatedDimensionWarning, stacklevel=3)
            return
