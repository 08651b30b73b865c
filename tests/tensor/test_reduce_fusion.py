"""Reductions fused with their elementwise input: one node, no temporary, numpy's results, any thread count."""

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.cop.toolchain.openmp import openmp_supported
from opkit.core.tensor.reductions.reduce_fusion import FusedReduce
from opkit.core.tensor.scalars import scalar_ops
from opkit.link.mode import Mode
from opkit.testing import verify_grad

from helpers.modes import FAST_RUN_GRAPH
from helpers.numeric import layout


def _nodes(f):
    return f.maker.fgraph.toposort()


def test_sum_of_a_product_is_one_c_node_reading_the_inputs_directly():
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], ot.sum(x * y))
    node, = _nodes(f)
    assert isinstance(node.op, FusedReduce) and op_has_c(node)
    assert node.inputs == f.maker.fgraph.inputs  # no intermediate array: the loop reads x and y
    assert str(node.op) == "FusedSum{mul; axis=None, keepdims=False}"
    a, b = np.random.default_rng(0).standard_normal((2, 1000))
    np.testing.assert_allclose(f(a, b), np.sum(a * b), rtol=1e-13)


def test_a_tree_of_elementwise_ops_fuses_into_the_reduction():
    x, y = ot.dmatrix("x"), ot.dvector("y")
    f = opkit.function([x, y], ot.mean(ot.exp(x) * y + 1.0, axis=1, keepdims=True))
    node, = _nodes(f)
    assert isinstance(node.op, FusedReduce) and len(node.op.program) == 3
    a, b = np.random.default_rng(1).standard_normal((4, 5)), np.arange(5.0)
    for data in (a, np.asfortranarray(a), layout(a, "strided"), a[::-1, ::-1]):
        np.testing.assert_allclose(f(data, b[::-1]), np.mean(np.exp(data) * b[::-1] + 1.0, axis=1, keepdims=True),
                                   rtol=1e-13)


def test_an_intermediate_used_elsewhere_is_not_fused():
    x, y = ot.dvector("x"), ot.dvector("y")
    product = x * y
    f = opkit.function([x, y], [ot.sum(product), product], mode=FAST_RUN_GRAPH)  # the graph alone (g runs)
    assert not any(isinstance(n.op, FusedReduce) for n in _nodes(f))
    g = opkit.function([x, y], [ot.sum(product), ot.max(product)])
    assert not any(isinstance(n.op, FusedReduce) for n in _nodes(g))
    np.testing.assert_array_equal(g(np.arange(3.0), np.ones(3)), [3.0, 2.0])


def test_a_reduction_without_c_is_not_fused():
    x = ot.tensor("float16", (None,), name="x")
    f = opkit.function([x], ot.sum(x * x))
    assert not any(isinstance(n.op, FusedReduce) for n in _nodes(f))
    np.testing.assert_array_equal(f(np.ones(3, np.float16)), np.float16(3))


# (expression over a namespace (numpy or opkit.tensor) and keepdims, input dtypes, input shapes)
CASES = [
    (lambda m, x, y, kd: m.sum(x * y, axis=0, keepdims=kd), ("float64", "float64"), [(1, 5), (4, 5)]),
    (lambda m, x, y, kd: m.max(x - y, axis=1, keepdims=kd), ("float32", "float32"), [(4, 1), (1, 6)]),
    (lambda m, x, y, kd: m.sum(x * y, keepdims=kd), ("int8", "int16"), [(3, 4), (4,)]),
    (lambda m, x, y, kd: m.prod(x + y, axis=(0, 1), keepdims=kd), ("uint8", "uint8"), [(2, 3), (2, 3)]),
    (lambda m, x, y, kd: m.min(m.maximum(x, y), axis=-1, keepdims=kd), ("int32", "int64"), [(3, 4), (3, 1)]),
    (lambda m, x, y, kd: m.mean(x * y, axis=0, keepdims=kd), ("bool", "int8"), [(5, 2), (5, 2)]),
    (lambda m, x, y, kd: m.sum(x + y, keepdims=kd), ("bool", "bool"), [(3, 3), (3, 3)]),
    (lambda m, x, y, kd: m.mean(m.sqrt(x * x + y), axis=(0, 2), keepdims=kd), ("float32", "float64"),
     [(2, 3, 4), (4,)]),
    (lambda m, x, y, kd: m.max(m.abs(x - y), axis=0, keepdims=kd), ("int16", "float32"), [(3, 4), (4,)]),
    (lambda m, x, y, kd: m.sum(m.where(x < y, x, y * 2), axis=1, keepdims=kd), ("int32", "uint8"), [(3, 4), (3, 4)]),
]


