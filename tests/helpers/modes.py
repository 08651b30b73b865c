"""Modes the tests share."""

import opkit

# FAST_RUN's rewrites on the Python linker: the graph FAST_RUN would compile, its nodes as FAST_RUN keeps them
# (which have C, which run perform), built without compiling anything.
FAST_RUN_GRAPH = opkit.Mode(linker="py", optimizer="fast_run")
