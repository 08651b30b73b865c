"""Theano's ``patternbroadcast``, ``addbroadcast`` and ``unbroadcast`` over opkit's static shapes.

A broadcastable axis is a static length of 1. Making an axis broadcastable is
``specify_shape(x, 1 there)`` (checked when run); making a static 1 unknown again is a reshape of
`x` to its own shape (a view), whose type knows no lengths, followed by ``specify_shape`` of the
lengths that stay known.
"""

from opkit.tensor import as_tensor_variable, reshape, shape, specify_shape


def patternbroadcast(x, broadcastable):
    """Return `x` with the broadcastable pattern `broadcastable` (a bool per axis)."""
    x = as_tensor_variable(x)
    pattern = tuple(bool(b) for b in broadcastable)
    if len(pattern) != x.ndim:
        raise ValueError(f"patternbroadcast: {len(pattern)} flags for {x} of {x.ndim} dimension(s)")
    if pattern == x.type.broadcastable:
        return x
    wanted = tuple(1 if b else (None if length == 1 else length) for b, length in zip(pattern, x.type.shape))
    if any(length == 1 and not b for b, length in zip(pattern, x.type.shape)):
        x = reshape(x, shape(x))  # forgets every static length
    return specify_shape(x, wanted)


def addbroadcast(x, *axes):
    """Return `x` with the given axes broadcastable (their length must be 1 when run)."""
    x = as_tensor_variable(x)
    axes = {a % x.ndim for a in axes}
    return patternbroadcast(x, [b or i in axes for i, b in enumerate(x.type.broadcastable)])


def unbroadcast(x, *axes):
    """Return `x` with the given axes not broadcastable."""
    x = as_tensor_variable(x)
    axes = {a % x.ndim for a in axes}
    return patternbroadcast(x, [b and i not in axes for i, b in enumerate(x.type.broadcastable)])


__all__ = ["addbroadcast", "patternbroadcast", "unbroadcast"]