@pytest.mark.parametrize("case, keepdims", [(case, case % 2 == 1) for case in range(len(CASES))])
def test_fused_reductions_match_numpy_with_broadcasting_and_mixed_dtypes(case, keepdims):
    expr, dtypes, shapes = CASES[case]
    x = ot.tensor(dtypes[0], (None,) * len(shapes[0]), name="x")
    y = ot.tensor(dtypes[1], (None,) * len(shapes[1]), name="y")
    out = expr(ot, x, y, keepdims)
    fast_run = opkit.function([x, y], out)
    assert len(_nodes(fast_run)) == 1 and isinstance(_nodes(fast_run)[0].op, FusedReduce)
    assert op_has_c(_nodes(fast_run)[0])
    python = opkit.function([x, y], out, mode=Mode(linker="py", optimizer="fast_run"))  # FusedReduce.perform
    assert isinstance(_nodes(python)[0].op, FusedReduce)
    rng = np.random.default_rng(case)
    for shape_x, shape_y in (shapes, [tuple(0 if d > 1 else d for d in s) for s in shapes]):
        a = (rng.integers(0, 4, shape_x) if dtypes[0] != "float32" else rng.random(shape_x)).astype(dtypes[0])
        b = (rng.integers(0, 3, shape_y) if dtypes[1] != "float32" else rng.random(shape_y)).astype(dtypes[1])
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy's "Mean of empty slice"
            try:
                expected = np.asarray(expr(np, a, b, keepdims))
            except ValueError:  # max/min over a 0-size axis
                for f in (fast_run, python):
                    with pytest.raises(ValueError, match="zero-size array"):
                        f(a, b)
                continue
        for f in (fast_run, python):
            for data in ((a, b), (np.asfortranarray(a), layout(b, "reversed"))):
                result = np.asarray(f(*data))
                assert result.dtype == expected.dtype and result.shape == expected.shape
                np.testing.assert_allclose(result, expected, rtol=1e-6)


def test_fused_reductions_raise_the_elementwise_errors():
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], ot.sum(x * y))
    with pytest.raises(ValueError, match=r"shapes \(3,\), \(4,\) cannot be broadcast together"):
        f(np.ones(3), np.ones(4))
    i, j = ot.lvector("i"), ot.lvector("j")
    g = opkit.function([i, j], ot.sum(i ** j))
    assert isinstance(_nodes(g)[0].op, FusedReduce)
    assert g(np.array([2, 3]), np.array([3, 2])) == 17
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
        g(np.array([2, 3]), np.array([3, -2]))


def test_the_gradient_of_a_fused_reduction_is_the_unfused_one():
    program = ((scalar_ops.mul, (0, 1), "float64"), (scalar_ops.exp, (2,), "float64"))
    rng = np.random.default_rng(3)
    for kind, axis in (("sum", None), ("max", (1,)), ("mean", (0,)), ("prod", None)):
        op = FusedReduce(kind, axis, False, program, 2)
        verify_grad(op, [rng.uniform(0.1, 1, (3, 4)), rng.uniform(0.1, 1, (3, 4))], rng=np.random.RandomState(0),
                    mode="FAST_COMPILE")


