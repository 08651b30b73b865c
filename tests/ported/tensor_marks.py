"""Marks of the ported PyTensor tensor tests (test_pytensor_*.py), applied by conftest.py.

The ported files are upstream's tests with their import lines changed, so a mark cannot live in their source.
XFAIL names the tests that fail on a gap, strict (each fails the day the gap closes, and its line goes),
grouped by reason as PORTING.md explains them. DEFAULT_RUN names, per file, the tests of the default run;
the file's other tests are soak (`-m soak`): the default run's cold-cache budget allows a few compiles a
function, and the soak run compiles the rest.
"""

_SYMBOLIC_AXIS = ("difference: opkit's sort/argsort take the axis as an int or None when the graph is built; "
                  "PyTensor also takes a symbolic integer scalar")
_KIND_PROP = ("difference: opkit's Sort/Argsort ops have the axis as their prop and no `kind` (opkit's sort is "
              "always stable, the kind is checked and ignored)")
_OP_CLASS = "PyTensor internal: the test builds or compares PyTensor's op class ({})"

XFAIL = {
    "test_pytensor_sort.py::TestSort::test_invalid_axis_dtype": _SYMBOLIC_AXIS,
    "test_pytensor_sort.py::TestSort::test2": _SYMBOLIC_AXIS,
    "test_pytensor_sort.py::TestSort::test4": _SYMBOLIC_AXIS,
    "test_pytensor_sort.py::test_argsort": _SYMBOLIC_AXIS,
    "test_pytensor_sort.py::test_parse_sort_args": _KIND_PROP,
    "test_pytensor_sort.py::TestSort::test5": _OP_CLASS.format("SortOp"),
    "test_pytensor_sort.py::TestSortInferShape::test_sort": _OP_CLASS.format("SortOp, ArgSortOp"),
}

DEFAULT_RUN = {
    "test_pytensor_sort.py": ("TestSort::test1", "TestSort::test3", "TestSort::test_None",
                              "TestSort::test_grad_nonnegative_axis_2d"),
    "test_pytensor_special.py": (),
    "test_pytensor_extra_ops.py": (),
    "test_pytensor_math.py": (),
    "test_pytensor_basic.py": (),
}


def _matches(relative, key):
    return relative == key or relative.startswith((key + "[", key + "::"))


def mark(item):
    """Add this module's marks to a collected test of tests/ported (nothing for a test of another file)."""
    import pytest

    relative = item.nodeid.rpartition("ported/")[2]
    filename = relative.partition("::")[0]
    if filename not in DEFAULT_RUN:
        return
    for key, reason in XFAIL.items():
        if _matches(relative, key):
            item.add_marker(pytest.mark.xfail(strict=True, reason=reason))
    if not any(_matches(relative, f"{filename}::{key}") for key in DEFAULT_RUN[filename]):
        item.add_marker(pytest.mark.soak)
