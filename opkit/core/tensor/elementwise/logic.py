"""Comparisons (bool results), bitwise logic and switch, elementwise with numpy's rules (see scalar_logic).

As in PyTensor, `x == y` on variables stays Python identity (variables are
dictionary keys throughout the graph code): write `eq(x, y)`. `<`, `>`,
`<=`, `>=`, `&`, `|`, `^` and `~` build the ops below.
"""

from __future__ import annotations

from opkit.core.tensor.elementwise.elemwise import Elemwise
from opkit.core.tensor.scalars import scalar_logic

lt = Elemwise(scalar_logic.lt)
gt = Elemwise(scalar_logic.gt)
le = Elemwise(scalar_logic.le)
ge = Elemwise(scalar_logic.ge)
eq = Elemwise(scalar_logic.eq)
neq = Elemwise(scalar_logic.neq)
and_ = Elemwise(scalar_logic.and_)
or_ = Elemwise(scalar_logic.or_)
xor = Elemwise(scalar_logic.xor)
invert = Elemwise(scalar_logic.invert)
_switch = Elemwise(scalar_logic.switch)


def switch(cond, a, b):
    """Return `a` where `cond` is nonzero, else `b` (np.where; the result has numpy's dtype of a and b)."""
    return _switch(cond, a, b)


where = switch
