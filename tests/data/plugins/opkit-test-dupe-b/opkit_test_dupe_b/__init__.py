"""Registers the op name 'duplicated' too, as opkit-test-dupe-a does: a name conflict."""

import opkit


@opkit.hookimpl
def register_ops(register):
    from opkit.core.builtin_ops import ViewOp

    register(ViewOp(), name="duplicated")
