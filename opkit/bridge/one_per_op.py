"""One bridged object per op: equal ops (same props and same Python code) share it."""

from __future__ import annotations

from typing import Any, Callable, MutableMapping

from opkit.core.code_identity import python_identity
from opkit.core.op import Op


def one_per_op(memo: MutableMapping, op: Any, make: Callable[[Op], Any], caller: str) -> Any:
    """Return `memo`'s bridge of `op`, made by ``make(op)`` the first time; an unhashable op gets a fresh one.

    The key is the op and its code identity, so an op class redefined (in a notebook, say) gets its own.
    """
    if not isinstance(op, Op):
        raise TypeError(f"{caller} expects an opkit Op instance, got {op!r}")
    try:
        key = (op, python_identity(op))
        found = memo.get(key)
    except TypeError:  # an unhashable op: a fresh bridge each time
        return make(op)
    if found is None:
        found = memo[key] = make(op)
    return found
