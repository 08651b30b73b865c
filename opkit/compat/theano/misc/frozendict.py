"""theano.misc.frozendict: an immutable, hashable dict (Theano's, for op properties such as inplace patterns)."""

from collections.abc import Mapping


class frozendict(Mapping):  # noqa: N801  (Theano's name)
    """A mapping that cannot change after it is made, hashed by its items."""

    def __init__(self, *args, **kwargs):
        self._dict = dict(*args, **kwargs)
        self._hash = None

    def __getitem__(self, key):
        return self._dict[key]

    def __iter__(self):
        return iter(self._dict)

    def __len__(self):
        return len(self._dict)

    def __contains__(self, key):
        return key in self._dict

    def copy(self, **add_or_replace):
        return type(self)(self, **add_or_replace)

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(frozenset(self._dict.items()))
        return self._hash

    def __repr__(self):
        return f"<frozendict {self._dict!r}>"


__all__ = ["frozendict"]
