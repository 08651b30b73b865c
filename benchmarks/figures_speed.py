"""Speed at scale: `(x*y+z)*2-x` at 10^4, 10^7, 10^8 and `sum(x*y)` at 10^7, against numba and OpenMP C.

Contenders: opkit (config.threads threads), numpy, numba single-thread and
numba `parallel=True` (when numba is importable: a benchmark-only dependency),
PyTensor's C linker at 10^7, and a hand-written one-loop C with
`#pragma omp parallel for` over a fresh output, built here.
"""

from __future__ import annotations

import numpy as np

from context import Context
from figure_array import expression, numpy_expression
from report import OPKIT, Figure, Target
from timing import call_sampler, interleave

OMP_LOOP = "C loop, OpenMP"
NUMBA_ONE, NUMBA_PARALLEL = "numba 1 thread", "numba parallel"
COPY_KEPT = "copy into a kept buffer"
OPKIT_OUT = "opkit, out="
OPKIT_FRESH = "opkit, last result held"

OMP_SOURCE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <numpy/arrayobject.h>

static int threads = 1;

static PyObject* set_threads(PyObject*, PyObject* arg)
{
    threads = (int)PyLong_AsLong(arg);
    if (threads < 1) threads = 1;
    Py_RETURN_NONE;
}

static PyObject* expression(PyObject*, PyObject* const* args, Py_ssize_t nargs)
{
    if (nargs != 3) { PyErr_SetString(PyExc_TypeError, "expression(x, y, z)"); return NULL; }
    for (int i = 0; i < 3; i++)
        if (!PyArray_Check(args[i]) || PyArray_TYPE((PyArrayObject*)args[i]) != NPY_FLOAT64
            || PyArray_NDIM((PyArrayObject*)args[i]) != 1 || !PyArray_IS_C_CONTIGUOUS((PyArrayObject*)args[i])
            || PyArray_DIM((PyArrayObject*)args[i], 0) != PyArray_DIM((PyArrayObject*)args[0], 0)) {
            PyErr_SetString(PyExc_TypeError, "expects contiguous 1-d float64 arrays of one length");
            return NULL;
        }
    npy_intp n = PyArray_DIM((PyArrayObject*)args[0], 0);
    PyArrayObject* out = (PyArrayObject*)PyArray_EMPTY(1, &n, NPY_FLOAT64, 0);
    if (!out) return NULL;
    const double* __restrict x = (const double*)PyArray_DATA((PyArrayObject*)args[0]);
    const double* __restrict y = (const double*)PyArray_DATA((PyArrayObject*)args[1]);
    const double* __restrict z = (const double*)PyArray_DATA((PyArrayObject*)args[2]);
    double* __restrict o = (double*)PyArray_DATA(out);
    Py_BEGIN_ALLOW_THREADS
    #pragma omp parallel for simd num_threads(threads) schedule(static)
    for (npy_intp i = 0; i < n; i++)
        o[i] = (x[i] * y[i] + z[i]) * 2.0 - x[i];
    Py_END_ALLOW_THREADS
    return (PyObject*)out;
}

static PyMethodDef methods[] = {
    {"expression", (PyCFunction)(void (*)(void))expression, METH_FASTCALL, "(x*y + z)*2 - x"},
    {"set_threads", set_threads, METH_O, "threads of the loop"},
    {NULL, NULL, 0, NULL},
};
static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "@NAME@", NULL, -1, methods};

PyMODINIT_FUNC PyInit_@NAME@(void)
{
    import_array();
    return PyModule_Create(&moddef);
}
"""


def import_numba():
    """Return the numba module, or None where it is not importable."""
    try:
        import numba
    except ImportError:
        return None
    return numba


def numba_expressions(threads: int) -> dict:
    """Return numba's single-thread and parallel versions of the expression (empty without numba)."""
    numba = import_numba()
    if numba is None:
        return {}
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))

    @numba.njit(nogil=True)
    def one(x, y, z):
        out = np.empty_like(x)
        for i in range(x.size):
            out[i] = (x[i] * y[i] + z[i]) * 2.0 - x[i]
        return out

    @numba.njit(nogil=True, parallel=True)
    def parallel(x, y, z):
        out = np.empty_like(x)
        for i in numba.prange(x.size):
            out[i] = (x[i] * y[i] + z[i]) * 2.0 - x[i]
        return out

    return {NUMBA_ONE: one, NUMBA_PARALLEL: parallel}


def build_omp_loop(ctx: Context):
    """Compile OMP_SOURCE with -fopenmp (opkit's builder and flags) and return its `expression`."""
    from opkit.cop.toolchain.extension import build_extension
    from opkit.cop.load.loader import load_module

    name = "opkit_bench_omp_loop"
    path = build_extension(OMP_SOURCE.replace("@NAME@", name), name, ctx.workdir / "omp_loop",
                           extra_compile_args=["-fopenmp"], extra_link_args=["-fopenmp"])
    module = load_module(path, name)
    module.set_threads(ctx.threads)
    return module.expression


