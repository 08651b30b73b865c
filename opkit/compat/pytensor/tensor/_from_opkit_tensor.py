"""A compat module's names that opkit.tensor holds: looked up there on first use, so each name opkit.tensor
gains appears at PyTensor's and Theano's module paths without a second list to keep."""

import importlib


def getattr_from_opkit_tensor(module_name, names=None, also=(), homes=None):
    """Return a module ``__getattr__`` for `module_name` giving `names` (every name when None) from opkit.tensor.

    `also` names further modules to look in after opkit.tensor (a namespace's compat submodules, as upstream's
    namespace star-imports its submodules). A name none has raises the AttributeError of `module_name`, as a
    missing module attribute does. `homes` maps a name to the opkit module that defines it (an op class
    opkit.tensor does not export, such as CumOp).
    """
    homes = dict(homes or {})
    wanted = None if names is None else frozenset(names) | set(homes)

    def __getattr__(name):
        if name in homes:
            return getattr(importlib.import_module(homes[name]), name)
        if (wanted is None and not name.startswith("_")) or (wanted is not None and name in wanted):
            for home in ("opkit.tensor", *also):
                try:
                    return getattr(importlib.import_module(home), name)
                except AttributeError:
                    pass
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    __getattr__.names = wanted or frozenset()
    return __getattr__


def dir_with(module_globals, names):
    """Return a module ``__dir__`` listing the module's globals and those of `names` opkit.tensor has now."""

    def __dir__():
        tensor = importlib.import_module("opkit.tensor")
        return sorted({*module_globals, *(n for n in names if hasattr(tensor, n))})

    return __dir__
