"""Cold compile of a new one-op module, against g++ parsing Python.h and numpy's headers alone."""

from __future__ import annotations

import itertools
import os
import sysconfig

import numpy as np

from context import Context
from report import OPKIT, Figure, Target
from timing import interleave, once_sampler, run_checked

HEADERS_ONLY = "g++ -fsyntax-only on Python.h + numpy"
HEADERS_SOURCE = "#define PY_SSIZE_T_CLEAN\n#include <Python.h>\n#include <numpy/arrayobject.h>\n"

MUL_CODE = """
if (NULL == %(z)s || PyArray_DIMS(%(z)s)[0] != PyArray_DIMS(%(x)s)[0]) {
    Py_XDECREF(%(z)s);
    %(z)s = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS(%(x)s), NPY_FLOAT64, 0);
    if (!%(z)s) { %(fail)s; }
}
salted_mul((const double*)PyArray_DATA(%(x)s), PyArray_STRIDES(%(x)s)[0] / 8,
           (const double*)PyArray_DATA(%(y)s), PyArray_STRIDES(%(y)s)[0] / 8,
           (double*)PyArray_DATA(%(z)s), PyArray_DIMS(%(x)s)[0]);
"""


def salted_mul_class(op_base, apply_class):
    """Return an elementwise-multiply op whose `salt` prop lands in its C support code.

    Each salt is a distinct module source, hence a distinct cache key: a cold
    compile every time. The same class body works for opkit's Op and PyTensor's COp.
    """
    class SaltedMul(op_base):
        __props__ = ("salt",)

        def __init__(self, salt):
            self.salt = salt

        def make_node(self, x, y):
            return apply_class(self, [x, y], [x.type()])

        def perform(self, node, inputs, outputs):  # PyTensor's COp requires one; never run here
            outputs[0][0] = inputs[0] * inputs[1]

        def c_code_cache_version(self):
            return (1,)

        def c_support_code(self, **kwargs):
            return (f"// salt: {self.salt}\n"
                    "static void salted_mul(const double* x, npy_intp xs, const double* y, npy_intp ys,\n"
                    "                       double* z, npy_intp n)\n"
                    "{ for (npy_intp i = 0; i < n; i++) z[i] = x[i * xs] * y[i * ys]; }\n")

        def c_code(self, node, name, inputs, outputs, sub):
            return MUL_CODE % {"x": inputs[0], "y": inputs[1], "z": outputs[0], "fail": sub["fail"]}

    return SaltedMul


def _opkit_compiler(ctx: Context, salts):
    import opkit
    import opkit.tensor as ot

    op_class = salted_mul_class(opkit.Op, opkit.Apply)
    x, y = ot.dvector("x"), ot.dvector("y")
    return lambda: _check(opkit.function([x, y], op_class(next(salts))(x, y)))


def _pytensor_compiler(ctx: Context, salts):
    from pytensor.compile.mode import Mode
    from pytensor.graph.basic import Apply
    from pytensor.link.c.op import COp

    op_class = salted_mul_class(COp, Apply)
    # PyTensor pickles each op into its cache index: the class must be found by module and name.
    op_class.__name__ = op_class.__qualname__ = "PyTensorSaltedMul"
    globals()[op_class.__name__] = op_class
    T = ctx.pytensor.tensor
    x, y = T.dvector("x"), T.dvector("y")
    return lambda: _check(ctx.pytensor.function([x, y], op_class(next(salts))(x, y), mode=Mode(linker="c")))


def _check(fn):
    a = np.arange(3.0)
    np.testing.assert_array_equal(fn(a, a), a * a)


def _headers_only_command(ctx: Context) -> list[str]:
    """Return g++ -fsyntax-only on Python.h + numpy/arrayobject.h with opkit's compile flags."""
    from opkit.cop.toolchain.extension import build_flags
    from opkit.cop.toolchain.compiler import find_compiler, python_include_dirs

    source = ctx.workdir / "headers_only.cpp"
    source.write_text(HEADERS_SOURCE)
    compile_args, _ = build_flags()
    return [*find_compiler().command, *compile_args, *(f"-I{d}" for d in python_include_dirs()),
            "-fsyntax-only", str(source)]


def _count_modules(directory) -> int:
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    return sum(name.endswith(suffix) for _, _, names in os.walk(directory) for name in names)


def cold_compile(ctx: Context) -> Figure:
    """Median time of opkit.function on a new one-op graph whose module is not in the cache.

    A warm-up compile first builds what every later compile shares: the call path
    module, the setuptools import and the precompiled header.
    """
    salts = (f"bench-{os.getpid()}-{i}" for i in itertools.count())
    samplers = {OPKIT: once_sampler(_opkit_compiler(ctx, salts))}
    if ctx.pytensor is not None:
        samplers["pytensor (c)"] = once_sampler(_pytensor_compiler(ctx, salts))
    for sample in samplers.values():
        sample()  # warm-up: helpers built, imports done
    command = _headers_only_command(ctx)
    samplers[HEADERS_ONLY] = once_sampler(lambda: run_checked(command, None, ctx.workdir))
    before = _count_modules(ctx.compiledir)
    rounds = ctx.rounds(7, 2)
    stats = interleave(samplers, rounds)
    built = _count_modules(ctx.compiledir) - before
    notes = [f"{rounds} fresh modules (distinct `salt` in c_support_code); {built} new opkit modules "
             "appeared in the cache", f"baseline command: {' '.join(command)}"]
    return Figure("cold_compile", "one-op module, cold compile (helpers built)", "ms", stats, HEADERS_ONLY,
                  Target("max", 250), notes)
