"""Compatibility namespaces for code written against other libraries' op APIs.

``opkit.compat.theano`` lets a Theano 1.0 op module port by changing its import lines only
(``import theano`` -> ``import opkit.compat.theano as theano``). Nothing here is imported by
``import opkit``.
"""
