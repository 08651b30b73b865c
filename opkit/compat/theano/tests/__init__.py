"""theano.tests: ``unittest_tools`` (opkit.testing's names)."""
