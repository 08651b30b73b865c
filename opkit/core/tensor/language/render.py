"""The reference page of the tensor functions (docs/tensor_functions.md), rendered from the table."""

from __future__ import annotations

from opkit.core.tensor.language.row import Row

FAMILY_TITLES = {
    "elementwise": "Elementwise math", "logic": "Comparisons and logic", "special": "Special functions",
    "reduction": "Reductions", "product": "Products", "sort": "Sorting and scans", "shape": "Shapes",
    "creation": "Creation", "indexing": "Indexing", "gradient": "Derivatives",
}

HEADER = """# The tensor functions

Generated from the tensor language's table (`opkit/core/tensor/language/`) by
`python -m opkit.core.tensor.language --markdown > docs/tensor_functions.md`; a test checks
that this page is the table's. Each function's row is its whole contract: numpy's (or scipy's)
function defines its values and its result dtype, `tests/tensor/test_language_*.py` compares
opkit's FAST_RUN, FAST_COMPILE and perform results with it on every dtype the row names, and
`verify_grad` checks the gradient where there is one. "C" says where the compiled code lives;
"perform" means the node runs numpy or scipy in Python (no C).

Integers are exact and wrap as numpy's do. Transcendental float functions stay within a few ulps
of numpy or scipy: each elementwise row's test holds its own bound (3 ulps for most; log1mexp, xlogx
and xlogy0 are 4 in float32, where numpy's SIMD log differs from libm's).
"""


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _name(row: Row) -> str:
    aliases = f" ({', '.join(f'`{alias}`' for alias in row.aliases)})" if row.aliases else ""
    return f"`{row.name}`{aliases}"


def _reference(row: Row) -> str:
    reference = row.reference
    module = getattr(reference, "__module__", None) or ""
    name = getattr(reference, "__qualname__", None) or getattr(reference, "__name__", None) or repr(reference)
    if module.startswith("numpy") or isinstance(reference, __import__("numpy").ufunc):
        return f"`numpy.{getattr(reference, '__name__', name)}`"
    if module.startswith("scipy"):
        return f"`scipy.special.{name}`" if "special" in module else f"`{module}.{name}`"
    return "opkit's definition (see the row)" if "<lambda>" in name or name.startswith("_") else f"`{name}`"


def markdown(rows: list[Row]) -> str:
    """Return the page: one table per family, in the table's order."""
    lines = [HEADER]
    families: dict[str, list[Row]] = {}
    for row in rows:
        families.setdefault(row.family, []).append(row)
    lines.append(f"{len(rows)} functions in {len(families)} families.\n")
    for family, members in families.items():
        lines.append(f"## {FAMILY_TITLES.get(family, family.capitalize())}\n")
        lines.append("| function | reference | result dtype | gradient | C |")
        lines.append("|---|---|---|---|---|")
        for row in sorted(members, key=lambda r: r.name):
            lines.append(f"| {_name(row)} | {_reference(row)} | {_cell(row.dtype_rule)} | {_cell(row.gradient)} "
                         f"| {_cell(row.c)} |")
        lines.append("")
    return "\n".join(lines)
