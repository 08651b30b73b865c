"""The C toolchain, in pipeline order: each stage imports only the stages before it.

- `compiledir/`: every name under the compile cache's folder (`layout`), private files, texts kept there;
- `source/`: an op's C as written: `#section` files, macros, the COp base class, lint;
- `generate/`: one module's C from a graph region: C interface, node code, templates, codegen;
- `toolchain/`: the stage that runs compilers (g++, NVRTC): the compiler, host facts, flags, precompiled headers, OpenMP, sanitizers, a module's identity;
- `load/`: a built shared object becomes a module of this process;
- `store/`: modules kept by key in the compiledir, their upkeep, objects, modules packages ship.

On top, `compile` (a region to a loaded module), `incremental` (the build side, imported only to build:
a module whole or linked from cached node objects), `blas` (public helpers for ops that call a BLAS) and
`kernels` (a node's `#section kernels` compiled by NVRTC and cached) may import every stage.

The readers core uses for a SectionOp's files and for template macros (opkit.core.c_source) are cop's
(source/section_memo.SectionC, generate/templates.render): the opkit package names them, and core loads them
on first use; importing opkit.cop installs nothing.
"""

import importlib
import importlib.util
import sys as _sys


# The stages, in pipeline order (tests/core/test_layering.py reads this): each imports only those before it.
STAGES = ("compiledir", "source", "generate", "toolchain", "load", "store")

# Module names older opkit versions wrote into pickles (a COp's parsed sections), and where they live now.
_OLD_NAMES = {"opkit.cop.sections": "opkit.cop.source.sections"}


class _OldNameFinder:
    """Let pickles made by an older opkit find a class under the module name it had then."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name not in _OLD_NAMES:
            return None
        return importlib.util.spec_from_loader(name, _OldNameFinder)

    @staticmethod
    def create_module(spec):
        return importlib.import_module(_OLD_NAMES[spec.name])  # lazy: a module an old pickle names, when it does

    @staticmethod
    def exec_module(module):
        pass


if _OldNameFinder not in _sys.meta_path:
    _sys.meta_path.append(_OldNameFinder)
