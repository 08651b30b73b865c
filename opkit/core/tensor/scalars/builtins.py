"""Every built-in scalar function, in the order of the modules that define them (tests and tools list them)."""

from opkit.core.tensor.scalars import scalar_elementary, scalar_logic, scalar_math, scalar_ops, scalar_special

MODULES = (scalar_ops, scalar_math, scalar_logic, scalar_elementary, scalar_special)


def builtin_scalar_ops() -> dict:
    """Return {(module, name): op} for every built-in scalar function defined at module level."""
    found = {}
    for module in MODULES:
        for name, value in vars(module).items():
            if isinstance(value, scalar_ops.ScalarOp):
                found.setdefault((module.__name__, name), value)
    return found
