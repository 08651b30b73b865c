"""The elementwise and special rows of the tensor language's table against their references, generated from the rows.

For each dtype, ONE function holds every row valid for it (elementwise_rows.ROWS and special_rows.ROWS) as its
outputs; it runs under FAST_RUN (each row's C where it has some), FAST_COMPILE (perform: numpy or scipy) and
through each row's op.compute, on inputs full of special values (+-0, +-inf, NaN, the largest and smallest
numbers, subnormals, integer extremes), in C, Fortran, strided and negative-stride layouts, 0-size and
broadcast. Each result must have the reference's dtype and shape and its values: bit for bit from perform,
within the row's ulp bound from C. verify_grad checks every differentiable row in float64, all rows in one
function. The dtypes beyond DEFAULT_DTYPES, float32's C of the rows whose float64 has C too, op.compute's compiled
nodes, and the gradients under FAST_RUN are soak (`-m soak`).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.modes import FAST_RUN_GRAPH

import opkit
import opkit.tensor as ot
from opkit.core.tensor.language import elementwise_rows, special_rows
from opkit.core.tensor.language.row import ALL_DTYPES, COMPLEX_DTYPES
from opkit.testing import verify_grad
from opkit.testing.ulp import numpy_simd, ulp_distance
from opkit.testing.verify_grad import GradientError

ROWS = elementwise_rows.ROWS + special_rows.ROWS
DTYPES = ALL_DTYPES + COMPLEX_DTYPES
# Every kind of loop: float64 C, integer C with float16 results (perform), float16 and complex (perform only); float32
# runs every row under FAST_COMPILE and, under FAST_RUN, the rows whose C is float32's alone (their "c_dtypes"; see
# _row_params). The other integer widths, bool and complex64 run the same code on other types, and float32's other C
# is its float64 C's template on float: soak.
DEFAULT_DTYPES = ("float64", "int8", "float16", "complex128")
LAYOUTS = ("c", "fortran", "strided", "reversed", "empty", "broadcast")
SHAPE = (4, 8)
# The ulps a "simd" row's compiled result may add to its bound where numpy runs loops other than the measured AVX2
# ones (AVX-512's SVML, another CPU): test_trust3_ulp_bounds's UNMEASURED margin.
UNMEASURED_MARGIN = 4


def rows_for(dtype, rows="all"):
    """The rows valid for `dtype`: "all", or "own C": those with C for float32 and none for float64."""
    return [row for row in ROWS if dtype in row.dtypes and (rows == "all" or own_c(row))]


def own_c(row):
    c_dtypes = row.extra.get("c_dtypes", ("float32", "float64"))
    return not row.c.startswith(("perform", "a graph")) and "float32" in c_dtypes and "float64" not in c_dtypes


# -- inputs ----------------------------------------------------------------------------------------------------------

def special_values(dtype):
    """32 values of `dtype` that find the corner cases: signed zeros, infinities, NaN, extremes, subnormals."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.array([True, False, False, True] * 8)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        small = [0, 1, 2, 3, 7, 100, -1, -2, -3, -7, -100, 5, 9, 11, 64, -64]
        extremes = [info.max, info.max - 1, info.min, info.min + 1, info.max // 2, info.min // 2 - 1]
        return np.array([max(int(info.min), min(int(info.max), v)) for v in small + extremes + list(range(10, 20))], dt)
    real = dt if dt.kind == "f" else np.dtype(f"float{dt.itemsize * 4}")
    info = np.finfo(real)
    values = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -2.5, 2.0, 3.0, -3.0, 1e-6, 0.1, -0.7, 0.9, 10.0, -20.0, 40.0,
              89.0, -104.0, 700.0, -800.0, 1e4, float(info.tiny), -float(info.tiny), float(info.smallest_subnormal),
              float(info.max), -float(info.max), np.inf, -np.inf, np.nan, 0.25]
    with np.errstate(over="ignore"):
        result = np.array(values, np.float64).astype(real)
    if dt.kind == "c":  # parts set apart: 1j * inf would put a NaN in the real part
        parts = np.empty(result.size, dt)
        parts.real, parts.imag = result, np.roll(result[::-1], 5)
        result = parts
    return result


