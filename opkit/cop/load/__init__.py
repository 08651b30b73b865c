"""Stage 4, load: a built shared object becomes a module in this process."""
