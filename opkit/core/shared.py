"""Shared variables: symbolic variables whose value lives between calls, read and updated by compiled functions.

A SharedVariable keeps its value in ``container.storage``, a one-item list (as
PyTensor's Container). Every function using the variable reads that item at
each call, and a function with ``updates`` writes the new value back into it,
so ``set_value`` between calls is seen by the next call of every function.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from opkit.core.graph import Variable
from opkit.core.tensor.types.symbolic import _TensorOperators
from opkit.core.type import generic
from opkit.core.tensor.types.type import TensorType
from opkit.config import config


class Container:
    """Where a shared variable's value lives: ``storage[0]``, filtered through its type on assignment."""

    def __init__(self, variable, value, strict=False, allow_downcast=None):
        self.variable = variable
        self.type = variable.type
        self.strict = strict
        self.allow_downcast = allow_downcast
        self.storage = [value]

    @property
    def value(self):
        """The value itself (not a copy)."""
        return self.storage[0]

    @value.setter
    def value(self, value):
        self.storage[0] = self.filter(value)

    def filter(self, value):
        """Return `value` as a valid value of the variable's type, or raise TypeError saying how to fix it."""
        try:
            return self.type.filter(value, strict=self.strict, allow_downcast=self.allow_downcast)
        except (TypeError, ValueError) as exc:
            name = self.variable.name
            label = f"shared variable {name!r}" if name else "a shared variable"
            hint = ("\nHint: it was created with strict=True: pass a value of exactly its type, "
                    "or create it with strict=False." if self.strict else "")
            raise TypeError(f"cannot set {label} of type {self.type}: {exc}{hint}") from None

    def __repr__(self):
        return f"<Container of {self.variable}>"


class SharedVariable(Variable):
    """A variable whose value is kept between calls of the compiled functions that use it.

    Functions read it implicitly (it is never listed among their inputs) and
    may replace it through ``updates``.
    """

    default_update = None
    """An expression: the variable's update in every function that reads it and gives it no update of its own
    (unless the function's no_default_updates says otherwise), as Theano's and PyTensor's."""

    def __init__(self, type, value=None, strict=False, allow_downcast=None, container=None, name=None,
                 borrow=True):
        super().__init__(type, None, None, name)
        if container is None:
            container = Container(self, None, strict, allow_downcast)
            # The first value is checked without `strict`: shared() types it from the value itself.
            container.storage[0] = _filtered(value, lambda v: type.filter(v, allow_downcast=allow_downcast), borrow)
        self.container = container

    def get_value(self, borrow: bool = False) -> Any:
        """Return the value: a copy, or with ``borrow=True`` the stored object itself.

        A borrowed array is never written by opkit (updates store new arrays), but
        writing into it changes what every function reads.
        """
        import copy

        value = self.container.storage[0]
        return value if borrow else copy.deepcopy(value)

    def set_value(self, value: Any, borrow: bool = False) -> None:
        """Store `value` (a copy unless ``borrow=True``), filtered through the variable's type.

        A value whose dtype would lose information is refused with TypeError; a
        strict shared variable takes only values of exactly its type.
        """
        self.container.storage[0] = _filtered(value, self.container.filter, borrow)

    @property
    def strict(self):
        return self.container.strict

    def clone(self, name=None):
        """Return another SharedVariable over the same container (the same value)."""
        return type(self)(self.type, container=self.container, name=self.name if name is None else name)

    def __str__(self):
        return self.name if self.name is not None else f"<shared {self.type}>"


class TensorSharedVariable(_TensorOperators, SharedVariable):
    """A shared n-d array: a SharedVariable with the tensor operators."""


def shared(value: Any, name: str | None = None, strict: bool = False, borrow: bool = False,
           allow_downcast: bool | None = None, shape: tuple | None = None) -> SharedVariable:
    """Return a SharedVariable holding `value` (a copy unless ``borrow=True``).

    A numpy array gives a tensor of its dtype and ndim whose shape may change
    (every static shape entry None, as in PyTensor); a numpy scalar, a 0-d
    tensor of its dtype; a Python float a 0-d tensor of ``config.floatX``, a
    Python int one of int64 (bool: bool, complex: complex128). Anything else is
    kept as a generic Python object. With ``strict=True``, ``set_value`` takes
    only values of exactly the variable's type. ``shape`` (tensors only, as in
    PyTensor) fixes some lengths: ``shape=(1, None)`` is a row that broadcasts.
    """
    if isinstance(value, Variable):
        raise TypeError(f"shared() takes a value, not a symbolic variable ({value}).\n"
                        "Hint: evaluate it first (value.eval()), or use the variable in the graph directly.")
    tensor_type = _tensor_type_of(value, shape)
    if tensor_type is None:
        if shape is not None:
            raise TypeError(f"shared(): shape= is for numeric arrays, not {type(value).__name__} values")

        return SharedVariable(generic, value, strict, allow_downcast, name=name, borrow=borrow)
    return TensorSharedVariable(tensor_type, value, strict, allow_downcast, name=name, borrow=borrow)


def _filtered(value, filter, borrow):
    """Return filter(value), copied unless `borrow` when it is (or may share memory with) `value` itself."""
    import copy

    result = filter(value)
    if not borrow and (result is value or (isinstance(result, np.ndarray) and isinstance(value, np.ndarray)
                                           and np.may_share_memory(result, value))):
        result = copy.deepcopy(result)
    return result


def _tensor_type_of(value, shape=None):
    """Return the TensorType a shared variable of `value` gets, or None for a generic Python object."""
    if isinstance(value, np.ndarray):
        dtype = value.dtype
    elif isinstance(value, np.generic):
        dtype = value.dtype
    elif isinstance(value, bool):
        dtype = np.dtype(bool)
    elif isinstance(value, numbers.Integral):
        dtype = np.dtype("int64")
    elif isinstance(value, numbers.Real):
        dtype = np.dtype(config.floatX)
    elif isinstance(value, numbers.Complex):
        dtype = np.dtype("complex128")
    else:
        return None
    if dtype.kind not in "biufc":
        return None
    ndim = np.ndim(value)
    if shape is not None and len(shape) != ndim:
        raise ValueError(f"shared(): shape={tuple(shape)} has {len(shape)} entries for a value with {ndim} dimensions")
    return TensorType(dtype.newbyteorder("="), shape=(None,) * ndim if shape is None else shape)
