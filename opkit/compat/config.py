"""``config`` as Theano and PyTensor code reads it: opkit's flags, with upstream's ``cxx`` and a few flags of theirs.

Every opkit flag reads and sets opkit's ``config`` (``change_flags`` too), but ``cxx``: upstream's is
the compiler found ("" when there is none: their test of "can C run"), opkit's is the compiler asked
for ("" meaning "find g++, clang++ or c++"). Upstream flags opkit has no use for (``compute_test_value``,
``DebugMode__patience``...) hold upstream's defaults and may be set; ``compute_test_value`` is read by
Theano's ``gof.op.get_debug_values`` and ``debug_error_message`` (opkit.compat.theano.gof.test_value).
"""

from __future__ import annotations

import contextlib

from opkit.config import config as _config
from opkit.cop.toolchain.compiler import find_compiler
from opkit.errors import CompileError

_TEST_VALUE_MODES = ("off", "ignore", "warn", "raise", "pdb")


class UpstreamConfig:
    """opkit's config under Theano's or PyTensor's reading of it (see the module's docstring)."""

    def __init__(self, own):
        object.__setattr__(self, "_own", dict(own))

    def __getattr__(self, name):
        if name == "cxx":
            return _found_compiler() if not _config.cxx else _config.cxx
        own = object.__getattribute__(self, "_own")
        if name in own:
            return own[name]
        return getattr(_config, name)

    def __setattr__(self, name, value):
        if name in self._own:
            if name.startswith("compute_test_value") and value not in _TEST_VALUE_MODES:
                raise ValueError(f"config.{name} must be one of {', '.join(_TEST_VALUE_MODES)}, not {value!r}")
            self._own[name] = value
        else:
            setattr(_config, name, value)

    @contextlib.contextmanager
    def change_flags(self, **changes):
        """Set flags for a `with` block (or a decorated function): upstream's own here, the rest opkit's."""
        mine = {k: v for k, v in changes.items() if k in self._own}
        old = {k: self._own[k] for k in mine}
        try:
            for name, value in mine.items():
                setattr(self, name, value)
            with _config.change_flags(**{k: v for k, v in changes.items() if k not in mine}):
                yield self
        finally:
            self._own.update(old)

    def __dir__(self):
        return sorted({*dir(_config), *self._own, "cxx"})


def _found_compiler():
    try:
        return " ".join(find_compiler().command)
    except CompileError:
        return ""


theano_config = UpstreamConfig({"compute_test_value": "off", "compute_test_value_opt": "off"})
pytensor_config = UpstreamConfig({"compute_test_value": "off", "DebugMode__patience": 10,
                                  "on_opt_error": "warn"})

__all__ = ["UpstreamConfig", "pytensor_config", "theano_config"]
