"""The tensor language's examples, run: every row of the table with `examples` against its numpy reference.

Generated from the rows (opkit/core/tensor/language/row.py), so a new row is tested without an edit here.
A row's cases (numpy arrays standing for tensors, other arguments passed as they are) become one compiled
function per row and mode, every case an output. Each output must have the reference's dtype and shape
and its values: integers and bool exactly, floats within a tolerance of the dtype (`row.extra["rtol"]`
overrides it), NaN where numpy has NaN and the same infinities.

Default run: each row in FAST_COMPILE and through its ops' perform (no rewrites), both with the Python
linker (no compiler run); verify_grad in float64 for differentiable rows; and in FAST_RUN (C), in one
function, five cases of each sort row (three dtypes, ties, NaN) and the first of each product row (but rows whose
`extra["default_fast_run"]` is False: graphs of ops whose C other rows compile). Soak: every case of every row in
FAST_RUN, one function a row.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.tensor.language import rows
from opkit.core.tensor.types.type import TensorType
from opkit.testing import verify_grad

ROWS = [row for row in rows() if row.examples is not None]
GRAD_ROWS = [row for row in ROWS if row.differentiable]
PERFORM = opkit.Mode(linker="py", optimizer=None)
PY_MODES = {"FAST_COMPILE": "FAST_COMPILE", "perform": PERFORM}
RTOL = {"float16": 1e-2, "float32": 1e-4, "float64": 1e-9, "complex64": 1e-4, "complex128": 1e-9}
GRAD_CASES = 2  # verify_grad runs on a row's first float64 cases, this many
DEFAULT_FAST_RUN_FAMILIES = ("sort", "product")


def cases_of(row):
    """The row's cases, drawn from a generator seeded by its name (the same cases in every process)."""
    return row.examples(np.random.default_rng(zlib.crc32(row.name.encode())))


def _variable(value, name):
    """A tensor variable standing for `value`: its dtype and ndim, static length 1 where it has length 1."""
    return TensorType(str(value.dtype), tuple(1 if s == 1 else None for s in value.shape))(name)


def bind(args, prefix, inputs, values):
    """`args` with each numpy array (also inside a list or tuple) replaced by a variable, appended to `inputs`
    (and the array to `values`)."""

    def one(value):
        if isinstance(value, np.ndarray):
            variable = _variable(value, f"{prefix}_{len(inputs)}")
            inputs.append(variable)
            values.append(value)
            return variable
        if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
            return type(value)(one(v) for v in value)
        return value

    return [one(a) for a in args]


