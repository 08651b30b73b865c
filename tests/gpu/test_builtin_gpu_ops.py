"""opkit's built-in GPU ops (opkit/gpu/ops): fused elementwise kernels, the reductions sum/max/min/mean, dot.

Every test runs through the CPU interpreter (device="cuda-interpret") and, where CuPy finds a device, on the
GPU (device="cuda"), compared with numpy (tests/helpers/numeric.check_close: dtypes exact, values bit for bit
where the CPU path is exact, else within its ulp bound). A function's graph takes numpy values and returns
numpy values; placement moves the ops in between to the GPU, which each test checks. Few modules are compiled:
one function per dtype group, called over layouts, broadcasting and 0-size shapes.
"""

import functools
import warnings

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.link.mode import Mode
from opkit.testing import verify_grad
from tests.helpers.numeric import check_close, layout, special_values
from tests.helpers.gpu import device, interpret  # noqa: F401 (fixtures)

FLOATS = ("float32", "float64")
INTS = ("int8", "int32", "int64", "uint8", "uint64")
LAYOUTS = ("c", "fortran", "strided", "reversed")


def gpu_function(device, inputs, outputs):
    return opkit.function(inputs, outputs, mode=Mode(device=device))


def gpu_ops(f):
    """The names of the GPU op classes in a compiled function's graph."""
    return {type(node.op).__name__ for node in f.maker.fgraph.toposort() if type(node.op).__name__.startswith("Gpu")}


def host_ops(f):
    """The op classes run on the host, transfers aside."""
    return {type(node.op).__name__ for node in f.maker.fgraph.toposort()
            if not type(node.op).__name__.startswith(("Gpu", "ToGpu", "ToHost"))}


def values(dtype, shape, shift=0):
    return np.resize(np.roll(special_values(dtype), shift), shape)


def shared_function(parts):
    """One GPU function (one module) of the graphs of several tests, compiled once per device and session: a module
    costs seconds under the interpreter, and a test's graph beside the others' runs the same kernels.

    `parts` maps a test's part to a function returning (its inputs, its outputs, filler values of its inputs that
    raise nothing). The result `call(device, part, *values)` calls the function with `values` for that part's inputs
    and the others' fillers, and returns that part's outputs; `call.function(device)` is the compiled function."""
    @functools.cache
    def function(device):
        built = {name: make() for name, make in parts.items()}
        inputs = [v for ins, _, _ in built.values() for v in ins]
        return gpu_function(device, inputs, [o for _, outs, _ in built.values() for o in outs]), built

    def call(device, part, *args):
        f, built = function(device)
        arguments, start, where = [], 0, None
        for name, (ins, outs, fillers) in built.items():
            assert name != part or len(args) == len(ins), (part, len(args), len(ins))
            arguments += args if name == part else [np.asarray(v) for v in fillers]
            where = slice(start, start + len(outs)) if name == part else where
            start += len(outs)
        return f(*arguments)[where]

    call.function = lambda device: function(device)[0]
    return call


# ---- elementwise ----
# Each graph output is a module of its own (the transfers between them run on the host), and a module costs
# a compile: so the exact terms of a dtype share one output, each element computing the term its selector
# names (numpy computes every term the same way, so the output is numpy's bit for bit).

def float_terms(x, y, z):
    """(exact terms, inexact term) over float matrices, each a pair (expression, numpy function)."""
    exact = [
        ((x * y + z) * 2 - x, lambda a, b, c: (a * b + c) * 2 - a),
        (ot.switch(x > y, x / (y * y + 1), ot.maximum(x, z) - ot.minimum(y, z)),
         lambda a, b, c: np.where(a > b, a / (b * b + 1), np.maximum(a, c) - np.minimum(b, c))),
        (ot.clip(x, -1.5, 2.5) + ot.floor(y) - ot.ceil(z) + ot.round(x),
         lambda a, b, c: np.clip(a, -1.5, 2.5) + np.floor(b) - np.ceil(c) + np.round(a)),
        (ot.mod(x, 1.75) + ot.int_div(y, z), lambda a, b, c: np.mod(a, 1.75) + np.floor_divide(b, c)),
        (ot.lt(x, y) | ot.eq(y, z), lambda a, b, c: (a < b) | (b == c)),
        (ot.sqrt(ot.abs(x)) - ot.pow(y, 2.0) + ot.abs(z) ** -1.0,
         lambda a, b, c: np.sqrt(np.abs(a)) - np.power(b, 2.0) + np.abs(c) ** -1.0),
    ]
    inexact = (ot.exp(x) * ot.tanh(y) * ot.sigmoid(z) * ot.log1p(ot.abs(x)) * ot.sin(y) * ot.pow(ot.abs(z), y),
               lambda a, b, c: np.exp(a) * np.tanh(b) / (1 + np.exp(-c)) * np.log1p(np.abs(a)) * np.sin(b)
               * np.abs(c) ** b)
    return exact, inexact


