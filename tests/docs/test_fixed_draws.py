"""The suite's derandomized hypothesis tests draw the same examples whatever was imported before them
(tests/helpers/fixed_draws.py, which tests/conftest.py applies in every pytest process)."""

import importlib
import sys

from hypothesis import given, settings
from hypothesis import strategies as st


def _draws():
    """The 200 examples a derandomized test draws, in order."""
    drawn = []

    @settings(max_examples=200, derandomize=True, database=None, deadline=None)
    @given(st.integers(), st.floats(), st.text(max_size=4))
    def record(i, f, s):
        drawn.append((i, repr(f), s))

    record()
    return drawn


def test_a_local_module_imported_between_two_runs_changes_no_draw(tmp_path, monkeypatch):
    before = _draws()
    # A local module (not site-packages, not a test file) full of constants hypothesis would otherwise draw.
    module = tmp_path / "opkit_user_constants.py"
    module.write_text("SIZES = (" + ", ".join(str(7919 * k + 123457) for k in range(200)) + ")\n"
                      "SCALES = (" + ", ".join(f"{k}.8125e-3" for k in range(200)) + ")\n"
                      "NAMES = (" + ", ".join(f"'q{k}z'" for k in range(200)) + ")\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        importlib.import_module("opkit_user_constants")
        after = _draws()
    finally:
        sys.modules.pop("opkit_user_constants", None)
    assert after == before, "hypothesis drew other examples after a local module was imported: fix_draws no " \
                            "longer holds on this hypothesis release (tests/helpers/fixed_draws.py)"
