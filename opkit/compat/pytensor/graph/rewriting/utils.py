"""pytensor.graph.rewriting.utils: ``is_same_graph`` (Theano's ``gof.graph.is_same_graph`` too)."""

from opkit.compat.pytensor.graph.basic import equal_computations
from opkit.link.updates import replace_variables


def is_same_graph(var1, var2, givens=None, debug=False):
    """Return True if `var1` and `var2` compute the same thing by the same graph, after `givens`.

    `givens` ({variable: replacement} or pairs) applies to both graphs at once, as in ``function``:
    ``is_same_graph(x + 1, y + 1, givens={x: y})`` is True; ``x * (y * z)`` and ``(x * y) * z`` are not
    the same graph. `debug` (Theano's check that two implementations agree) changes nothing: opkit has one.
    """
    pairs = list(givens.items() if isinstance(givens, dict) else givens or [])
    if pairs:
        var1, var2 = replace_variables([var1, var2], dict(pairs))
    return equal_computations([var1], [var2])


__all__ = ["is_same_graph"]