def int_terms(x, y, z):
    return [
        ((x * y + z) * 3 - x, lambda a, b, c: (a * b + c) * 3 - a),
        (ot.int_div(x, y) + ot.mod(x, z), lambda a, b, c: np.floor_divide(a, b) + np.mod(a, c)),
        (ot.maximum(x, y) - ot.minimum(y, z) + ot.sign(x) * ot.sqr(z),
         lambda a, b, c: np.maximum(a, b) - np.minimum(b, c) + np.sign(a) * np.square(c)),
        (ot.switch(ot.lt(x, y), ot.abs(x), -z) ^ (x & ~y | z),
         lambda a, b, c: np.where(a < b, np.abs(a), -c) ^ (a & ~b | c)),
        (x / (y + 1), lambda a, b, c: a / (b + 1)),
        (ot.ge(x, 7) | ot.neq(y, z), lambda a, b, c: (a >= 7) | (b != c)),
    ], None


def bool_terms(x, y, z):
    return [
        ((x & y) | ~z, lambda a, b, c: (a & b) | ~c),
        (x + y * z, lambda a, b, c: a + b * c),
        (ot.maximum(x, z) ^ ot.eq(x, y), lambda a, b, c: np.maximum(a, c) ^ (a == b)),
        (ot.switch(x, y, z), lambda a, b, c: np.where(a, b, c)),
    ], None


TERMS = {"bool": bool_terms, **{d: float_terms for d in FLOATS}, **{d: int_terms for d in INTS}}


def selected(s, terms):
    """One expression: the term selector `s` names at each element, and its numpy oracle."""
    expression = terms[-1][0]
    for k in reversed(range(len(terms) - 1)):
        expression = ot.switch(ot.eq(s, k), terms[k][0], expression)

    def oracle(a, b, c, selector):
        with np.errstate(all="ignore"):
            result = terms[-1][1](a, b, c)
            for k in reversed(range(len(terms) - 1)):
                result = np.where(selector == k, terms[k][1](a, b, c), result)
        return result
    return expression, oracle


# A group is one module. The default run has float64 and an integer group of a signed integer that C promotes to int
# (int8), the widest unsigned one (uint64) and bool; the soak group (`-m soak`) runs the same terms for the other
# dtypes (float32's kernels are float64's C on float; the default run computes in float32 in the float16 and the
# fused-reduction tests below).
@pytest.mark.parametrize("group", [("float64",), ("int8", "uint64", "bool"),
                                   pytest.param(("float32", "int32", "uint8", "int64"), marks=pytest.mark.soak)])
