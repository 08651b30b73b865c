"""pytensor.link.vm: ``VMLinker``, PyTensor's virtual machine over per-node thunks, as opkit's C linker.

With ``use_cloop=True`` PyTensor's VM runs the nodes' C thunks in a C loop; opkit's whole-graph C
linker (``CLinker``, FAST_RUN's) computes the same graph in one module. ``allow_gc``, ``lazy`` and
the loop's other options change how PyTensor schedules its thunks, not the values: they are kept.
"""

from opkit.compat.pytensor.link.c.basic import CLinker


class VMLinker(CLinker):
    def __init__(self, allow_gc=None, use_cloop=False, callback=None, callback_input=None, lazy=None,
                 schedule=None, c_thunks=None, allow_partial_eval=None):
        super().__init__(schedule=schedule)
        self.use_cloop, self.allow_gc, self.lazy, self.c_thunks = use_cloop, allow_gc, lazy, c_thunks


__all__ = ["VMLinker"]