def domain_values(dtype, low, high, seed):
    """32 values of `dtype` in [low, high]: integers where both ends are ints, else floats (ends included)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if isinstance(low, int) and isinstance(high, int) or dt.kind in "biu":
        if dt.kind == "b":
            low, high = max(low, 0), min(high, 1)
        elif dt.kind in "iu":
            info = np.iinfo(dt)
            low, high = max(low, int(info.min)), min(high, int(info.max))
        drawn = np.concatenate([[low, high], rng.integers(low, high + 1, 30)])
    else:
        drawn = np.concatenate([[low, high], rng.uniform(low, high, 30)])
    return drawn.astype(dt)


def input_key(row, k, dtype):
    """Which drawn input feeds input k of `row`: (k, None) for the whole range, (k, (low, high)) for a domain."""
    domains = row.extra.get("domains")
    if domains and domains[k] is not None:
        return (k, tuple(domains[k]))
    int_domains = row.extra.get("int_domains")
    if int_domains and int_domains[k] is not None and np.dtype(dtype).kind in "biu":
        return (k, tuple(int_domains[k]))
    if row.domain is not None:
        return (k, tuple(row.domain))
    return (k, None)


def base_values(key, dtype):
    """The (4, 8) values of a drawn input (see input_key); the positions permute the special values."""
    k, domain = key
    if domain is None:
        values = np.roll(special_values(dtype), 11 * k)
        if k:
            values = values[np.random.default_rng(k).permutation(values.size)]
    else:
        values = domain_values(dtype, *domain, seed=hash((k, domain)) % 2**32)
    return values.reshape(SHAPE)


def laid_out(base, layout, position):
    """`base` in `layout`; "broadcast" gives the second input one row and the third one column."""
    if layout == "fortran":
        return np.asfortranarray(base)
    if layout == "strided":
        big = np.zeros((2 * base.shape[0] + 1, 2 * base.shape[1] + 1), base.dtype)
        big[1::2, 1::2] = base
        return big[1::2, 1::2]
    if layout == "reversed":
        return np.ascontiguousarray(base[::-1, ::-1])[::-1, ::-1]
    if layout == "empty":
        return base[:0]
    if layout == "broadcast":
        return base[:1] if position == 1 else base[:, :1] if position == 2 else base
    return np.ascontiguousarray(base)


# -- the functions ---------------------------------------------------------------------------------------------------

class DtypeCase:
    """Every row valid for a dtype as outputs of one graph, on shared inputs (one per input_key)."""

    def __init__(self, dtype, rows="all"):
        self.dtype = dtype
        self.rows = rows_for(dtype, rows)
        self.keys, self.inputs, self.outputs, self.row_keys, self.row_outputs = [], {}, [], [], []
        for row in self.rows:
            keys = [input_key(row, k, dtype) for k in range(row.nin)]
            for key in keys:
                if key not in self.inputs:
                    self.keys.append(key)
                    self.inputs[key] = ot.tensor(dtype, (None, None), name=f"x{key[0]}_{key[1]}")
            self.row_keys.append(keys)
            results = as_tuple(getattr(ot, row.name)(*[self.inputs[key] for key in keys]))
            self.row_outputs.append(list(range(len(self.outputs), len(self.outputs) + len(results))))
            self.outputs.extend(results)
        self._functions = {}

    def function(self, mode):
        if mode not in self._functions:
            self._functions[mode] = opkit.function([self.inputs[k] for k in self.keys], self.outputs, mode=mode)
        return self._functions[mode]

    def arrays(self, layout):
        """{key: array} for `layout`; each input's position among a row's inputs decides its broadcast shape."""
        return {key: laid_out(base_values(key, self.dtype), layout, key[0]) for key in self.keys}


def as_tuple(result):
    """A row's result (a tensor, or the tuple of a function with several results, divmod's) as a tuple."""
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


_CASES: dict = {}


def case(dtype, rows="all"):
    if (dtype, rows) not in _CASES:
        _CASES[(dtype, rows)] = DtypeCase(dtype, rows)
    return _CASES[(dtype, rows)]


# -- the check -------------------------------------------------------------------------------------------------------

def ulp_bound(row, dtype, compiled):
    """The ulps a result of `row` of `dtype` may be from its reference: 0 from perform, the row's bound from C.

    Where numpy's loops are not the measured AVX2 ones, a "simd" row gets UNMEASURED_MARGIN more, perform too:
    there numpy's own result depends on the layout (AVX-512's SVML loops run on contiguous operands only, e.g.
    float32 log1p), and perform may run on a view where the reference ran on a contiguous copy."""
    dtype = {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)  # a complex result's parts
    if dtype not in ("float32", "float64"):
        return 0
    bound = row.extra["ulp"][0 if dtype == "float32" else 1] if compiled else 0
    if numpy_simd(dtype) != "AVX2" and row.extra.get("simd"):
        bound += UNMEASURED_MARGIN
    return bound


def check(result, expected, bound, what):
    """Dtype and shape exact; integers, bools and complex bit for bit; floats within `bound` ulps (NaN where NaN)."""
    result, expected = np.asarray(result), np.asarray(expected)
    assert result.dtype == expected.dtype, f"{what}: dtype {result.dtype}, the reference gives {expected.dtype}"
    assert result.shape == expected.shape, f"{what}: shape {result.shape}, the reference gives {expected.shape}"
    kind = expected.dtype.kind
    if kind in "biu":
        np.testing.assert_array_equal(result.view(np.uint8) if kind == "b" else result,
                                      expected.view(np.uint8) if kind == "b" else expected, err_msg=what, strict=True)
        return
    if kind == "c":
        check(result.real, expected.real, bound, f"{what} (real part)")
        check(result.imag, expected.imag, bound, f"{what} (imaginary part)")
        return
    if expected.dtype == np.float16:
        distance = ulp_distance(result.astype(np.float32), expected.astype(np.float32))
    else:
        distance = ulp_distance(result, expected)
    bad = distance > bound
    if bound == 0:  # the same bits: a zero's sign too
        bad |= (result == 0) & (expected == 0) & (np.signbit(result) != np.signbit(expected))
    assert not bad.any(), (f"{what}: {result[bad][:6]} where the reference gives {expected[bad][:6]} "
                           f"({distance[bad][:6]} ulps apart; bound {bound})")


def reference_values(row, arrays):
    """The reference's results, as a tuple of arrays (one for most rows)."""
    with np.errstate(all="ignore"):
        return tuple(np.asarray(value) for value in as_tuple(row.reference(*arrays)))


