"""`opkit.ops` (and `types`): the installed plugins' ops by name, loaded on first use.

    opkit.ops.vector_times_vector          # attribute
    opkit.ops["vector_times_vector"]       # item
    opkit.ops["my-dist:vector_times_vector"]  # when two distributions register one name
    list(opkit.ops)                        # names
    opkit.ops.info("vector_times_vector")  # where it comes from
"""

from __future__ import annotations

import difflib
from typing import Any

from opkit.core.c_source import section_paths
from opkit.errors import PluginError
from opkit.plugins.manager import DISABLE_VARIABLE, Registration, fix_advice, load_plugins, normalize
from opkit.plugins.validate import qualified_name


class UnknownNameError(KeyError, AttributeError):
    """No installed plugin registers this name (a KeyError for `ops[...]`, an AttributeError for `ops.x`)."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


class BrokenPluginError(PluginError, UnknownNameError):
    """The name is not registered because the plugin that provides it failed to load; the message is that failure.

    An UnknownNameError too, so `name in opkit.ops`, `hasattr` and `except KeyError` read it as "not there".
    """

    def __init__(self, message, name=None, distributions=()):
        PluginError.__init__(self, message, name=name, distributions=distributions)

    def __str__(self):
        return PluginError.__str__(self)


def _broken_provider(name: str, source: str = ""):
    """Return the broken plugin that would provide `name`: one whose entry point, distribution or top-level
    package is named so (as `opkit new` makes them), or the one named by `source` in "dist:name"."""
    wanted = {normalize(name)} | ({normalize(source)} if source else set())
    for record in load_plugins().broken:
        names = {normalize(record.name), normalize(record.distribution),
                 normalize(record.value.partition(":")[0].partition(".")[0])}
        if (source and normalize(source) in names) or (not source and wanted & names):
            return record
    return None


class PluginRegistry:
    """Read-only view of what the plugins registered, of one kind ("op" or "type")."""

    def __init__(self, kind: str, table: str):
        self._kind = kind
        self._table = table

    def _registrations(self) -> dict[str, list[Registration]]:
        return getattr(load_plugins(), self._table)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # private and dunder lookups (copy, pickle) never load plugins
            raise AttributeError(name)
        return self._resolve(name).obj

    def __getitem__(self, key: str) -> Any:
        if not isinstance(key, str):
            raise TypeError(f"opkit {self._table} are looked up by name (a str), got {key!r}")
        return self._resolve(key).obj

    def __contains__(self, key) -> bool:
        if not isinstance(key, str):
            return False
        try:
            self._resolve(key)
        except UnknownNameError:
            return False
        except PluginError:  # registered, by several distributions
            return True
        return True

    def __iter__(self):
        return iter(sorted(self._registrations()))

    def __len__(self) -> int:
        return len(self._registrations())

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self._registrations()))

    def __repr__(self) -> str:
        return f"<opkit {self._table}: {', '.join(self) or 'none installed'}>"

    def info(self, key: str) -> dict:
        """Return where `key` comes from: name, plugin, distribution, version, class and C files."""
        return self.describe(self._resolve(key))

    def describe(self, registration: Registration) -> dict:
        """Return the info() dict of one registration."""
        obj = registration.obj
        return {
            "name": registration.name,
            "plugin": registration.record.name,
            "distribution": registration.record.distribution,
            "version": registration.record.version,
            f"{self._kind}_class": qualified_name(type(obj)),
            "c_files": [str(path) for path in _c_files(obj)],
        }

    def _resolve(self, key: str) -> Registration:
        source, _, name = key.rpartition(":")
        candidates = self._registrations().get(name, [])
        if not candidates:
            broken = _broken_provider(name, source)
            if broken is not None:
                raise BrokenPluginError(self._broken_message(name, broken), name=name,
                                        distributions=(broken.distribution,)) from broken.exception
            raise UnknownNameError(self._unknown_message(name))
        if source:
            return self._pick(source, name, candidates)
        if len(candidates) > 1:
            raise self._conflict(name, candidates)
        return candidates[0]

    def _pick(self, source, name, candidates) -> Registration:
        """Return the registration of `name` by distribution (or plugin) `source`."""
        wanted = normalize(source)
        matches = [r for r in candidates if normalize(r.record.distribution) == wanted]
        if len(matches) != 1:  # a plugin (entry point) name also picks, e.g. two plugins of one distribution
            matches = [r for r in candidates if normalize(r.record.name) == wanted] or matches
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise self._conflict(name, matches)
        sources = ", ".join(sorted({r.record.distribution for r in candidates}))
        raise UnknownNameError(f"no installed distribution {source!r} registers the {self._kind} {name!r}\n"
                               f"{name!r} is registered by: {sources}")

    def _conflict(self, name, candidates) -> PluginError:
        distributions = [r.record.distribution for r in candidates]
        same_distribution = len(set(distributions)) < len(distributions)
        sources = [r.record.name if same_distribution else r.record.distribution for r in candidates]
        listed = "\n".join(f"  {r.record.distribution} {r.record.version} (plugin {r.record.name!r}): "
                           f"{qualified_name(type(r.obj))}" for r in candidates)
        picks = " or ".join(f'opkit.{self._table}["{source}:{name}"]' for source in sources)
        return PluginError(f"the {self._kind} {name!r} is registered by {len(candidates)} plugins:\n{listed}\n"
                           f"use {picks} to pick one, or set {DISABLE_VARIABLE}={sources[-1]} to "
                           f"disable one", name=name, distributions=distributions)

    def _broken_message(self, name, record) -> str:
        return (f"the {self._kind} {name!r} is not available: {record.describe()}, which provides it, failed to "
                f"load:\n{record.error}\n{fix_advice(record)}")

    def _unknown_message(self, name) -> str:
        names = list(self._registrations())
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
        hint = f"\ndid you mean {' or '.join(map(repr, close))}?" if close else ""
        state = load_plugins()
        broken = "".join(f"\nnote: {r.describe()} is broken ({r.error}); it may provide it"
                         for r in state.broken)
        return (f"no installed opkit plugin registers the {self._kind} {name!r}{hint}{broken}\n"
                f"`opkit list` shows the installed {self._table}; install the package that provides it "
                f"with pip")


ops = PluginRegistry("op", "ops")
types = PluginRegistry("type", "types")


def _c_files(obj):
    """Return the C files of a registered op (an instance or a class): a COp's, or an opkit SectionOp's."""
    cls = obj if isinstance(obj, type) else type(obj)
    files = None if isinstance(obj, type) else getattr(obj, "func_files", None)
    return files or section_paths(cls)
