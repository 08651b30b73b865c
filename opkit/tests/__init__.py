"""Theano's module path ``theano.tests``, so test code that spells it ports by renaming the import.

Only ``opkit.tests.unittest_tools`` (which is :mod:`opkit.testing`) lives here; opkit's own
tests are in the repository's ``tests/`` directory, not in this package.
"""
