"""Stage 2, generate: one module's C from a graph region: C interface, node code, templates."""
