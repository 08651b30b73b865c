"""Theano's module path ``theano.compile``, so code that spells it ports by renaming the import.

Only ``opkit.compile.ops`` lives here; opkit's own home for these names is the top level
(``opkit.register_deep_copy_op_c_code``, ``opkit.function``...). ``import opkit`` does not
import this package.
"""