def kept_copy(size: int):
    """Return `copy(x, y, z)`: x and y copied (np.copyto) into one buffer of 2*size kept across calls.

    It moves what the expression moves (three inputs read, one output written: 4 * 8 * size
    bytes) with no allocation, the bandwidth bound of a call that writes into a kept output.
    """
    kept = np.empty(2 * size)

    def copy(x, y, z):
        np.copyto(kept[:size], x)
        np.copyto(kept[size:], y)
        return kept

    return copy


def _with_out(f, size: int):
    """Return opkit's function called with out= (the same array given every call)."""
    kept = np.empty(size)

    def call(x, y, z):
        return f(x, y, z, out=kept)

    return call


def _result_kept(f):
    """Return opkit's function with each result held until the next call: a fresh output every call
    (the function reuses its output buffer only once the caller dropped it), as before that reuse."""
    held = [None]

    def call(x, y, z):
        result = f(x, y, z)
        held[0] = result
        return result

    return call


def _trusted(f):
    f.trust_input = True
    return f


def _elementwise(ctx: Context, size: int, name: str, target: Target, baseline: str, with_c: bool) -> Figure:
    import opkit
    import opkit.tensor as ot

    rng = np.random.default_rng(0)
    x, y, z = (rng.standard_normal(size) for _ in range(3))
    f = _trusted(opkit.function(*expression(ot)))
    contenders = {OPKIT: f, "numpy": numpy_expression, **numba_expressions(ctx.threads)}
    if with_c:
        contenders[OMP_LOOP] = build_omp_loop(ctx)
        contenders[COPY_KEPT] = kept_copy(size)
        # Each its own function: one that shared f would leave the result it holds in f's kept slot, and f's
        # next call (the first of its round, the only one of a sample at 1e8) would allocate a fresh output.
        contenders[OPKIT_OUT] = _with_out(_trusted(opkit.function(*expression(ot))), size)
        contenders[OPKIT_FRESH] = _result_kept(_trusted(opkit.function(*expression(ot))))
        if size <= 10**7:
            contenders.update({k: v for k, v in ctx.pytensor_functions(expression).items() if "(c)" in k})
    if baseline not in contenders:
        baseline = "numpy"
    expected = numpy_expression(x, y, z)
    for label, fn in contenders.items():
        if label == COPY_KEPT:
            continue
        if label.startswith("pytensor"):  # PyTensor builds without -ffp-contract=off: FMA changes last bits
            np.testing.assert_allclose(fn(x, y, z), expected, rtol=1e-12, atol=1e-12, err_msg=label)
        else:  # + - * only: the same bits as numpy
            np.testing.assert_array_equal(fn(x, y, z), expected, err_msg=label)
    big = size >= 10**6
    budget = (0.03 if ctx.quick else 0.1) if big else ctx.budget
    unit = 1e-3 if big else 1e-6
    samplers = {label: call_sampler(fn, (x, y, z), budget, unit=unit) for label, fn in contenders.items()}
    stats = interleave(samplers, ctx.rounds(7, 2) if big else ctx.rounds(15, 5))
    notes = [f"{size:.0e} float64 per input; opkit writes into its last output when the caller dropped it "
             f"({OPKIT_FRESH!r}: a fresh output per call), the others allocate one per call; "
             f"opkit{' and the OpenMP loop' * with_c} on {ctx.threads} thread(s), numba parallel on numba's "
             f"{ctx.threads} thread(s); {ctx.cores}"]
    if with_c:
        notes.append(f"{OMP_LOOP}: `#pragma omp parallel for simd` over a fresh output, built with opkit's flags")
    if COPY_KEPT in stats:
        share = stats[COPY_KEPT].median / stats[OPKIT].median
        notes.append(f"{COPY_KEPT}: np.copyto of the same bytes (3 inputs read, 1 output written); opkit moves "
                     f"them at {share:.0%} of its bandwidth (goal >= 80%)")
    if NUMBA_PARALLEL in stats:
        notes.append(f"opkit / numba parallel: {stats[OPKIT].median / stats[NUMBA_PARALLEL].median:.3g}x")
    return Figure(name, f"(x*y + z)*2 - x on {size:.0e} float64", "ms" if big else "us", stats, baseline,
                  target, notes)


def elemwise_1e4(ctx: Context) -> Figure:
    """10^4 elements, in cache: call overhead and SIMD; target <= 1.2x numba single-thread."""
    return _elementwise(ctx, 10**4, "elemwise_1e4", Target("ratio", 1.2), NUMBA_ONE, with_c=False)


def elemwise_1e7(ctx: Context) -> Figure:
    """10^7 elements: memory bound; target <= 1.5x the OpenMP C loop (and faster than numba parallel)."""
    return _elementwise(ctx, 10**6 if ctx.quick else 10**7, "elemwise_1e7", Target("ratio", 1.5), OMP_LOOP,
                        with_c=True)


def elemwise_1e8(ctx: Context) -> Figure:
    """10^8 elements (10^7 with --quick): 2.4 GB of inputs, 0.8 GB out per call."""
    return _elementwise(ctx, 10**7 if ctx.quick else 10**8, "elemwise_1e8", Target("ratio", 1.5), OMP_LOOP,
                        with_c=True)

