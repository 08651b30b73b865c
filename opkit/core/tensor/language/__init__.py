"""The tensor language's table: one Row per public tensor function (see row.py).

Each family keeps its rows in its own module (`ROWS`); `rows()` gathers them. Nothing here is
imported by `import opkit` or `import opkit.tensor`: the tests and the docs read the table.
"""

from __future__ import annotations

from opkit.core.tensor.language import (elementwise_rows, indexing_rows, linalg_rows, porting_rows, product_rows,
                                        reduction_rows, shape_rows, sort_rows, special_rows)
from opkit.core.tensor.language.row import Row

FAMILIES = (elementwise_rows, special_rows, reduction_rows, product_rows, shape_rows, indexing_rows, sort_rows,
            porting_rows, linalg_rows)


def rows() -> list[Row]:
    """Return every row of the table, family by family."""
    found = [row for family in FAMILIES for row in family.ROWS]
    names = [row.name for row in found]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"the tensor language's table has rows named twice: {twice}")
    return found


__all__ = ["Row", "rows"]
