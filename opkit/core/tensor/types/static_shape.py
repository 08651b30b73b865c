"""Reading a static shape in PyTensor's form (`shape=`, ints and None) or Theano's (`broadcastable`, bools).

Theano's ``TensorType(dtype, broadcastable)`` takes a sequence of bools where PyTensor's (and
opkit's) takes the static shape; ``[False, False]`` read as a shape would be the lengths (0, 0),
a silent wrong answer. A sequence whose entries are all bools (Python or numpy) is therefore read
as Theano's form, mapped as PyTensor maps it: True -> length 1, False -> unknown (None). A sequence
that mixes bools with lengths is refused, never guessed.
"""

from __future__ import annotations

import numbers

import numpy as np

_BOOLS = (bool, np.bool_)


def _entries(value, what, keyword):
    """Return `value` as a tuple, or raise TypeError if it is not a sequence of entries."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        kinds = "bools" if keyword == "broadcastable" else "ints and None"
        raise TypeError(f"{what}: {keyword} must be a tuple of {kinds} (one entry per dimension), got {value!r}")
    return tuple(value)


def _is_theano_form(entries):
    return bool(entries) and all(isinstance(entry, _BOOLS) for entry in entries)


def _mixed_forms_error(entries, what):
    as_shape = tuple(None if isinstance(e, _BOOLS) and not e else (1 if isinstance(e, _BOOLS) else e)
                     for e in entries)
    return TypeError(
        f"{what}: shape {entries!r} mixes bools with lengths. A sequence of bools is Theano's broadcastable "
        f"form (True: length 1, False: unknown length); ints and None are the static shape form (PyTensor's "
        f"shape=). opkit does not guess which was meant.\nHint: pass one form, e.g. shape={as_shape!r} "
        f"(if the bools meant broadcastable) or broadcastable=[...] with bools only.")


def broadcastable_shape(broadcastable, what):
    """Return Theano's `broadcastable` (bools; 0/1 as Theano's bool()) as a static shape: True -> 1, False -> None."""
    entries = _entries(broadcastable, what, "broadcastable")
    for axis, entry in enumerate(entries):
        if not isinstance(entry, _BOOLS) and not (isinstance(entry, numbers.Integral) and entry in (0, 1)):
            raise TypeError(f"{what}: broadcastable entry {axis} is {entry!r}; broadcastable entries are bools "
                            f"(True: length 1, False: unknown length).\nHint: to give lengths, pass "
                            f"shape=(...) with ints and None.")
    return tuple(1 if entry else None for entry in entries)


def _check_length(shape, ndim, what):
    if ndim is not None and len(shape) != ndim:
        entries = "1 entry" if len(shape) == 1 else f"{len(shape)} entries"
        article = "an" if what[0] in "aeiou" else "a"
        raise ValueError(f"{what}: shape {shape} has {entries} but {article} {what} has {ndim} "
                         f"dimension{'s' if ndim != 1 else ''}.\nHint: pass one entry per dimension, "
                         f"None where the length is not known, e.g. shape={(None,) * ndim}.")


def static_shape(shape, ndim, what):
    """Return `shape` as a tuple of ints and None with `ndim` entries, or raise saying what is wrong.

    `what` names the caller in the message (``vector``, ``tensor``...); `ndim` None accepts any
    length. A sequence of bools only is Theano's broadcastable form (True -> 1, False -> None).
    """
    entries = _entries(shape, what, "shape")
    if _is_theano_form(entries):
        shape = broadcastable_shape(entries, what)
        _check_length(shape, ndim, what)
        return shape
    if any(isinstance(entry, _BOOLS) for entry in entries):
        raise _mixed_forms_error(entries, what)
    _check_length(entries, ndim, what)
    for axis, length in enumerate(entries):
        if length is None:
            continue
        if not isinstance(length, numbers.Integral):
            raise TypeError(f"{what}: shape entry {axis} is {length!r}; entries must be ints or None")
        if length < 0:
            raise ValueError(f"{what}: shape entry {axis} is {length}; lengths cannot be negative")
    return tuple(None if s is None else int(s) for s in entries)


def shape_or_broadcastable(shape, broadcastable, what):
    """Return the static shape given as `shape` (either form) and/or `broadcastable`; both must agree."""
    if shape is None and broadcastable is None:
        raise TypeError(f"{what} needs shape=(...) (ints and None) or broadcastable=[...] (bools)")
    if broadcastable is None:
        return static_shape(shape, None, what)
    from_bcast = broadcastable_shape(broadcastable, what)
    if shape is None:
        return from_bcast
    given = static_shape(shape, None, what)
    if len(given) != len(from_bcast) or any((length == 1) != (bcast == 1) for length, bcast in
                                            zip(given, from_bcast)):
        raise ValueError(
            f"{what}: shape={given} and broadcastable={tuple(bool(b) for b in broadcastable)} disagree "
            f"(broadcastable is True exactly where the length is 1).\nHint: pass only one of them: shape= "
            f"for lengths (PyTensor's form), broadcastable= for Theano's.")
    return given