def test_fused_elementwise_matches_numpy_over_dtypes_layouts_broadcasting_and_empty(device, group):
    s = ot.matrix("s", dtype="int8")
    inputs, outputs, expected = [s], [], []
    for dtype in group:
        x, y, z = (ot.matrix(name, dtype=dtype) for name in "xyz")
        inputs += [x, y, z]
        exact, inexact = TERMS[dtype](x, y, z)
        expression, oracle = selected(s, exact)
        outputs.append(expression)
        expected.append((dtype, oracle, True))
        if inexact is not None:
            outputs.append(inexact[0])
            expected.append((dtype, lambda a, b, c, _, f=inexact[1]: f(a, b, c), False))
    f = gpu_function(device, inputs, outputs)
    assert gpu_ops(f) == {"GpuElemwise"} and not host_ops(f), f.maker.fgraph.toposort()

    def check(shapes, kind, what):
        out_shape = np.broadcast_shapes(*shapes)
        selector = layout(np.arange(int(np.prod(out_shape)), dtype="int8").reshape(out_shape) % 7, kind)
        args = [selector]
        for dtype in group:
            args += [layout(values(dtype, shape, shift), kind) for shape, shift in zip(shapes, (0, 5, 11))]
        results = f(*args)
        for (dtype, oracle, exact), result, k in zip(expected, results, range(len(results))):
            a, b, c = args[1 + 3 * group.index(dtype):4 + 3 * group.index(dtype)]
            with np.errstate(all="ignore"):
                want = np.asarray(oracle(a, b, c, selector))
            check_close(result, want, exact, what=f"{device} {dtype} output {k} {what}")

    for kind in LAYOUTS:
        check([(4, 6)] * 3, kind, f"layout {kind}")
    check([(4, 6), (1, 6), (4, 1)], "c", "broadcast")
    check([(1, 1), (5, 1), (1, 3)], "reversed", "broadcast of one-element inputs")
    check([(0, 6)] * 3, "c", "0-size axis 0")
    check([(4, 0), (1, 0), (4, 1)], "strided", "0-size axis 1")


def _negative_strides_part():
    x, s, v = ot.tensor3("x", dtype="float64"), ot.scalar("s", dtype="float64"), ot.vector("v", dtype="int32")
    return ([x, s, v], [(x - s) * v + x ** 2, ot.maximum(s, v), s * s - 1],
            [np.ones((1, 1, 1)), 1.0, np.ones(1, "int32")])


def _broadcast_clash_part():
    x, y = ot.matrix("x"), ot.matrix("y")
    return [x, y], [x * y + 1], [np.ones((1, 1)), np.ones((1, 1))]


def _float16_part():
    h, g = ot.vector("h", dtype="float16"), ot.vector("g", dtype="float16")
    i = ot.vector("i", dtype="int8")
    return ([h, g, i], [(h * g + i) / (g - 3) - ot.sqrt(ot.abs(h)) * ot.floor(g),
                        ot.switch(ot.lt(h, g) | ot.eq(g, 0), -h, ot.sqr(g) + 1)],
            [np.ones(1, "float16"), np.ones(1, "float16"), np.ones(1, "int8")])


# The three tests below check one function's parts (one module): each graph alone compiled a module of its own.
ELEMENTWISE = shared_function({"negative strides": _negative_strides_part, "broadcast clash": _broadcast_clash_part,
                               "float16": _float16_part})


def test_elementwise_negative_strides_scalars_and_3d(device):
    f = ELEMENTWISE.function(device)
    assert gpu_ops(f) == {"GpuElemwise"} and not host_ops(f)
    base = np.arange(2 * 3 * 5, dtype="float64").reshape(2, 3, 5) - 11.5
    for a in (base, base[::-1, :, ::-2], base.transpose(2, 0, 1)[:, :, ::-1], base[:, :0]):
        vec = np.arange(a.shape[-1], dtype="int32")[::-1] - 2
        first, second, third = ELEMENTWISE(device, "negative strides", a, np.asarray(2.5), vec)
        check_close(first, (a - 2.5) * vec + a ** 2, True, what=f"{device} shape {a.shape} strides {a.strides}")
        check_close(second, np.maximum(np.float64(2.5), vec), True)
        check_close(third, np.float64(2.5) * 2.5 - 1, True)  # a 0-d output


def test_broadcast_clash_raises_the_cpu_paths_error(device):
    with pytest.raises(ValueError, match=r"cannot be broadcast together: axis 1 has lengths \[3, 4\]"):
        ELEMENTWISE(device, "broadcast clash", np.ones((2, 3)), np.ones((2, 4)))