def _as_list(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def call(row, *args, **kwargs):
    """opkit's function of `row` applied to `args` (through `row.extra["apply"]` where the row has one)."""
    function = getattr(ot, row.name)
    apply = row.extra.get("apply")
    return apply(function, *args, **kwargs) if apply else function(*args, **kwargs)


def build(row, cases, prefix):
    """(inputs, values, outputs, expected): each case applied to variables, and the reference's results."""
    inputs, values, outputs, expected = [], [], [], []
    for index, (args, kwargs) in enumerate(cases):
        symbolic = bind(args, f"{prefix}{index}", inputs, values)
        got = _as_list(call(row, *symbolic, **kwargs))
        want = _as_list(row.reference(*args, **kwargs))
        assert len(got) == len(want), f"{row.name} case {index}: {len(got)} outputs, the reference {len(want)}"
        outputs += got
        expected += [(index, w) for w in want]
    return inputs, values, outputs, expected


def check(row, index, got, want):
    """Assert that `got` (opkit's) is `want` (the reference's): dtype, shape and values."""
    want = np.asarray(want)
    got = np.asarray(got)
    what = f"{row.name} case {index}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, the reference's {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, the reference's {want.shape}"
    if want.dtype.kind in "biuUSO":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    rtol = row.extra.get("rtol", {}).get(str(want.dtype), RTOL.get(str(want.dtype), 1e-9))
    finite = np.abs(want[np.isfinite(want)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, equal_nan=True, err_msg=what)


def run_and_check(row_cases, mode):
    """Compile every (row, cases) pair's outputs into one function in `mode`, run it and check each output."""
    inputs, values, outputs, expected = [], [], [], []
    for number, (row, cases) in enumerate(row_cases):
        i, v, o, e = build(row, cases, f"r{number}c")
        inputs += i
        values += v
        outputs += o
        expected += [(row, index, want) for index, want in e]
    function = opkit.function(inputs, outputs, mode=mode, on_unused_input="ignore")
    results = function(*values)
    for got, (row, index, want) in zip(results, expected):
        check(row, index, got, want)


@pytest.mark.parametrize("mode", sorted(PY_MODES))
@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.name)
def test_row_examples_in_python_modes(row, mode):
    run_and_check([(row, cases_of(row))], PY_MODES[mode])


def test_the_first_cases_of_the_sort_and_product_rows_in_fast_run():
    # The default run's C: sort, argsort, cumsum and cumprod (new C) over bool, int8 and float64 (their examples
    # start with one case per dtype in ALL_DTYPES' order; float32's case 10 is float64's C template on float: soak),
    # then their cases 12 and 13 (ties and NaN for sort and argsort; integer products that wrap for the scans), and
    # one case of each product row.
    # The other families' C has its own tests in the default run; every case of every row is in the soak run.
    chosen = [(row, [cases_of(row)[i] for i in ((0, 1, 11, 12, 13) if row.family == "sort" else (0,))])
              for row in ROWS if row.family in DEFAULT_FAST_RUN_FAMILIES and row.extra.get("default_fast_run", True)]
    run_and_check(chosen, "FAST_RUN")


@pytest.mark.soak
@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.name)
def test_row_examples_in_fast_run(row):
    run_and_check([(row, cases_of(row))], "FAST_RUN")


def _arrays(args):
    """The numpy arrays of `args`, also those inside a list or tuple, in order."""
    for value in args:
        if isinstance(value, np.ndarray):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from (v for v in value if isinstance(v, np.ndarray))


def _grad_cases(row):
    """The row's cases whose float64 arrays are finite and not empty (at most GRAD_CASES)."""
    found = []
    for args, kwargs in cases_of(row):
        floats = [a for a in _arrays(args) if a.dtype == np.float64]
        if floats and all(a.size and np.isfinite(a).all() for a in floats):
            found.append((args, kwargs))
        if len(found) == GRAD_CASES:
            break
    return found


def _substitute(args, variables):
    """`args` with each float64 array replaced by the next of `variables`, other arrays by constants."""
    variables = iter(variables)

    def one(value):
        if isinstance(value, np.ndarray):
            return next(variables) if value.dtype == np.float64 else ot.constant(value)
        if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
            return type(value)(one(v) for v in value)
        return value

    return [one(a) for a in args]


@pytest.mark.parametrize("row", GRAD_ROWS, ids=lambda row: row.name)
def test_row_gradient(row):
    cases = _grad_cases(row)
    if not cases:
        pytest.skip(f"{row.name}: no example has a finite, non-empty float64 array")
    for args, kwargs in cases:
        def cost(*variables, args=args, kwargs=kwargs):
            return _as_list(call(row, *_substitute(args, variables), **kwargs))[0]

        # C order: verify_grad perturbs a point through reshape(-1), a copy (not a view) of a Fortran array
        points = [np.ascontiguousarray(a) for a in _arrays(args) if a.dtype == np.float64]
        verify_grad(cost, points, rng=np.random.default_rng(0), mode="FAST_COMPILE")


def test_every_example_row_names_a_function_and_gives_cases():
    assert {"sum", "var", "sort", "cumsum", "matmul", "tensordot"} <= {row.name for row in ROWS}
    for row in ROWS:
        assert callable(getattr(ot, row.name)), row.name
        cases = cases_of(row)
        assert cases and all(isinstance(kwargs, dict) for _, kwargs in cases), row.name
