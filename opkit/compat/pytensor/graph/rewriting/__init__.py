"""pytensor.graph.rewriting: PyTensor's rewrite machinery, which opkit does not have.

opkit's rewrites (FAST_RUN's fusion, constant folding, inplace) are its own and take no user
rewrites: ``node_rewriter`` keeps the function, and a rewrite database's ``query`` raises
NotImplementedError naming the gap, so a graph never silently runs without the rewrite it asked for.
"""
