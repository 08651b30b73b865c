"""What renders the C of opkit's templates (opkit/templates/*.j2): installed by opkit.cop when it is imported.

core names the template and the values; it renders nothing itself (see opkit.core.c_source). This module
sits below opkit.core.type and opkit.core.op, which both render C (Generic's, the ops' own).
"""

from __future__ import annotations

from opkit.core.clinker import MethodNotDefined

_renderer = None  # (template, macro, values) -> str


def install_renderer(renderer) -> None:
    """Install what renders a template macro (opkit.core.c_source.install_c_readers calls it)."""
    global _renderer
    _renderer = renderer


def render(template: str, macro: str, /, **values) -> str:
    """Return the C text of `macro` in the jinja2 template `template` (opkit/templates) called with `values`."""
    if _renderer is None:
        raise MethodNotDefined("render", "opkit.cop is not imported: nothing renders opkit's C templates")
    return _renderer(template, macro, values)