def test_fused_shapes_are_inferred_without_computing():
    x, y = ot.dmatrix("x"), ot.dvector("y")
    op = FusedReduce("sum", (1,), True, ((scalar_ops.mul, (0, 1), "float64"),), 2)
    f = opkit.function([x, y], op(x, y).shape)
    assert not any(isinstance(n.op, FusedReduce) for n in _nodes(f))
    np.testing.assert_array_equal(f(np.ones((3, 4)), np.ones(4)), [3, 1])


# ---- threads -------------------------------------------------------------------------------------------------

# FusedReduce built with OpenMP and OPKIT_THREADS_FOR(n) = OMP_NUM_THREADS, for every n: each thread count
# below is really used (the default macro keeps small work on one thread).
THREADED_SCRIPT = textwrap.dedent(r"""
    import sys
    import numpy as np
    import opkit.tensor as ot
    import opkit
    from opkit.core.tensor.scalars import scalar_ops
    from opkit.core.tensor.reductions.reduce_fusion import FusedReduce

    class ThreadedReduce(FusedReduce):
        def c_compile_args(self, c_compiler=None):
            return [*super().c_compile_args(c_compiler), "-fopenmp",
                    "-DOPKIT_THREADS_FOR(n)=omp_get_max_threads()"]

        def c_headers(self, c_compiler=None):
            return [*super().c_headers(c_compiler), "<omp.h>"]

    def mul(dtype):
        return ((scalar_ops.mul, (0, 1), dtype),)

    dtype = sys.argv[1]
    x, y = ot.matrix("x", dtype=dtype), ot.matrix("y", dtype=dtype)
    kinds = [("sum", None), ("mean", (1,)), ("sum", (0,)), ("max", (1,))] if dtype == "float64" else \
        [("sum", None), ("sum", (0,))]
    f = opkit.function([x, y], [ThreadedReduce(kind, axis, False, mul(dtype), 2)(x, y) for kind, axis in kinds])
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 300001)) * 10.0 ** rng.uniform(-8, 8, (4, 300001))
    b = rng.standard_normal((4, 300001))
    results = f(a, b[:, ::-1]) if dtype == "float64" else f(a.astype(dtype), b.astype(dtype))  # y reversed in float64
    print(";".join(np.asarray(r).tobytes().hex() for r in results))
""")


# float64: a sum of everything, a mean and a max along the rows, a sum down the columns. float32's two sums (the same
# C on float, in modules of their own) are soak.
@pytest.mark.skipif(not openmp_supported(), reason="the compiler cannot build with -fopenmp")
@pytest.mark.parametrize("dtype", ["float64", pytest.param("float32", marks=pytest.mark.soak)])
def test_results_are_bit_identical_whatever_the_thread_count(dtype):
    outputs = set()
    for threads in (1, 3):  # one thread, and three that split the rows unevenly (2 and 4 taught nothing more)
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), PYTHONPATH=os.pathsep.join(sys.path))
        run = subprocess.run([sys.executable, "-c", THREADED_SCRIPT, dtype], env=env, capture_output=True,
                             text=True, timeout=300, check=False)
        assert run.returncode == 0, run.stderr
        outputs.add(run.stdout.strip())
    assert len(outputs) == 1
    # ... and identical to the default build (one thread below its threshold, no OpenMP here)
    x, y = ot.matrix("x", dtype=dtype), ot.matrix("y", dtype=dtype)
    if dtype == "float64":
        outputs_of_f = [ot.sum(x * y), ot.mean(x * y, axis=1), ot.sum(x * y, axis=0), ot.max(x * y, axis=1)]
    else:
        outputs_of_f = [ot.sum(x * y), ot.sum(x * y, axis=0)]
    f = opkit.function([x, y], outputs_of_f)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 300001)) * 10.0 ** rng.uniform(-8, 8, (4, 300001))
    b = rng.standard_normal((4, 300001))
    results = f(a, b[:, ::-1]) if dtype == "float64" else f(a.astype(dtype), b.astype(dtype))  # y reversed in float64
    assert ";".join(np.asarray(r).tobytes().hex() for r in results) == outputs.pop()
