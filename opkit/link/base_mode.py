"""The Mode class: a linker plus a rewrite pipeline. Every compilation mode is one (opkit.link.debugmode's
DebugMode subclasses it); opkit.link.mode names them (get_mode).
"""

from __future__ import annotations

from opkit.config import config
from opkit.core.rewrites import PIPELINES, REWRITES
from opkit.gpu.device import check_device
from opkit.lazy import load

_LINKERS = {
    "py": ("opkit.link.py_linker", "PyLinker"),
    "cop": ("opkit.link.c_linker", "NodeCLinker"),
    "c": ("opkit.link.c_linker", "GraphCLinker"),
}


def get_linker(linker):
    """Return a linker instance for a name ('py', 'cop', 'c') or pass an instance through."""
    if not isinstance(linker, str):
        return linker
    try:
        module, name = _LINKERS[linker]
    except KeyError:
        raise ValueError(f"unknown linker {linker!r}; valid linkers: {', '.join(_LINKERS)}") from None
    return load(module, name)()  # lazy: a linker is a leaf that imports its mode; imported when first named


class Mode:
    """A linker ('py', 'cop', 'c' or an instance) plus a rewrite pipeline.

    `device`: "cpu", "cuda" or "cuda-interpret" (opkit.gpu.device), where ops that have a GPU version run;
    None (the default) follows config.device when the function is made."""

    def __init__(self, linker="c", optimizer="fast_run", excluded=(), device=None):
        if device is not None:
            check_device(device, "Mode(device)")
        self.device = device
        self.linker = linker
        if optimizer is not None and not isinstance(optimizer, (str, tuple, list)):
            raise TypeError(f"optimizer must be a pipeline name, a list of rewrite names or None, not {optimizer!r}")
        if isinstance(optimizer, str) and optimizer not in PIPELINES:
            raise ValueError(f"unknown optimizer {optimizer!r}; valid: {', '.join(p for p in PIPELINES if p)}")
        self.optimizer = optimizer
        self.excluded = tuple(excluded)

    def rewrites(self):
        """Return the names of the rewrites this mode runs, in order."""
        names = PIPELINES[self.optimizer] if isinstance(self.optimizer, str) or self.optimizer is None \
            else tuple(self.optimizer)
        for name in names:
            if name not in REWRITES:
                raise ValueError(f"unknown rewrite {name!r}; valid: {', '.join(REWRITES)}")
        return tuple(n for n in names if n not in self.excluded)

    def excluding(self, *names):
        """Return a copy of this mode without the named rewrites."""
        made = type(self)(self.linker, self.optimizer, self.excluded + names)
        made.device = self.device
        return made

    def with_device(self, device):
        """Return a copy of this mode whose functions are made for `device` (see Mode's `device`)."""
        import copy  # not on a warm path (issue 47): only a mode made for another device is copied

        made = copy.copy(self)
        made.device = check_device(device, "Mode(device)")
        return made

    def resolved_device(self):
        """Return the device functions of this mode are made for: its own, else config.device."""
        if getattr(self, "device", None) is not None:  # modes pickled before `device` existed have none
            return self.device
        return config.device

    def make_linker(self):
        return get_linker(self.linker)

    def __repr__(self):
        device = f", device={self.device!r}" if getattr(self, "device", None) is not None else ""
        return f"Mode(linker={self.linker!r}, optimizer={self.optimizer!r}{device})"
