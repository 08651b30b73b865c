"""theano.misc: ``frozendict`` (a hashable mapping) and ``safe_asarray._asarray``."""

from opkit.compat.theano.misc import frozendict, safe_asarray  # noqa: F401
