"""Where a built-in op finds its gradient: functions registered by op class, not imported by the op.

An op of opkit.core.tensor builds its gradient from ops of later layers (Alloc, Sum, Dot, ...), so the
gradient rules live in the last layer (opkit/core/tensor/gradients/) and register themselves when that
layer is imported::

    @register(Alloc, "grad")
    def alloc_grad(op, inputs, output_grads): ...

and the op's method only looks its rule up::

    class Alloc(SectionOp):
        grad = registered("grad")

A lookup that finds nothing loads the gradient layer once and looks again: the tensor package
(opkit/core/tensor/__init__.py), which Python imports before any built-in op, installs that loader.
"""

from __future__ import annotations

KINDS = ("grad", "L_op", "R_op")
_RULES: dict = {}  # (op class, kind) -> function(op, *the method's arguments)
_loaded = False
_load_rules = None  # the loader of the rules not yet imported (installed by opkit.core.tensor)


def install_loader(load):
    """Take `load`, which imports the modules that register rules (the tensor package's gradient layer)."""
    global _load_rules
    _load_rules = load


def register(op_class, kind):
    """Decorate the function that is `op_class`'s `kind` method (its subclasses' too, unless they have their own)."""
    if kind not in KINDS:
        raise ValueError(f"a gradient rule is one of {KINDS}, got {kind!r}")

    def decorate(function):
        _RULES[op_class, kind] = function
        return function

    return decorate


def lookup(op, kind):
    """Return the function registered for `op`'s class (or the nearest base class) as its `kind` method."""
    global _loaded
    for _ in range(2):
        for cls in type(op).__mro__:
            function = _RULES.get((cls, kind))
            if function is not None:
                return function
        if _loaded or _load_rules is None:
            break
        _loaded = True
        _load_rules()
    raise LookupError(f"no {kind} rule is registered for {type(op).__name__} (opkit.core.gradient_registry)")


def registered(kind):
    """Return a method that calls the function registered for its op's class as `kind` (see the module doc)."""

    def method(self, *args):
        return lookup(self, kind)(self, *args)

    method.__name__ = method.__qualname__ = kind
    method.__doc__ = f"The {kind} registered for this op's class in the gradient layer (opkit.core.gradient_registry)."
    return method