def run_and_check(dtype, layout, modes=("FAST_RUN", "FAST_COMPILE"), rows="all"):
    c = case(dtype, rows)
    arrays = c.arrays(layout)
    values = [arrays[key] for key in c.keys]
    results = {mode: c.function(mode)(*values) for mode in modes}
    for row, keys, slots in zip(c.rows, c.row_keys, c.row_outputs):
        row_arrays = [arrays[key] for key in keys]
        references = reference_values(row, row_arrays)
        assert len(references) == len(slots), f"{row.name}({dtype}): {len(slots)} results, the reference gives " \
                                              f"{len(references)}"
        for k, expected in zip(slots, references):
            assert c.outputs[k].dtype == expected.dtype, f"{row.name}({dtype}): the graph's dtype {c.outputs[k].dtype}"
            for mode, outputs in results.items():
                check(outputs[k], expected, ulp_bound(row, str(expected.dtype), mode == "FAST_RUN"),
                      f"{row.name}({dtype}, {layout}) under {mode}")


def _row_params():
    """(dtype, rows): every row of each dtype (soak beyond DEFAULT_DTYPES), and float32's in the default run: every row
    under FAST_COMPILE, under FAST_RUN the rows whose C is float32's alone ("own C")."""
    return [pytest.param(dtype, "all", id=dtype, marks=[] if dtype in DEFAULT_DTYPES else [pytest.mark.soak])
            for dtype in DTYPES] + [pytest.param("float32", "own C", id="float32-own-C")]


