"""Derandomized hypothesis tests draw the same examples in any test order and process.

Hypothesis (6.13x and later) mixes into its draws the constants of every local module imported so far
(`hypothesis.internal.conjecture.providers._get_local_constants`: opkit's own modules, in an editable install,
and modules tests write). So a derandomized test's examples depended on which tests its pytest-xdist worker had
run before it: tests/tensor/test_differential.py's default run raised 10, 20 or 34 numpy errors, by order. Its
coverage checks, and any test tuned on its examples, then passed or failed by scheduling.

`fix_draws()` keeps hypothesis's global constants (0, -1, NaN, the extremes) and drops the local ones.
tests/docs/test_fixed_draws.py fails when a hypothesis release moves this mechanism.
"""

from __future__ import annotations


def fix_draws() -> None:
    """Make hypothesis draw no constants from local modules (nothing to do where this hypothesis has no such pool)."""
    from hypothesis.internal.conjecture import providers

    if hasattr(providers, "_get_local_constants") and hasattr(providers, "Constants"):
        empty = providers.Constants()
        providers._get_local_constants = lambda: empty
