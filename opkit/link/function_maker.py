"""opkit.function, for a module of link that cannot import the function module: opkit.link.pickling, which
that module imports to pickle, rebuilds a pickled function with it.

opkit.link installs it when imported (unpickling imports opkit.link before opkit.link.pickling), and imports
the function module on its first use: `import opkit.link`, which `opkit.Op` runs, imports no numpy.
"""

_function = None


def install(function) -> None:
    """Install opkit.function (opkit.link does, when it is imported)."""
    global _function
    _function = function


def function(*args, **kwargs):
    """Return opkit.function(*args, **kwargs): a compiled function."""
    return _function(*args, **kwargs)