@pytest.mark.parametrize("dtype, rows", _row_params())
def test_every_row_matches_its_reference_under_fast_run_and_fast_compile(dtype, rows):
    for layout in LAYOUTS:
        if rows == "own C":
            run_and_check(dtype, layout, ("FAST_COMPILE",))
            run_and_check(dtype, layout, ("FAST_RUN",), rows)
        else:
            run_and_check(dtype, layout)


def _single_node_op(output, inputs):
    """The op computing `output` straight from `inputs` (None for a row that is a graph, e.g. factorial)."""
    node = output.owner
    if node is None or list(node.inputs) != list(inputs):
        return None
    return node.op


@pytest.mark.parametrize("dtype", [d if d in ("float16", "complex128") else pytest.param(d, marks=pytest.mark.soak)
                                   for d in DTYPES])
def test_every_row_matches_its_reference_through_op_compute(dtype):
    """op.compute runs one node: perform for float16 and complex (the default run), each C node otherwise (soak)."""
    c = case(dtype)
    for layout in ("c", "reversed", "broadcast"):
        arrays = c.arrays(layout)
        for row, keys, slots in zip(c.rows, c.row_keys, c.row_outputs):
            op = _single_node_op(c.outputs[slots[0]], [c.inputs[key] for key in keys]) if len(slots) == 1 else None
            if op is None:
                continue
            row_arrays = [arrays[key] for key in keys]
            with np.errstate(all="ignore"):
                result = op.compute(*row_arrays)
            expected, = reference_values(row, row_arrays)
            check(result, expected, ulp_bound(row, str(expected.dtype), True),
                  f"{row.name}({dtype}, {layout}) through op.compute")


def test_the_compiled_functions_run_c_for_the_rows_that_say_so():
    from opkit.cop.generate.cinterface import op_has_c

    for dtype in ("float64", "float32"):
        c = case(dtype)
        nodes = c.function(FAST_RUN_GRAPH).maker.fgraph.toposort()
        with_c = {str(node.op) for node in nodes if op_has_c(node)}
        for row in c.rows:
            if row.c.startswith("a graph"):
                continue
            c_dtypes = row.extra.get("c_dtypes", ("float32", "float64"))
            expected = not row.c.startswith("perform") and dtype in c_dtypes
            assert (row.name in with_c) == expected, (row.name, dtype, row.c)


def test_the_rows_cover_every_new_function_and_each_name_once():
    names = [row.name for row in ROWS]
    assert len(names) == len(set(names))
    wanted = {"tan", "sinh", "cosh", "arcsin", "arccos", "arctan", "arctan2", "arcsinh", "arccosh", "arctanh", "log2",
              "log10", "exp2", "isnan", "isinf", "real", "imag", "conj", "sqr", "reciprocal", "deg2rad", "rad2deg",
              "trunc", "hypot", "logaddexp", "erf", "erfc", "erfcx", "erfinv", "erfcinv", "gammaln", "psi", "gamma",
              "gammainc", "gammaincc", "i0", "i1", "j0", "j1", "log1mexp", "logit", "xlogx", "xlogy0", "add", "sub",
              "mul", "true_div", "neg", "exp", "log", "sqrt", "maximum", "minimum", "pow", "abs", "sign", "tanh",
              "sin", "cos", "log1p", "expm1", "sigmoid", "softplus", "floor", "ceil", "round", "clip", "int_div",
              "mod", "lt", "gt", "le", "ge", "eq", "neq", "and_", "or_", "xor", "invert", "switch"}
    assert wanted <= set(names), wanted - set(names)
    aliases = {alias for row in ROWS for alias in row.aliases}
    assert {"power", "square", "negative", "true_divide", "divide", "equal", "not_equal", "less", "greater",
            "less_equal", "greater_equal", "expit", "log1pexp", "digamma", "conjugate"} <= aliases
    for row in ROWS:
        function = getattr(ot, row.name)
        assert all(getattr(ot, alias) is function for alias in row.aliases), row.name


# -- gradients -------------------------------------------------------------------------------------------------------

def gradient_rows():
    return [row for row in ROWS if row.differentiable]


