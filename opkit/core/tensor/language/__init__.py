"""The tensor language's table: one Row per public tensor function (see row.py).

Each family keeps its rows in its own module (`ROWS`); `rows()` gathers them. Nothing here is
imported by `import opkit` or `import opkit.tensor`: the tests and the docs read the table.
"""

from __future__ import annotations

import importlib

from opkit.core.tensor.language.row import Row

FAMILY_MODULES = ("elementwise_rows", "special_rows", "reduction_rows", "product_rows", "shape_rows",
                  "indexing_rows", "sort_rows", "porting_rows", "linalg_rows")


def rows() -> list[Row]:
    """Return every row of the table, family by family (a family module not written yet has none)."""
    found = []
    for name in FAMILY_MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            continue
        found.extend(module.ROWS)
    names = [row.name for row in found]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"the tensor language's table has rows named twice: {twice}")
    return found


__all__ = ["Row", "rows"]