def test_float16_arithmetic_is_numpys_bit_for_bit(device):
    """float16 steps compute in float32 and round to half each time, as numpy does (subnormals, NaN, inf too)."""
    f = ELEMENTWISE.function(device)
    assert gpu_ops(f) == {"GpuElemwise"} and not host_ops(f)
    rng = np.random.default_rng(3)
    a = np.concatenate([np.resize(special_values("float16"), 48), (rng.standard_normal(500) * 300).astype("float16"),
                        (rng.standard_normal(500) * 1e-5).astype("float16")])
    b = np.concatenate([np.resize(np.roll(special_values("float16"), 5), 48) * np.float16(1.37),
                        (rng.standard_normal(500) * 30).astype("float16"), (rng.standard_normal(500) * 1e-4).astype("float16")])
    c = np.resize(special_values("int8"), a.size)
    first, second = ELEMENTWISE(device, "float16", a, b, c)
    with np.errstate(all="ignore"):
        check_close(first, (a * b + c) / (b - np.float16(3)) - np.sqrt(np.abs(a)) * np.floor(b), True, what=device)
        check_close(second, np.where((a < b) | (b == 0), -a, np.square(b) + np.float16(1)), True, what=device)


def test_float16_transcendentals_and_integer_power_stay_on_the_host(interpret):
    h = ot.vector("h", dtype="float16")
    i = ot.vector("i", dtype="int32")
    f = gpu_function(interpret, [h, i], [ot.exp(h) * h + 1, ot.maximum(h, 1), i ** i + 1])
    assert not gpu_ops(f)
    hv, iv = np.array([0.5, 2.0, 3.0], dtype="float16"), np.array([1, 2, 3], dtype="int32")
    first, second, third = f(hv, iv)
    check_close(first, np.exp(hv) * hv + 1, True)
    check_close(second, np.maximum(hv, np.float16(1)), True)
    check_close(third, iv ** iv + 1, True)
    with pytest.raises(ValueError, match="negative integer powers"):
        f(hv, np.array([1, -2, 3], dtype="int32"))


def test_a_fused_expression_of_more_inputs_than_a_kernel_takes_stays_on_the_host(interpret):
    from opkit.gpu.ops.elemwise import MAX_INPUTS

    xs = [ot.vector(f"x{k}") for k in range(MAX_INPUTS + 1)]
    total = xs[0]
    for x in xs[1:]:
        total = total * 1.5 + x
    f = gpu_function(interpret, xs, total)
    assert not gpu_ops(f)
    values_ = [np.full(3, float(k)) for k in range(len(xs))]
    want = values_[0]
    for v in values_[1:]:
        want = want * 1.5 + v
    check_close(f(*values_), want, True)


# ---- reductions ----

REDUCTIONS = [("sum", None, False), ("sum", (0, 2), True), ("max", 1, False), ("min", (1, 2), True),
              ("mean", None, False), ("mean", (0, 1), True)]
# every dtype: its sum (numpy's accumulator dtype) and max; some: min and mean too (one module of them all)
BY_DTYPE = {"float64": REDUCTIONS, "float32": [("sum", (0, 2), False), ("max", 1, False), ("min", None, True)],
            "bool": [("sum", (0, 2), False), ("max", 1, False), ("mean", None, False)],
            "int8": [("sum", (0, 2), False), ("max", 1, False)], "uint8": [("sum", (0, 2), False), ("max", 1, False)],
            "int32": [("sum", (0, 2), False), ("max", 1, False), ("mean", (1,), True)],
            "int64": [("sum", (0, 2), False), ("min", 1, False)],
            "uint64": [("sum", (0, 2), False), ("max", 1, False), ("min", 0, True)]}


# The default run's dtypes: float64, bool, a signed integer whose sum widens (int8) and an unsigned one (uint64); the
# soak case (`-m soak`) runs float32's and the other integers' rows (the same kernels for another type of a kind).
@pytest.mark.parametrize("dtypes", [("float64", "bool", "int8", "uint64"),
                                    pytest.param(("float32", "uint8", "int32", "int64"), marks=pytest.mark.soak)])
def test_reductions_match_numpy(device, dtypes):
    dtypes = list(dtypes)
    inputs, outputs, expected = [], [], []
    for dtype in dtypes:
        x = ot.tensor3("x", dtype=dtype)
        inputs.append(x)
        for kind, axis, keepdims in BY_DTYPE[dtype]:
            outputs.append(getattr(ot, kind)(x, axis=axis, keepdims=keepdims))
            expected.append((dtype, kind, axis, keepdims))
    f = gpu_function(device, inputs, outputs)
    assert gpu_ops(f) == {"GpuReduce"} and not host_ops(f)
    base = {d: values(d, (3, 4, 5), 3) for d in dtypes}
    for kind_name in LAYOUTS:
        args = [layout(base[d], kind_name) for d in dtypes]
        for (dtype, kind, axis, keepdims), result in zip(expected, f(*args)):
            a = args[dtypes.index(dtype)]
            with np.errstate(all="ignore"):
                want = getattr(np, kind)(a, axis=axis, keepdims=keepdims)
                # a float sum's error is relative to its terms' magnitudes (another order than numpy's)
                scale = getattr(np, kind)(np.abs(a.astype("float64")), axis=axis, keepdims=keepdims)
            check_close(result, want, kind in ("max", "min") or want.dtype.kind != "f", scale,
                        what=f"{device} {kind} axis={axis} keepdims={keepdims} of {dtype} {kind_name}")


