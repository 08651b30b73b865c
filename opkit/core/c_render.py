"""What renders the C of opkit's templates (opkit/templates/*.j2): cop's renderer, which the opkit package names
(opkit.lazy.provide) and this module loads on first use.

core names the template and the values; it renders nothing itself (see opkit.core.c_source). This module
sits below opkit.core.type and opkit.core.op, which both render C (Generic's, the ops' own).
"""

from __future__ import annotations

from opkit.lazy import provided

_renderer = None  # (template, macro, values) -> str: opkit.cop.generate.templates.render once first asked for


def install_renderer(renderer) -> None:
    """Install what renders a template macro (opkit.core.c_source.install_c_readers calls it; tests do)."""
    global _renderer
    _renderer = renderer


def render(template: str, macro: str, /, **values) -> str:
    """Return the C text of `macro` in the jinja2 template `template` (opkit/templates) called with `values`."""
    global _renderer
    if _renderer is None:
        _renderer = provided("c_renderer")
    return _renderer(template, macro, values)
