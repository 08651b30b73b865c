"""Stage 3, build: the compiler, host facts, flags, precompiled headers, a module's identity."""