def _grad_points(row, seed):
    rng = np.random.default_rng(seed)
    grad_domains = row.extra.get("grad_domains") or (None,) * row.nin
    domains = row.extra.get("domains") or (None,) * row.nin
    grad_inputs = row.extra.get("grad_inputs", range(row.nin))
    points = []
    for k in range(row.nin):
        low, high = (grad_domains[k] or (domains[k] if k not in grad_inputs else None) or row.grad_domain)
        if isinstance(low, int) and isinstance(high, int):
            points.append(rng.integers(low, high + 1, 3).astype(np.float64))
        else:
            points.append(rng.uniform(low, high, 3))
    return points


def check_gradients(mode):
    """verify_grad of every differentiable row at once: one function of their concatenated results."""
    rows = gradient_rows()
    wrt, constants, points = [], {}, []
    for n, row in enumerate(rows):
        row_points = _grad_points(row, n)
        for k in range(row.nin):
            if k in row.extra.get("grad_inputs", range(row.nin)):
                wrt.append((row, k))
                points.append(row_points[k])
            else:
                constants[(row.name, k)] = row_points[k]

    def stacked(*variables):
        given = dict(zip(wrt, variables))
        pieces = []
        for row in rows:
            args = [given[(row, k)] if (row, k) in given else ot.constant(constants[(row.name, k)])
                    for k in range(row.nin)]
            pieces.append(getattr(ot, row.name)(*args))
        return ot.concatenate(pieces)

    try:
        verify_grad(stacked, points, rng=np.random.default_rng(7), mode=mode)
    except GradientError as error:
        row, k = wrt[error.arg]
        raise AssertionError(f"the gradient of {row.name} in its input {k} ({row.gradient}) disagrees with finite "
                             f"differences at {points[error.arg]}:\n{error}") from None


def test_every_differentiable_row_has_its_gradient():
    check_gradients("FAST_COMPILE")


@pytest.mark.soak
def test_every_differentiable_row_has_its_gradient_in_c():
    check_gradients("FAST_RUN")


def test_the_new_functions_fuse_into_one_c_loop():
    from opkit.cop.generate.cinterface import op_has_c

    x, y = ot.dvector("x"), ot.dvector("y")
    out = ot.logaddexp(ot.tan(x), ot.arcsinh(y)) * ot.erf(x) + ot.hypot(ot.log2(ot.abs(y) + 1), ot.trunc(x)) \
        - ot.xlogy0(ot.sigmoid(x), ot.exp2(y))
    f = opkit.function([x, y], out)
    nodes = f.maker.fgraph.toposort()
    assert len(nodes) == 1 and str(nodes[0].op).startswith("Fused") and op_has_c(nodes[0]), nodes
    a, b = np.linspace(-1.2, 1.2, 9), np.linspace(-3, 3, 9)
    sig = 1 / (1 + np.exp(-a))
    import scipy.special

    expected = (np.logaddexp(np.tan(a), np.arcsinh(b)) * scipy.special.erf(a)
                + np.hypot(np.log2(np.abs(b) + 1), np.trunc(a)) - np.where(sig == 0, 0, sig * np.log(np.exp2(b))))
    np.testing.assert_allclose(f(a, b), expected, rtol=1e-14)


@pytest.mark.soak
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_random_values_match_the_references(dtype):
    """Hypothesis draws the whole-range inputs (any float, NaN and infinities included) of the compiled functions."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    c = case(dtype)
    free = [key for key in c.keys if key[1] is None]
    fixed = c.arrays("c")

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(hnp.arrays(dtype, SHAPE, elements=st.floats(width=np.dtype(dtype).itemsize * 8)),
                    min_size=len(free), max_size=len(free)))
    def run(drawn):
        arrays = {**fixed, **dict(zip(free, drawn))}
        outputs = c.function("FAST_RUN")(*[arrays[key] for key in c.keys])
        for row, keys, slots in zip(c.rows, c.row_keys, c.row_outputs):
            references = reference_values(row, [arrays[key] for key in keys])
            for k, expected in zip(slots, references):
                check(outputs[k], expected, ulp_bound(row, str(expected.dtype), True), f"{row.name}({dtype}) drawn")

    run()