def _empty_axes_part():
    x, i = ot.tensor3("x", dtype="float64"), ot.tensor3("i", dtype="int16")
    return ([x, i], [ot.sum(x, axis=1), ot.mean(x, axis=(0, 2), keepdims=True), ot.sum(i), ot.max(x, axis=0)],
            [np.ones((1, 1, 1)), np.ones((1, 1, 1), "int16")])


def _chunks_part():
    x, i = ot.vector("x", dtype="float64"), ot.matrix("i", dtype="int8")
    return ([x, i], [ot.max(x), ot.min(x), ot.mean(x), ot.sum(i, axis=0), ot.max(i, axis=0)],
            [np.ones(1), np.ones((1, 1), "int8")])


def _threads_part():
    x, y = ot.matrix("x"), ot.vector("y")
    return [x, y], [ot.sum(ot.exp(x) * y, axis=1), ot.max(x - y, axis=0)], [np.ones((1, 1)), np.ones(1)]


# test_reductions_over_empty_axes, test_reductions_of_few_long_outputs_run_in_chunks and
# test_eight_threads_call_one_gpu_function check one function's parts (one module): each graph alone compiled its own.
REDUCTIONS = shared_function({"empty axes": _empty_axes_part, "chunks": _chunks_part, "threads": _threads_part})


def test_reductions_over_empty_axes(device):
    assert gpu_ops(REDUCTIONS.function(device)) == {"GpuReduce"}
    for shape in [(2, 0, 3), (0, 3, 4), (2, 3, 0)]:
        a, b = np.ones(shape), np.ones(shape, dtype="int16")
        if shape[0] != 0:
            got = REDUCTIONS(device, "empty axes", a, b)
            wants = [np.sum(a, axis=1), np.full((1, shape[1], 1), np.nan) if shape[1] else np.mean(a, axis=(0, 2),
                     keepdims=True), np.sum(b), np.max(a, axis=0)]
            for result, want in zip(got, wants, strict=True):
                check_close(result, np.asarray(want, dtype=result.dtype), True, what=f"{device} {shape}")
        else:
            with pytest.raises(ValueError, match="zero-size array to reduction operation maximum which has no identity"):
                REDUCTIONS(device, "empty axes", a, b)


def test_a_reduction_of_an_elementwise_expression_is_one_kernel(device):
    """sum(x * y) reads x and y once: the product is computed as the reduction reads each element."""
    x, y = ot.matrix("x", dtype="float32"), ot.matrix("y", dtype="float32")
    v, h = ot.vector("v", dtype="int16"), ot.vector("h", dtype="float16")
    f = gpu_function(device, [x, y, v, h], [ot.sum(x * y, axis=1), ot.max(x - v, axis=0, keepdims=True),
                                            ot.mean(ot.sqrt(ot.abs(h)) * 2 + ot.clip(x, -1, 1))])
    nodes = [type(node.op).__name__ for node in f.maker.fgraph.toposort()]
    # the float16 part, which the host's fusion keeps apart (it has no C code there), is elementwise kernels
    assert nodes.count("GpuReduce") == 3 and not host_ops(f), nodes
    assert [n for n in f.maker.fgraph.toposort() if type(n.op).__name__ == "GpuReduce"][0].op.program
    for shape in [(5, 7), (3, 5000), (1, 1025), (0, 4), (4, 0)]:  # long rows: several blocks a row, then their pass
        a = np.linspace(-3, 3, shape[0] * shape[1], dtype="float32").reshape(shape)
        b = a[::-1, ::-1].copy()
        c = (np.arange(shape[1]) % 11 - 5).astype("int16")[::-1]
        d = np.linspace(-2, 5, shape[1]).astype("float16")
        if shape[0] == 0:
            with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
                f(a, b, c, d)
            continue
        first, second, third = f(a, b, c, d)
        check_close(first, np.sum(a * b, axis=1), False, np.sum(np.abs(a * b), axis=1), what=f"{device} {shape}")
        check_close(second, np.max(a - c, axis=0, keepdims=True), True, what=f"{device} {shape}")
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the mean of nothing is nan
            value = np.sqrt(np.abs(d)) * np.float16(2) + np.clip(a, -1, 1)
            check_close(third, np.mean(value), False, np.mean(np.abs(value)), what=f"{device} {shape}")


