"""Find, import and run the `opkit` entry points once, on first use of `opkit.ops`.

A plugin is an entry point of the group "opkit" (`[project.entry-points.opkit]`):
its module is registered with a pluggy PluginManager, then each of its hooks is
called with a validating callback. What a plugin registers is kept only if all
its hooks succeed; a plugin that fails to import or register is recorded as
broken, with a warning naming its distribution, and the rest still load.
opkit's own ops come through the same path (the entry point `opkit` of the
distribution `opkit`).
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
import threading
import warnings
from dataclasses import dataclass, field

import pluggy

from opkit import hookspecs
from opkit.core.op import Op
from opkit.core.type import Type
from opkit.errors import PluginError, SectionError
from opkit.plugins.validate import CCodeRegistry, GpuVersionRegister, PluginRecord, Register

GROUP = "opkit"
DISABLE_VARIABLE = "OPKIT_DISABLE_PLUGINS"
_DISABLE_ALL = {"all", "1", "*"}
CORE_DISTRIBUTION = "opkit-sdk"  # the distribution of opkit itself (SPEC 11)


class PluginLoadWarning(UserWarning):
    """An installed opkit plugin failed to load and was skipped."""


class UnmarkedHookWarning(UserWarning):
    """A plugin module defines a function named like an opkit hook without @opkit.hookimpl: it is never called."""


@dataclass(frozen=True)
class Registration:
    """One registered op or type and the plugin it came from."""

    name: str
    obj: object
    record: PluginRecord


@dataclass
class PluginState:
    """Everything loading the plugins produced: the plugins, ops and types by name, and the GPU versions
    ((host op class, make_gpu_node) pairs, in plugin order: opkit.gpu.placement takes them)."""

    plugins: list[PluginRecord] = field(default_factory=list)
    ops: dict[str, list[Registration]] = field(default_factory=dict)
    types: dict[str, list[Registration]] = field(default_factory=dict)
    gpu_versions: list[tuple[type, object]] = field(default_factory=list)

    @property
    def broken(self) -> list[PluginRecord]:
        return [record for record in self.plugins if record.status == "broken"]


_state: PluginState | None = None
_loading = False
_lock = threading.RLock()


def load_plugins() -> PluginState:
    """Load every enabled plugin the first time, and return what they registered."""
    global _state, _loading
    if _state is not None:
        return _state
    with _lock:
        if _state is None:
            if _loading:
                raise PluginError("opkit.ops was used while the plugins were loading (at import time of a "
                                  "plugin module, or inside a hook)\nuse opkit.ops inside functions instead")
            _loading = True
            try:
                _state = _load()
            finally:
                _loading = False
    return _state


def reset_plugins():
    """Forget the loaded plugins, so the next use of opkit.ops loads them again (for tests)."""
    global _state
    with _lock:
        _state = None


def normalize(name: str) -> str:
    """Return a distribution or plugin name in PEP 503 form, for comparisons."""
    return name.strip().lower().replace("_", "-").replace(".", "-")


def disabled_names(environ=os.environ) -> set[str] | None:
    """Return the normalized names in OPKIT_DISABLE_PLUGINS, or None for "all" (all but opkit's own)."""
    names = {normalize(part) for part in environ.get(DISABLE_VARIABLE, "").split(",") if part.strip()}
    return None if names & _DISABLE_ALL else names


def _is_disabled(record: PluginRecord, disabled: set[str] | None) -> bool:
    if disabled is None:
        return normalize(record.distribution) != CORE_DISTRIBUTION
    return normalize(record.name) in disabled or normalize(record.distribution) in disabled


def _distribution_of(entry_point) -> tuple[str, str]:
    dist = getattr(entry_point, "dist", None)
    if dist is None:
        return "unknown", "?"
    name = getattr(dist, "name", None) or dist.metadata["Name"]
    return name, dist.version


def _discover() -> list:
    """Return (entry point, record) pairs: opkit's own first, then by distribution, in a stable order."""
    found = [(entry_point, PluginRecord(entry_point.name, *_distribution_of(entry_point), value=entry_point.value))
             for entry_point in importlib.metadata.entry_points(group=GROUP)]
    return sorted(found, key=lambda pair: (normalize(pair[1].distribution) != CORE_DISTRIBUTION,
                                           normalize(pair[1].distribution), pair[1].name))


def _load() -> PluginState:
    manager = pluggy.PluginManager(GROUP)
    manager.add_hookspecs(hookspecs)
    state, disabled, loaded = PluginState(), disabled_names(), []
    for entry_point, record in _discover():
        state.plugins.append(record)
        if _is_disabled(record, disabled):
            record.status = "disabled"
            continue
        try:
            plugin = entry_point.load()
            _warn_unmarked_hooks(manager, record, plugin)
            _register(manager, record, plugin)
        except Exception as exc:  # a plugin must never take the others down with it
            _mark_broken(record, exc, "failed to load")
            continue
        loaded.append(record)
    for record in loaded:
        _collect(manager, record, state)
    return state


def _register(manager, record: PluginRecord, plugin):
    """Register `plugin` with pluggy, refusing hook implementations that match no opkit hook."""
    import difflib

    manager.register(plugin, name=record.name)
    unknown = [caller.name for caller in manager.get_hookcallers(plugin) or () if caller.spec is None]
    if unknown:
        manager.unregister(plugin)
        hooks = [name for name in vars(hookspecs) if name.startswith("register_")]
        close = difflib.get_close_matches(unknown[0], hooks, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise record.error_for(f"implements {unknown[0]!r}, which is not an opkit hook{hint}\n"
                               f"opkit's hooks: {', '.join(hooks)}")


def _hook_names() -> list[str]:
    return [name for name, value in vars(hookspecs).items() if hasattr(value, "opkit_spec")]


def _warn_unmarked_hooks(manager, record: PluginRecord, plugin):
    """Warn about functions named like a hook but not marked @opkit.hookimpl: pluggy silently skips them."""
    import inspect

    for name in _hook_names():
        function = getattr(plugin, name, None)
        if not callable(function) or hasattr(function, "opkit_spec"):  # absent, or the hookspec itself imported
            continue
        if manager.parse_hookimpl_opts(plugin, name) is not None:
            continue
        code = getattr(inspect.unwrap(function), "__code__", None)
        where = f"{code.co_filename}:{code.co_firstlineno}: " if code else ""
        message = (f"{where}opkit plugin {record.name!r} from distribution {record.distribution} {record.version} "
                   f"defines {name}() without the @opkit.hookimpl marker, so opkit never calls it and nothing it "
                   f"registers is installed.\nadd @opkit.hookimpl on the line above `def {name}` "
                   f"(import opkit first)")
        record.warnings.append(message)
        warnings.warn(message, UnmarkedHookWarning, stacklevel=_stacklevel_outside_plugins())


_INTERNAL_FILES = ("<frozen ", "importlib/", "importlib\\", "pluggy/", "pluggy\\")


def raise_location(exc: BaseException, package: str = "") -> str:
    """Return where the user fixes `exc`, as "file:line" (", called from file:line" when that is in `package`).

    An error that names the user's file and line itself (a SyntaxError; a SectionError in a `.c` file) is at that
    file and line. Otherwise it is the last frame outside the import machinery, pluggy and opkit itself (opkit's
    own frames only when no other is left). Empty when no frame is left (the module was not found).
    """
    named = _named_location(exc)
    if named:
        return named
    frames, own_frames = [], []
    tb = exc.__traceback__
    while tb is not None:
        module = tb.tb_frame.f_globals.get("__name__", "") or ""
        filename = tb.tb_frame.f_code.co_filename
        if not any(part in filename for part in _INTERNAL_FILES) and not module.startswith("opkit.plugins"):
            (own_frames if module == "opkit" or module.startswith("opkit.") else frames).append(
                (module, f"{filename}:{tb.tb_lineno}"))
        tb = tb.tb_next
    frames = frames or own_frames
    if not frames:
        return ""
    raised = frames[-1][1]
    own = [where for module, where in frames if package and (module == package or module.startswith(package + "."))]
    if own and own[-1] != raised:
        return f"{raised}, called from {own[-1]}"
    return raised


def _named_location(exc: BaseException) -> str:
    """Return the "file:line" an error names as its own place (SyntaxError, a SectionError's line), else ''."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{exc.filename}:{exc.lineno}"
    if isinstance(exc, SectionError) and exc.path and exc.line is not None:  # a file's own line, not a missing file
        return f"{exc.path}:{exc.line}"
    return ""


def _mark_broken(record: PluginRecord, exc: BaseException, what: str):
    record.status, record.exception = "broken", exc
    record.error = f"{type(exc).__name__}: {exc}"
    location = raise_location(exc, record.value.partition(":")[0].partition(".")[0])
    if location:
        record.location = location
        if location not in record.error:  # a SectionError's message begins with its file:line already
            record.error += f" (raised at {location})"
    warnings.warn(f"opkit plugin {record.name!r} from distribution {record.distribution} {record.version} "
                  f"{what} and was skipped:\n{record.error}\n{fix_advice(record)}", PluginLoadWarning,
                  stacklevel=_stacklevel_outside_plugins())


def editable_source(distribution: str) -> str | None:
    """Return the project directory a distribution is installed editable from (`pip install -e`), else None."""
    import json
    from urllib.parse import unquote, urlparse

    try:
        text = importlib.metadata.distribution(distribution).read_text("direct_url.json")
        direct = json.loads(text) if text else {}
    except (importlib.metadata.PackageNotFoundError, ValueError, OSError):
        return None
    if not direct.get("dir_info", {}).get("editable"):
        return None
    url = urlparse(direct.get("url", ""))
    return unquote(url.path) if url.scheme == "file" else direct.get("url")


def fix_advice(record: PluginRecord) -> str:
    """Return what to do about a broken plugin: edit its source if installed editable, else reinstall or remove."""
    skip = f"or skip it: {DISABLE_VARIABLE}={record.distribution}"
    source = editable_source(record.distribution)
    if source is not None:
        where = f" at {record.location}" if record.location else ""
        return (f"fix: correct the error{where}; {record.distribution} is installed editable from {source}, so the "
                f"fix takes effect without reinstalling ({skip})")
    return (f"fix: reinstall {record.distribution} (pip install --force-reinstall {record.distribution}) or "
            f"uninstall it (pip uninstall {record.distribution}), {skip}")


def _stacklevel_outside_plugins() -> int:
    """Return the warnings stacklevel of the first caller outside opkit.plugins: the user's `opkit.ops...`."""
    frame, level = sys._getframe(1), 1  # the frame that calls warnings.warn
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith("opkit.plugins"):
        frame, level = frame.f_back, level + 1
    return level


def _hook_implementations(manager, hook_name: str, plugin_name: str):
    """Yield the implementations of `hook_name` that plugin `plugin_name` provides (usually one)."""
    for impl in getattr(manager.hook, hook_name).get_hookimpls():
        if impl.plugin_name == plugin_name:
            yield impl


def _collect(manager, record: PluginRecord, state: PluginState):
    """Call one plugin's hooks with validating callbacks; keep its registrations only if all succeed."""
    register_ops, register_types = Register(record, "op", Op), Register(record, "type", Type)
    c_code, gpu_versions = CCodeRegistry(record), GpuVersionRegister(record)
    arguments = {"register_types": register_types, "register_c_code": c_code, "register_ops": register_ops,
                 "register_gpu_versions": gpu_versions}
    try:
        for hook_name, argument in arguments.items():
            for impl in _hook_implementations(manager, hook_name, record.name):
                impl.function(*[argument for _ in impl.argnames])
    except PluginError as exc:
        _mark_broken(record, exc, "registered something invalid")
        return
    except Exception as exc:
        _mark_broken(record, exc, "raised in a hook")
        return
    c_code.apply()
    state.gpu_versions.extend(gpu_versions.registered)
    for table, register in ((state.ops, register_ops), (state.types, register_types)):
        for name, obj in register.registered.items():
            table.setdefault(name, []).append(Registration(name, obj, record))
