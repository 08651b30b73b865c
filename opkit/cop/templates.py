"""Render a macro of a jinja2 template in opkit/templates: where generated C is written."""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=None)
def environment():
    """Return the jinja2 environment of opkit's templates (the module template's own)."""
    from opkit.cop.codegen import _template

    return _template().environment


@functools.lru_cache(maxsize=None)
def _module(template):
    return environment().get_template(template).module


def render(template, macro, values):
    """Return the text of `macro` in `template`, called with the keyword arguments `values`."""
    return str(getattr(_module(template), macro)(**values))
