"""DeepCopyOp, ViewOp, Shape and Shape_i, with C code registered per Type class.

The code registered for a type is either a str of C with `%(iname)s`, `%(oname)s`, `%(fail)s` (and for
Shape_i `%(i)s`) substituted, or a section file (an `os.PathLike`, e.g. a pathlib.Path) whose `code`
section is expanded with the macros of a user's COp: INPUT_0, OUTPUT_0, FAIL, DTYPE_INPUT_0, ...,
and for Shape_i SHAPE_I_INDEX (its i). opkit's own TensorType registers files (opkit/core/tensor/).
"""

from __future__ import annotations

import os
import pathlib

import numpy as np

from opkit.core.c_source import file_sections
from opkit.core.graph import Apply, Variable
from opkit.core.op import Op
from opkit.core.tensor.types.operators import find  # TensorType: a shape is a tensor
from opkit.core.type import MethodNotDefined

# Type class -> (code, version) (for Shape_i: (code, check_input, version)); code is a str or a Path
_DEEP_COPY_C, _VIEW_C, _SHAPE_C, _SHAPE_I_C = {}, {}, {}, {}


def _code(code):
    """Return registered code as kept: a str of C as given, a section file as an absolute Path."""
    if isinstance(code, os.PathLike):
        return pathlib.Path(os.path.abspath(os.fspath(code)))
    return code


def register_deep_copy_op_c_code(type_class, code, version=()):
    """Give DeepCopyOp C code for inputs of `type_class` (%(iname)s, %(oname)s, %(fail)s), or a section file."""
    _DEEP_COPY_C[type_class] = (_code(code), tuple(version))


def register_view_op_c_code(type_class, code, version=()):
    """Give ViewOp C code for inputs of `type_class` (%(iname)s, %(oname)s, %(fail)s), or a section file."""
    _VIEW_C[type_class] = (_code(code), tuple(version))


def register_shape_c_code(type_class, code, version=()):
    """Give Shape C code for inputs of `type_class` (%(iname)s, %(oname)s, %(fail)s), or a section file."""
    _SHAPE_C[type_class] = (_code(code), tuple(version))


def register_shape_i_c_code(type_class, code, check_input, version=()):
    """Give Shape_i C code for `type_class`; `check_input` guards that dimension %(i)s exists (each a str
    or a section file, whose macro SHAPE_I_INDEX is i)."""
    _SHAPE_I_C[type_class] = (_code(code), _code(check_input), tuple(version))


def _lookup(registry, variable):
    for klass in type(variable.type).__mro__:
        if klass in registry:
            return registry[klass]
    return None


class _RegisteredCOp(Op):
    """An op whose C code comes from a per-type registry."""

    __props__ = ()
    _registry: dict = {}

    def _entry(self, node):
        entry = _lookup(self._registry, node.inputs[0])
        if entry is None:
            raise MethodNotDefined("c_code", f"{self} has no C code registered for {type(node.inputs[0].type).__name__}")
        return entry

    def has_c_code(self, node):
        return _lookup(self._registry, node.inputs[0]) is not None

    def c_code(self, node, name, inputs, outputs, sub):
        return self._expand(self._entry(node)[0], node, name, inputs, outputs, sub)

    def _expand(self, code, node, name, inputs, outputs, sub):
        """Return registered code for this node: a str with its %(...)s filled, a file's `code` section."""
        if isinstance(code, pathlib.Path):
            return file_sections(self, (code,), self._macros()).c_code(node, name, inputs, outputs, sub)
        return code % dict(iname=inputs[0], oname=outputs[0], fail=sub["fail"], **self._extra_sub())

    def _extra_sub(self):
        return {}

    def _macros(self):
        return ()

    def c_code_cache_version_apply(self, node):
        return self._entry(node)[-1]


class DeepCopyOp(_RegisteredCOp):
    """Return a copy of the input, so a function's output never aliases its input."""

    _registry = _DEEP_COPY_C

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        import copy

        value = inputs[0]
        output_storage[0][0] = value.copy() if hasattr(value, "copy") else copy.deepcopy(value)

    def do_constant_folding(self, node):
        return False

    def infer_shape(self, node, input_shapes):
        return input_shapes

    def shape_checks(self, node, input_shapes):
        return []  # nothing beyond its input's own checks


class ViewOp(_RegisteredCOp):
    """Return the input itself (a view): used to check view-related bookkeeping."""

    _registry = _VIEW_C
    view_map = {0: [0]}

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]

    def infer_shape(self, node, input_shapes):
        return input_shapes

    def shape_checks(self, node, input_shapes):
        return []  # nothing beyond its input's own checks


class Shape(_RegisteredCOp):
    """The shape of any value with a `.shape`, as an int64 vector."""

    _registry = _SHAPE_C

    def make_node(self, x):
        TensorType = find("TensorType")

        if not isinstance(x, Variable):
            raise TypeError(f"Shape expects a Variable, got {x!r}")
        ndim = getattr(x.type, "ndim", None)
        return Apply(self, [x], [TensorType("int64", (ndim,))()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(np.shape(inputs[0]), dtype="int64")

    def infer_shape(self, node, input_shapes):
        return [(len(input_shapes[0]),)]

    def shape_checks(self, node, input_shapes):
        return []

    def connection_pattern(self, node):
        return [[False]]


class Shape_i(_RegisteredCOp):
    """Dimension `i` of the shape of the input, as an int64 scalar."""

    __props__ = ("i",)
    _registry = _SHAPE_I_C

    def __init__(self, i):
        self.i = int(i)

    def make_node(self, x):
        TensorType = find("TensorType")

        ndim = getattr(x.type, "ndim", None)
        if ndim is not None and not 0 <= self.i < ndim:
            raise ValueError(f"Shape_i({self.i}) of {x} which has {ndim} dimensions")
        return Apply(self, [x], [TensorType("int64", ())()])

    def perform(self, node, inputs, output_storage):
        shape = np.shape(inputs[0])
        if self.i >= len(shape):
            raise IndexError(f"Shape_i({self.i}) of a value with shape {shape}")
        output_storage[0][0] = np.asarray(shape[self.i], dtype="int64")

    def c_code(self, node, name, inputs, outputs, sub):
        code, check_input = self._entry(node)[:2]
        check = self._expand(check_input, node, name, inputs, outputs, sub) if check_input else ""
        return check + self._expand(code, node, name, inputs, outputs, sub)

    def _extra_sub(self):
        return {"i": self.i}

    def _macros(self):
        return (("SHAPE_I_INDEX", self.i),)

    def infer_shape(self, node, input_shapes):
        return [()]

    def shape_checks(self, node, input_shapes):
        return []  # make_node checked i against the static ndim

    def connection_pattern(self, node):
        return [[False]]

    def __str__(self):
        return f"Shape_i{{{self.i}}}"


deep_copy_op = DeepCopyOp()
view_op = ViewOp()
shape_op = Shape()
