"""Names a module loads on first use (PEP 562): the one door through which opkit imports a module by name.

`import opkit` stays light because its public names (`opkit.function`, `opkit.tensor`, ...) are
imported when first used. Every module that defers names that way keeps a table of the full module
names they live in, and hands it to `lazy_names`, which returns the module's `__getattr__` and
`__dir__`. A module that loads one of the modules its table names when it is needed calls `load`:
the command that runs (opkit.cli.commands), a backend's bridge (opkit.bridge.pytensor), a linker
(opkit.link.mode).

A lower layer that needs a higher one's function (core reads SectionOps' files and renders templates with
cop's readers, and may not import cop) asks for it by role: `provided(role)`. The `opkit` package, which
Python runs before any of its modules, names each role's home with `provide`, so the function is there
whatever was imported first, and its module is imported on first use. The import-graph check (tests/core/test_layering.py) reads the string tables of a
module that imports this one as that module's imports. Standard library only: importing this costs nothing.
"""

import importlib


def load(module, name=None):
    """Import the module `module` (a full name) and return it, or its attribute `name`."""
    # lazy: opkit's public names and each `opkit` command are imported when first used (import opkit stays light)
    loaded = importlib.import_module(module)
    return loaded if name is None else getattr(loaded, name)


_PROVIDERS = {}  # role -> (module, attribute): filled by opkit/__init__.py


def provide(role, module, name):
    """Say that the function of `role` is `name` in the module `module` (loaded when first asked for)."""
    _PROVIDERS[role] = (module, name)


def provided(role):
    """Return the function `provide` named for `role` (its module imported now); LookupError if none."""
    try:
        module, name = _PROVIDERS[role]
    except KeyError:
        raise LookupError(f"nothing provides {role!r}: the opkit package names its provider (opkit/__init__.py)") \
            from None
    return load(module, name)


def lazy_names(module_globals, homes=None, *, submodules=None, aliases=None, search=(), wanted=None, listing=None,
               also=None):
    """Return (__getattr__, __dir__) for the module whose globals are `module_globals`.

    `homes` maps a name to the full name of the module that defines it; `submodules` maps a name to a module,
    which is the value; `aliases` maps another name to one of `homes`. `search` names modules to look a name
    up in, in order, after those (every public name when `wanted` is None, else the names of `wanted`). A name
    found is kept in `module_globals`, so the next use does not come back here; a name none has raises the
    AttributeError of a missing module attribute. `also` maps a prefix of a home to a module imported too
    whenever a name comes from a home under it. `__dir__` gives `listing` if given, else the module's globals,
    the names above, and those of `wanted` that the first module of `search` has.
    """
    homes, submodules, aliases, also = dict(homes or {}), dict(submodules or {}), dict(aliases or {}), also or {}
    wanted = None if wanted is None else frozenset(wanted)
    module_name = module_globals["__name__"]

    def __getattr__(name):
        if name in submodules:
            return load(submodules[name])
        target = aliases.get(name, name)
        if target in homes:
            value = load(homes[target], target)
            for prefix, module in also.items():
                if homes[target].startswith(prefix):
                    load(module)
        else:
            value = _search(name)
        module_globals[name] = value
        return value

    def _search(name):
        if search and (name in wanted if wanted is not None else not name.startswith("_")):
            for home in search:
                try:
                    return load(home, name)
                except AttributeError:
                    pass
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    def __dir__():
        if listing is not None:
            return list(listing)
        found = [name for name in wanted or () if hasattr(load(search[0]), name)] if search else []
        return sorted({*module_globals, *homes, *submodules, *aliases, *found})

    return __getattr__, __dir__
