"""A plugin module that cannot be imported, as when a dependency is missing."""

raise ImportError("opkit_test_broken needs libfrobnicate, which is not installed")
