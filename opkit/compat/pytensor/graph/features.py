"""pytensor.graph.features: ``BadOptimization``, the error PyTensor's DebugMode raises on a rewrite that changes
a value. opkit's rewrites are its own (no user rewrite database, see ``graph.rewriting``): nothing raises it."""


class BadOptimization(Exception):
    """PyTensor's error for a rewrite that changed a value; opkit runs no user rewrites, so never raised."""

    def __init__(self, old_r=None, new_r=None, old_r_val=None, new_r_val=None, reason=None, old_graph=None,
                 new_graph=None):
        super().__init__(f"a rewrite ({reason}) replaced {old_r} by {new_r}, which computes another value")
        self.old_r, self.new_r, self.reason = old_r, new_r, reason
        self.old_r_val, self.new_r_val = old_r_val, new_r_val


__all__ = ["BadOptimization"]
