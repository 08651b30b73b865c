"""theano.gof.utils: MethodNotDefined and Theano's small helpers (``memoize``, ``uniq``, ``difference`` ...).

The helpers follow Theano 1.0's (BSD-3). opkit keeps no creation traceback on variables, so
``add_tag_trace`` returns its argument and ``get_variable_trace_string`` an empty string.
"""

from opkit.core.type import MethodNotDefined


def memoize(f):
    """Cache `f`'s result per tuple of (hashable) arguments."""
    cache = {}

    def cached(*args, **kwargs):
        key = (args, tuple(kwargs.items()))
        if key not in cache:
            cache[key] = f(*args, **kwargs)
        return cache[key]

    return cached


def uniq(seq):
    """Return `seq` without repeats, first occurrences kept in order (works on unhashable items)."""
    return [x for i, x in enumerate(seq) if seq.index(x) == i]


def difference(seq1, seq2):
    """Return the items of `seq1` that are not in `seq2`, in order."""
    try:
        excluded = set(seq2)
    except TypeError:  # unhashable items
        excluded = seq2
    return [x for x in seq1 if x not in excluded]


def to_return_values(values):
    """Return the only value bare, else the list."""
    return values[0] if len(values) == 1 else values


def from_return_values(values):
    """Return `values` as a list or tuple (a bare value becomes a one-item list)."""
    return values if isinstance(values, (list, tuple)) else [values]


def unique(x):
    """Return True if no item of `x` is repeated."""
    return len(set(x)) == len(x)


def remove(predicate, coll):
    """Return the items of `coll` for which `predicate` is false."""
    return [x for x in coll if not predicate(x)]


def hashtype(self):
    """Theano's hash of an object by its class: the class's name and module."""
    t = type(self)
    return hash(t.__name__) ^ hash(t.__module__)


def give_variables_names(variables):
    """Give the unnamed or same-named variables of `variables` unique names (``name_0`` ...); return them."""
    counts = {}
    for var in variables:
        counts[var.name] = counts.get(var.name, 0) + 1
    for i, var in enumerate([v for v in variables if not v.name or counts[v.name] > 1]):
        var.name = f"{var.name or ''}_{i}"
    if not unique([str(v) for v in variables]):
        raise ValueError("Not all variables have unique names. Maybe you've named some of the variables identically")
    return variables


def add_tag_trace(thing, user_line=None):
    """Return `thing` (opkit keeps no creation traceback in ``tag.trace``)."""
    return thing


def get_variable_trace_string(v):
    """Return '' (opkit keeps no creation traceback to show)."""
    return ""


class object2:
    """Theano's base class of graph objects: ``!=`` as the negation of ``==``."""

    __slots__ = ()

    def __ne__(self, other):
        return not self == other


__all__ = ["MethodNotDefined", "add_tag_trace", "difference", "from_return_values", "get_variable_trace_string",
           "give_variables_names", "hashtype", "memoize", "object2", "remove", "to_return_values", "uniq", "unique"]
