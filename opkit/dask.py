"""Run compiled opkit functions on Dask arrays and warm Dask workers' compile caches.

    pip install "opkit-sdk[dask]"

    f = opkit.function([x, y], x * y + 1)
    z = opkit.dask.blockwise(f, X, Y)              # X, Y: dask arrays; z: a dask array
    client.register_plugin(opkit.dask.WarmCache(f))  # every worker loads (or compiles) f's modules now

A function travels to the workers pickled (its graph and mode); each worker
rebuilds it once and loads its modules from its own compile cache, compiling
only what is missing, under the cache's lock (workers sharing a cache
directory compile each module once between them).
"""

from __future__ import annotations

try:
    import dask.array as da
    from distributed import WorkerPlugin
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(f"opkit.dask needs dask and distributed ({exc}); install them with "
                      "pip install \"opkit-sdk[dask]\"") from exc

import numpy as np

from opkit.cop.store.cache import module_events
from opkit.link.function import FunctionAPI

__all__ = ["blockwise", "WarmCache", "modules_built"]


def blockwise(f, *arrays, **kwargs):
    """Apply the compiled function `f` to Dask arrays chunk by chunk; return a Dask array (a tuple for several outputs).

    The output dtype comes from `f`'s output types, and the inputs broadcast as
    numpy broadcasts them. A graph whose outputs have the inputs' broadcast rank
    (elementwise graphs) needs nothing more; for others pass dask's `chunks`,
    `drop_axis` or `new_axis` (see dask.array.map_blocks). With several outputs,
    each output's array calls `f` on its chunks (Dask makes one task per output).
    """
    if not isinstance(f, FunctionAPI):
        raise TypeError(f"blockwise takes a compiled opkit function (opkit.function(...)), not {f!r}")
    types = [v.type for v in f.maker.inputs]
    if len(arrays) != len(types):
        raise TypeError(f"{f._label()} takes {len(types)} inputs ({f._signature()}), got {len(arrays)} arrays")
    arrays = [da.asarray(a) for a in arrays]
    for position, (array, itype) in enumerate(zip(arrays, types)):
        _check_input(f, position, array, itype)
    outputs = [v.type for v in f.maker.outputs]
    rank = max((a.ndim for a in arrays), default=0)
    reshaping = {"chunks", "drop_axis", "new_axis"} & set(kwargs)
    for index, otype in enumerate(outputs):
        ndim = getattr(otype, "ndim", None)
        if ndim is None:
            raise TypeError(f"output {index} of {f._label()} is {otype}, not a tensor: blockwise makes arrays only")
        if ndim != rank and not reshaping:
            raise ValueError(f"output {index} of {f._label()} has {ndim} dimension(s) and the inputs broadcast to "
                             f"{rank}: pass chunks=..., drop_axis=... or new_axis=... as for dask.array.map_blocks")
    if "name" not in kwargs:
        kwargs.setdefault("token", f"opkit-{f.name or 'function'}")
    made = [da.map_blocks(_Block(f, None if f._single else index), *arrays,
                          dtype=np.dtype(otype.dtype), meta=np.empty((0,) * otype.ndim, otype.dtype),
                          **_output_kwargs(kwargs, index, len(outputs)))
            for index, otype in enumerate(outputs)]
    return made[0] if f._single else tuple(made)


def _output_kwargs(kwargs, index, count):
    """Return map_blocks' keywords for output `index`: a name given for several outputs gets a suffix."""
    if count > 1 and "name" in kwargs:
        return {**kwargs, "name": f"{kwargs['name']}-{index}"}
    return kwargs


def _check_input(f, position, array, itype):
    dtype, ndim = getattr(itype, "dtype", None), getattr(itype, "ndim", None)
    if dtype is None:
        raise TypeError(f"input {f._arg_label(position)} of {f._label()} is {itype}, not a tensor")
    if array.ndim != ndim:
        raise ValueError(f"input {f._arg_label(position)} of {f._label()} is {ndim}-d ({itype}); "
                         f"the dask array is {array.ndim}-d")
    if array.dtype != np.dtype(dtype):
        raise TypeError(f"input {f._arg_label(position)} of {f._label()} is {dtype}; the dask array is "
                        f"{array.dtype}: convert it with .astype({dtype!r})")


class _Block:
    """The per-chunk call: `f` on the chunks (one output of several with `index`); pickles with `f`."""

    def __init__(self, f, index):
        self.f, self.index = f, index

    def __call__(self, *chunks):
        result = self.f(*chunks)
        return result if self.index is None else result[self.index]

    def __dask_tokenize__(self):
        return ("opkit.dask._Block", self.f.__dask_tokenize__(), self.index)


class WarmCache(WorkerPlugin):
    """A Dask worker plugin that loads (or compiles) `functions`' modules on every worker when registered.

        client.register_plugin(opkit.dask.WarmCache(f, g))

    A worker that joins later runs it too. Unpickling a function on the worker is
    what rebuilds it; the worker keeps it, so its tasks compile nothing.
    """

    idempotent = True

    def __init__(self, *functions):
        if not functions:
            raise TypeError("WarmCache needs at least one compiled function: WarmCache(f, ...)")
        for f in functions:
            if not isinstance(f, FunctionAPI):
                raise TypeError(f"WarmCache takes compiled opkit functions (opkit.function(...)), not {f!r}")
        self.functions = functions
        tokens = ",".join(f.__dask_tokenize__()[:16] for f in functions)
        self.name = f"opkit-warm-cache-{tokens}"

    def setup(self, worker):
        """Keep the functions (rebuilt when this plugin was unpickled on the worker) on the worker."""
        warmed = getattr(worker, "opkit_functions", {})
        warmed.update({f.__dask_tokenize__(): f for f in self.functions})
        worker.opkit_functions = warmed


def modules_built() -> int:
    """Return how many modules this process compiled (for `client.run(opkit.dask.modules_built)`)."""
    return module_events["built"]
