"""Op packages as plugins: discovery through entry points, validation, and the `opkit.ops` registry."""