def test_reductions_of_few_long_outputs_run_in_chunks(device):
    a = np.random.default_rng(2).standard_normal(9001)
    b = np.resize(special_values("int8"), (3001, 2))
    a[4444] = 7.5
    results = REDUCTIONS(device, "chunks", a, b)
    for result, want, exact in zip(results, [a.max(), a.min(), a.mean(), b.sum(axis=0), b.max(axis=0)],
                                   [True, True, False, True, True], strict=True):
        check_close(result, want, exact, np.mean(np.abs(a)), what=device)
    a[7000] = np.nan
    assert all(np.isnan(v) for v in REDUCTIONS(device, "chunks", a, b)[:3])


# ---- dot ----

def test_dot_matches_numpy(device):
    m, n = ot.matrix("m"), ot.matrix("n")
    v, w = ot.vector("v"), ot.vector("w")
    f = gpu_function(device, [m, n, v, w], [ot.dot(m, n), ot.dot(m, v), ot.dot(v, n), ot.dot(v, w)])
    assert gpu_ops(f) == {"GpuDot"}
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((3, 5))
    for kind in LAYOUTS:
        args = [layout(a, kind), layout(b, kind), layout(b[:, 1], kind), layout(a[1], kind)]
        for result, want in zip(f(*args), [a @ b, a @ b[:, 1], b[:, 1] @ b, b[:, 1] @ a[1]]):
            check_close(result, want, False, np.abs(want) + 1, what=f"{device} dot {kind}")
    empty = f(np.ones((2, 0)), np.ones((0, 3)), np.ones(0), np.ones(0))
    check_close(empty[0], np.zeros((2, 3)), True)
    with pytest.raises(ValueError, match="not aligned"):
        f(np.ones((2, 3)), np.ones((4, 3)), np.ones(3), np.ones(3))


# ---- gradients: the gradient graph runs on the GPU too ----

# verify_grad through the interpreter (three GPU modules of several kernels): soak (`-m soak`); in the default run
# tests/gpu/test_gpu_gradients.py compares the GPU gradients of elementwise ops, reductions and dot with the host's.
@pytest.mark.soak
def test_gradients_through_gpu_ops(interpret):
    rng = np.random.default_rng(1)
    mode = Mode(device=interpret)
    a, b = rng.standard_normal((4, 4)), rng.standard_normal((4, 4))
    verify_grad(lambda x, y: ot.sum(ot.exp(x) * y + x * x, axis=0) + ot.max(ot.dot(x, y.T), axis=0)
                + ot.mean(x, axis=1), [a, b], mode=mode, rng=rng)
    x, y = ot.matrix("x"), ot.matrix("y")
    g = opkit.grad(ot.sum(ot.exp(x) * x) + ot.sum(ot.dot(x, y)), x)
    f = gpu_function(interpret, [x, y], g)
    assert gpu_ops(f) >= {"GpuElemwise", "GpuDot"}, f.maker.fgraph.toposort()
    check_close(f(a, b), np.exp(a) * a + np.exp(a) + np.ones((4, 4)) @ b.T, False, np.abs(np.exp(a) * a) + 10)


# ---- NVRTC: the kernels the GPU runs compile here (no GPU needed) ----

