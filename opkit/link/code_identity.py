"""The code identity of a node: its op's Python code and the C it generates, as the module cache sees it.

`node_identity(node)` is what a pickled function's token and the eager memo
(op.compute) add to an op's props: the op's Python identity
(opkit.core.code_identity) and, for a node with C code, the content the
module cache keys its module by (every code string of the one-node module and
the local headers it includes, opkit.cop.build.identity), without the toolchain: a
`.c` file edited, then the op created again, gives another identity.
"""

from __future__ import annotations

from opkit.core.code_identity import python_identity
from opkit.core.digest import sha256

# The flags that change the code a module is built from (threads is read at run time).
CODE_FLAGS = ("cflags", "march", "openmp", "sanitize")


def code_flags() -> tuple:
    """Return the values of CODE_FLAGS in this process: what a function's token says its modules were built with.

    (Not opkit.cop's build_flags, which returns the compiler's arguments.)
    """
    from opkit.config import config

    return tuple(str(getattr(config, name)) for name in CODE_FLAGS)


def node_identity(node) -> str:
    """Return a hex digest of what decides what `node` computes (see the module docstring)."""
    digest = sha256(python_identity(node.op).encode())
    digest.update(b"\0" + c_identity(node).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def c_identity(node) -> str:
    """Return a digest of what the module cache keys `node`'s own module by ('' for a node without C code)."""
    from opkit.cop.generate.cinterface import op_has_c
    from opkit.cop.generate.codegen import collect_module
    from opkit.cop.build.identity import cache_key, region_made_of
    from opkit.cop.generate.region import Region

    try:
        if not op_has_c(node):
            return ""
        parts = collect_module(Region.from_nodes([node], lambda variable: True))
    except Exception as exc:  # code that cannot be generated: its error is its identity (it runs perform)
        return f"no C: {type(exc).__name__}: {exc}"
    # What the module cache keys the node's module by (opkit.cop.build.identity), less the toolchain.
    return cache_key(*region_made_of(parts, ()))
