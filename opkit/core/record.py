"""Record: a plain class that behaves as a dataclass for repr, == and hashing, without building one at import.

Creating a dataclass costs about a millisecond at import, which a warm fresh
process pays for each (issue 26); these classes are few and their fields fixed.
"""


class Record:
    """repr and == over the names in `_FIELDS` (in order), unhashable, as a dataclass with eq=True.

    Instances keep their fields in __dict__, so they pickle as a dataclass did.
    """

    _FIELDS = ()
    __hash__ = None

    def _values(self):
        return tuple(getattr(self, name) for name in self._FIELDS)

    def __repr__(self):
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"{type(self).__qualname__}({fields})"

    def __eq__(self, other):
        return self._values() == other._values() if other.__class__ is self.__class__ else NotImplemented
