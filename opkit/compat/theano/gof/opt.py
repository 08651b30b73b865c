"""theano.gof.opt: rewrite registration is not opkit's business; these are documented no-ops.

``copy_stack_trace`` (a debugging aid), ``local_optimizer`` and the databases' ``register``
return their argument unchanged, and ``with inherit_stack_trace(outputs):`` does nothing: a
ported module imports and runs, and its rewrites are not applied (opkit's FAST_RUN has its own).
Theano's rewrite classes (Optimizer, TopoOptimizer, PatternSub ...) are not here.
"""

import contextlib


def copy_stack_trace(from_var, to_var):
    """No-op: opkit keeps no creation stack trace on variables."""
    return to_var


@contextlib.contextmanager
def inherit_stack_trace(from_var):
    """No-op context manager: opkit keeps no creation stack trace to pass to the variables made inside."""
    yield


def local_optimizer(tracks, inplace=False, requirements=()):
    """No-op decorator: the function is returned as it is and never run as a rewrite."""
    return lambda function: function


def optimizer(function):
    """No-op decorator (Theano's global rewrite): the function is returned as it is and never run."""
    return function


class NoOpDB:
    """A rewrite database whose ``register`` keeps nothing."""

    def __init__(self, name):
        self.name = name

    def register(self, name, rewrite, *tags, **kwargs):
        return rewrite

    def __repr__(self):
        return f"NoOpDB({self.name!r})"


__all__ = ["copy_stack_trace", "inherit_stack_trace", "local_optimizer", "optimizer", "NoOpDB"]