def test_builtin_kernels_compile_with_nvrtc_without_contracting_multiply_add():
    pytest.importorskip("nvidia.cuda_nvrtc", reason="NVRTC (pip install 'opkit-sdk[cuda]') is not installed")
    from opkit.core.tensor.scalars import scalar_logic, scalar_math, scalar_ops
    from opkit.cop.kernels import kernel_module, kernel_module_key
    from opkit.gpu.ops import GpuElemwise, GpuReduce, gpu_program_ok, gpu_reduce_ok
    from opkit.gpu.transfers import GpuArrayType

    every = {**scalar_ops.ALL, **scalar_math.ALL, **scalar_logic.ALL}
    for dtype in ("bool", "int8", "int64", "uint64", "float16", "float32", "float64"):
        x, y, z = (GpuArrayType(dtype, (None, None))() for _ in range(3))
        program = []
        for op in every.values():  # one kernel with every function that has a GPU version for this dtype
            try:
                out = op.output_dtype([dtype] * op.nin)
            except (TypeError, OverflowError):
                continue
            step = (op, tuple(range(op.nin)), out)
            if gpu_program_ok([step], [dtype] * op.nin):
                program.append(step)
        program.append((scalar_ops.add, (3, 4), every["add"].output_dtype([program[0][2], program[1][2]])))
        assert len(program) > (6 if dtype == "float16" else 10)
        node = GpuElemwise(program, 3)(x, y, z).owner
        for arch in ("sm_80", "sm_90"):
            module = kernel_module(node, arch)
            assert module.cubin[:4] == b"\x7fELF" and module.symbols == ("ew_node_0",)
            assert "fma.rn" not in module.ptx, "NVRTC contracted a multiply and an add (numpy rounds each)"
        for kind in ("sum", "max", "min", "mean") if dtype != "float16" else ():
            reduce_node = GpuReduce(kind, (0,))(x).owner
            assert kernel_module(reduce_node, "sm_90").cubin[:4] == b"\x7fELF"
        if gpu_reduce_ok("sum", program[-1][2], 2):  # the reduction of the whole program, in one kernel
            fused = GpuReduce("sum", (1,), False, program, 3)(x, y, z).owner
            module = kernel_module(fused, "sm_90")
            assert module.symbols == ("reduce_node_0", "reduce_chunks_node_0") and "fma.rn" not in module.ptx
    assert kernel_module_key(node, "sm_80") != kernel_module_key(node, "sm_90")


def test_the_cuda_host_module_of_the_builtin_ops_builds_without_a_gpu(monkeypatch):
    """The host part of the built-in GPU nodes compiles with g++ for device="cuda" (it cannot run here; no
    constant in the graph: placement would make it a CuPy array)."""
    pytest.importorskip("nvidia.cuda_nvrtc", reason="NVRTC (pip install 'opkit-sdk[cuda]') is not installed")
    from opkit.gpu import kernel_hooks, runtime

    if runtime.has_device():
        pytest.skip("a CUDA device is here: the tests above build and run it")
    monkeypatch.setattr(runtime, "_device_problem", lambda: "")
    monkeypatch.setattr(kernel_hooks, "device_arch", lambda: "sm_90")
    x, y = ot.matrix("x", dtype="float32"), ot.matrix("y", dtype="float32")
    f = gpu_function("cuda", [x, y], [ot.sum(x * y - x, axis=0), ot.max(x, axis=None), ot.dot(x, y), ot.exp(x) * y])
    assert gpu_ops(f) == {"GpuElemwise", "GpuReduce", "GpuDot"}


# ---- DebugMode (each kernel against the op's perform) and shape inference ----

# DebugMode compiles a module of each GPU node: the default run checks a fused reduction (max, keepdims), dot with its
# transposition and an elementwise kernel; the soak case (`-m soak`) the sum and the mean, the same reduction kernel's
# C for another kind (FAST_RUN runs every kind against numpy above).
DEBUGMODE_CASES = [
    pytest.param(lambda x, y: [ot.max(ot.exp(x) - y, axis=1, keepdims=True), ot.dot(x, x.T), x * y - 1],
                 lambda a, b: [np.max(np.exp(a) - b, axis=1, keepdims=True), a @ a.T, a * b - 1],
                 {"GpuElemwise", "GpuReduce", "GpuDot", "GpuDimShuffle"}, id="max-dot-elemwise"),  # x.T: GpuDimShuffle
    pytest.param(lambda x, y: [ot.sum(x * y + 1, axis=0), ot.mean(x)],
                 lambda a, b: [np.sum(a * b + 1, axis=0), np.mean(a)], {"GpuReduce"}, id="sum-mean",
                 marks=pytest.mark.soak),
]


