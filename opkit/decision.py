"""The one decision of a callable made from a graph: its backend (compile, shipped or python) and its device.

`decide(device)` is asked once by each entry that makes a callable (opkit.function's FunctionMaker,
Theano's ``Linker.accept``, the one node runner's preallocated form, Op.make_thunk) and its answer, a
`Backend` carrying the device's target, is passed down: the linker, the binders, the regions (code
generation reads the region's target) and cop's two doors (``load_region`` never locates a compiler). No
module of link or cop decides either again (tests/link/test_backend_once.py).

It lives above link and cop because it joins them: the compiler probe is cop's (find_compiler, memoized per
process), the targets are the devices' (opkit.gpu.device registers them), the answer is link's `Backend`.
"""

from __future__ import annotations

from opkit.config import config
from opkit.cop.toolchain.compiler import find_compiler
from opkit.errors import CompileError
from opkit.cop.generate.target import current_target
from opkit.gpu.device import target_for
from opkit.link.backend import COMPILE, PYTHON, SHIPPED, Backend


def decide(device: str | None = None) -> Backend:
    """Return the backend of a callable made now, for `device` (one of opkit.gpu.DEVICES; None: the device this
    thread makes functions for, ``using_device``'s, else config.device's). Ask it once, at the entry."""
    target = current_target() if device is None else target_for(device)
    try:
        find_compiler()
    except CompileError as exc:  # no frames kept: the error is raised again where a module is missing
        return Backend(PYTHON if config.python_fallback else SHIPPED, exc.with_traceback(None), target=target)
    return Backend(COMPILE, python_fallback=bool(config.python_fallback), target=target)
