"""The code identity of a node: its op's Python code and the C it generates, as the module cache sees it.

`node_identity(node)` is what a pickled function's token and the eager memo
(op.compute) add to an op's props: the op's Python identity
(opkit.core.code_identity) and, for a node with C code, the key of the request
that builds its one-node module (opkit.cop.toolchain.identity): every code string, the
headers it includes, the op's folders, libraries and arguments, and the flags
opkit's configuration asks for (`requested_toolchain`), without the compiler and
the system, which a function pickled on one machine may meet others of. A `.c`
file edited, then the op created again, gives another identity; so does another
config.cflags, march, openmp, sanitize or cmodule__debug.
"""

from __future__ import annotations

from opkit.core.code_identity import python_identity
from opkit.core.digest import sha256
from opkit.cop.generate.cinterface import op_has_c
from opkit.cop.generate.codegen import collect_module
from opkit.cop.generate.region import Region
from opkit.cop.generate.target import current_target
from opkit.cop.toolchain.identity import region_request, request_key, requested_toolchain


def code_flags() -> tuple:
    """Return the flags opkit's configuration builds modules with (compile, then link arguments): what a function's
    token says its modules were built with. The requested toolchain's (opkit.cop.toolchain.identity), as in
    every node's code identity; no compiler is asked."""
    toolchain = requested_toolchain()
    return (*toolchain.compile_args, "--link--", *toolchain.link_args)


def node_identity(node) -> str:
    """Return a hex digest of what decides what `node` computes (see the module docstring)."""
    digest = sha256(python_identity(node.op).encode())
    digest.update(b"\0" + c_identity(node).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def c_identity(node) -> str:
    """Return the key of the request that builds `node`'s own module, with the requested toolchain ('' for a node
    without C code)."""
    try:
        if not op_has_c(node):
            return ""
        # A GPU node's kernels as the device this thread makes functions for holds them (its identity covers them)
        parts = collect_module(Region.of_node(node, current_target()))
    except Exception as exc:  # code that cannot be generated: its error is its identity (it runs perform)
        return f"no C: {type(exc).__name__}: {exc}"
    return request_key(region_request(parts, requested_toolchain()))