@pytest.mark.parametrize("graph, numpy_of, ops", DEBUGMODE_CASES)
def test_debugmode_checks_each_gpu_kernel_against_perform(device, graph, numpy_of, ops):
    from opkit.link.debugmode import DebugMode

    x, y = ot.matrix("x"), ot.matrix("y", dtype="int32")
    f = opkit.function([x, y], graph(x, y), mode=DebugMode(device=device))
    assert gpu_ops(f) == ops
    a = np.arange(12.0).reshape(3, 4) / 7
    b = np.arange(12, dtype="int32").reshape(3, 4)[::-1]
    for result, want in zip(f(a, b), numpy_of(a, b), strict=True):
        check_close(result, want, False, np.abs(want) + 1)


def test_gpu_ops_infer_their_shapes(interpret):
    import opkit.gpu as og
    from opkit.core.tensor.scalars import scalar_ops
    from opkit.gpu.ops import GpuDot, GpuElemwise, GpuReduce
    from opkit.testing import InferShapeTester

    class Tester(InferShapeTester):  # the Python linker: infer_shape against each op's perform (the kernels' output
        mode = Mode(device=interpret, linker="py")  # shapes are checked against numpy's by the tests above)

    tester = Tester()
    x, y, v = og.matrix("x"), og.matrix("y"), og.vector("v")
    program = [(scalar_ops.mul, (0, 1), "float64"), (scalar_ops.add, (2, 0), "float64")]
    # one graph of every op (one module, not one a class), checked for each class on its own: the class is in the
    # compiled outputs, and left out of the graph of the shapes (the second and third checks hit the cache)
    outputs = [GpuElemwise(program, 2)(x, v), GpuReduce("max", (0,), True)(x), GpuReduce("mean")(x), GpuDot()(x, y)]
    for cls in (GpuElemwise, GpuReduce, GpuDot):
        tester._compile_and_check([x, y, v], outputs, [np.ones((3, 4)), np.ones((4, 5)), np.ones(4)], cls)


def test_gpu_ops_refuse_host_inputs_and_dtypes_without_a_kernel():
    import opkit.gpu as og
    from opkit.core.tensor.scalars import scalar_ops
    from opkit.gpu.ops import GpuDot, GpuElemwise, GpuReduce

    program = [(scalar_ops.add, (0, 1), "float64")]
    with pytest.raises(TypeError, match=r"takes GPU arrays \(GpuArrayType: move a host value with opkit.gpu.to_gpu\)"):
        GpuElemwise(program, 2)(ot.matrix("x"), og.matrix("y"))
    with pytest.raises(TypeError, match="has no GPU kernel for inputs of dtype float16, float16"):
        GpuElemwise([(scalar_ops.exp, (0,), "float16")], 2)(og.vector(dtype="float16"), og.vector(dtype="float16"))
    with pytest.raises(TypeError, match="has no GPU kernel for a 1-d input of dtype complex128"):
        GpuReduce("sum")(og.vector(dtype="complex128"))
    with pytest.raises(ValueError, match="unknown reduction 'prod'"):
        GpuReduce("prod")
    with pytest.raises(TypeError, match="GpuDot has no GPU version for dtype int64"):
        GpuDot()(og.matrix(dtype="int64"), og.matrix(dtype="int64"))


def test_eight_threads_call_one_gpu_function(device):
    import concurrent.futures

    assert gpu_ops(REDUCTIONS.function(device)) == {"GpuReduce"}  # compiled before the threads call it
    inputs = [(np.full((5, 3), k / 8.0), np.arange(3.0) + k) for k in range(8)]

    def call(k):
        return REDUCTIONS(device, "threads", *inputs[k])  # numpy in, numpy out: the transfers are the graph's

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(call, [k % 8 for k in range(64)]))
    for k, (first, second) in enumerate(results):
        a, b = inputs[k % 8]
        check_close(first, np.sum(np.exp(a) * b, axis=1), False, np.sum(np.abs(np.exp(a) * b), axis=1))
        check_close(second, np.max(a - b, axis=0), True)
