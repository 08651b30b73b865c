"""The C toolchain: #section files, macros, COp, code generation, build, load and cache."""

from opkit.core import c_source as _c_source


def _read_sections(op, files=None, macros=()):
    from opkit.cop.section_memo import SectionC

    return SectionC(op, files, macros)


def _render(template, macro, values):
    from opkit.cop.templates import render

    return render(template, macro, values)


_c_source.install_c_readers(_read_sections, _render)
