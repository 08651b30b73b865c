"""`opkit show FILE.c` (and `opkit build FILE.c`): the C opkit generates from a `#section` file.

The file of an installed op stands for that op. A file no installed op uses yet (an op being ported, before it is
packaged) is shown as an op of its own: its inputs are what --dtypes and --ndims say (tensors), and it has one
output, a tensor of their common dtype and largest rank, as the `code` section's OUTPUT_0.
"""

from __future__ import annotations

import os

import numpy as np

from opkit.cli.errors import BadArguments
from opkit.cli.listing import load_quietly
from opkit.cop.source.cop import COp
from opkit.cop.source.sections import parse_file
from opkit.core.graph import Apply
from opkit.core.tensor.types.type import TensorType
from opkit.plugins.registry import ops

C_SUFFIXES = (".c", ".cu", ".cpp", ".cc", ".h")


def names_a_file(target: str) -> bool:
    """Whether OP on the command line is a file path rather than an op's name (as `opkit check` reads it)."""
    return os.path.isfile(target) or os.sep in target or target.endswith(C_SUFFIXES)


class SectionFileOp(COp):
    """A `#section` file on its own: tensor inputs as given, one output of their common dtype and largest rank."""

    __props__ = ("path",)

    def __init__(self, path: str):
        self.path = os.path.abspath(path)
        super().__init__(self.path)

    def make_node(self, *inputs):
        for variable in inputs:
            if not isinstance(variable.type, TensorType):
                raise TypeError(f"a .c file shown on its own takes tensor inputs (--dtypes float64,...), not "
                                f"{variable.type}; for other types, register the op and name it")
        dtype = str(np.result_type(*[variable.dtype for variable in inputs])) if inputs else "float64"
        ndim = max((variable.ndim for variable in inputs), default=0)
        return Apply(self, list(inputs), [TensorType(dtype, shape=(None,) * ndim)()])

    def __str__(self):
        return os.path.basename(self.path)


def op_for_file(target: str):
    """Return the op that the file `target` stands for: the installed op whose C file it is, else the file alone."""
    path = os.path.abspath(target)
    if not os.path.isfile(path):
        raise BadArguments(f"{target}: no such file (OP is an installed op's name, or a #section C file)")
    users = _installed_ops_of(path)
    if len(users) == 1:
        return ops[users[0]]
    if users:
        raise BadArguments(f"{target} is the C file of the installed ops {', '.join(users)}: name one of them")
    tags = {section.tag for section in parse_file(path)}  # a malformed file: the SectionError at its line
    if "kernels" in tags:
        raise BadArguments(f"{target} has CUDA kernels (#section kernels): a GPU op's types come from its "
                           f"make_node; install its package and name the op (opkit show OP --arch sm_90)")
    if "code" not in tags:
        raise BadArguments(f"{target} has no '#section code': its op calls a function of the file (COp(files, "
                           f"func_name)), which only the op's class names; install its package and name the op")
    return SectionFileOp(path)


def _installed_ops_of(path: str) -> list[str]:
    """Return the names (DIST:NAME where two distributions register one name) of the installed ops whose C files
    include `path`."""
    state = load_quietly()  # a broken plugin is `opkit list`'s to report, not this command's
    found = []
    for name, registrations in sorted(state.ops.items()):
        for registration in registrations:
            row = ops.describe(registration)
            if path in [os.path.abspath(f) for f in row.get("c_files") or ()]:
                found.append(f"{row['distribution']}:{name}" if len(registrations) > 1 else name)
    return list(dict.fromkeys(found))
