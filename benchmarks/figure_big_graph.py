"""Big graphs: chains of VectorTimesVector COp nodes (examples/vector_times_vector), cold and rebuilt.

Every cold sample compiles a module no cache holds: the chain starts with a
`SaltedMul` node whose salt lands in its support code (see figure_compile), so
both opkit and PyTensor build a new module of n + 1 nodes each time.
"""

from __future__ import annotations

import itertools
import os
import pathlib
import sys

import numpy as np

from context import Context
from figure_compile import salted_mul_class
from report import OPKIT, Figure, Target
from timing import interleave, once_sampler

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "vector_times_vector"
C_FILE = EXAMPLE / "vector_times_vector" / "vectorTimesVector.c"
PYTENSOR_C = "pytensor (c)"
SIZES = (10, 50, 200, 500)
_salts = (f"graph-{os.getpid()}-{i}" for i in itertools.count())
_per_node: dict[int, float] = {}


def _opkit_builder(n: int):
    import opkit
    import opkit.tensor as ot

    sys.path.insert(0, str(EXAMPLE))
    from vector_times_vector.op import VectorTimesVector

    salted = salted_mul_class(opkit.Op, opkit.Apply)
    x, y = ot.dvector("x"), ot.dvector("y")

    def graph(salt):
        z = salted(salt)(x, y)
        for _ in range(n):
            z = VectorTimesVector()(z, y)
        return [x, y], z

    return lambda salt: opkit.function(*graph(salt))


def _pytensor_builder(ctx: Context, n: int):
    from pytensor.compile.mode import Mode
    from pytensor.graph.basic import Apply
    from pytensor.link.c.op import ExternalCOp

    T = ctx.pytensor.tensor

    class PyTensorVectorTimesVector(ExternalCOp):
        __props__ = ()

        def __init__(self):
            super().__init__(str(C_FILE), "APPLY_SPECIFIC(vector_times_vector)")

        def make_node(self, x, y):
            return Apply(self, [x, y], [T.TensorType(x.dtype, shape=(None,))()])

        def perform(self, node, inputs, outputs):  # required by PyTensor; never run here
            outputs[0][0] = inputs[0] * inputs[1]

    from pytensor.link.c.op import COp

    salted = salted_mul_class(COp, Apply)
    # PyTensor pickles each op into its cache index: the classes must be found by module and name.
    for cls, name in ((salted, "PyTensorGraphSaltedMul"), (PyTensorVectorTimesVector, "PyTensorVectorTimesVector")):
        cls.__name__ = cls.__qualname__ = name
        cls.__module__ = __name__
        globals()[name] = cls
    x, y = T.dvector("x"), T.dvector("y")

    def graph(salt):
        z = salted(salt)(x, y)
        for _ in range(n):
            z = PyTensorVectorTimesVector()(z, y)
        return [x, y], z

    return lambda salt: ctx.pytensor.function(*graph(salt), mode=Mode(linker="c"))


def _checked(build, n):
    def run(salt):
        fn = build(salt)
        a = np.linspace(0.5, 1.5, 5)
        np.testing.assert_allclose(fn(a, np.full(5, 1.001)), a * 1.001 ** (n + 1), rtol=1e-12)
        return fn
    return run


def _builders(ctx: Context, n: int) -> dict:
    builders = {OPKIT: _checked(_opkit_builder(n), n)}
    if ctx.pytensor is not None and not (ctx.quick and n > 200):
        builders[PYTENSOR_C] = _checked(_pytensor_builder(ctx, n), n)
    return builders


def graph_compile(n: int):
    """Return the figure function: cold compile of a chain of n nodes (a module no cache holds)."""
    def figure(ctx: Context) -> Figure:
        builders = _builders(ctx, n)
        samplers = {label: once_sampler(lambda b=build: b(next(_salts)), unit=1.0)
                    for label, build in builders.items()}
        rounds = ctx.rounds(3 if n <= 200 else 1, 1)
        stats = interleave(samplers, rounds)
        _per_node[n] = stats[OPKIT].median / (n + 1)
        growth = ", ".join(f"{k}: {v * 1e3:.1f} ms" for k, v in sorted(_per_node.items()))
        notes = [f"{n} VectorTimesVector nodes after one SaltedMul (n + 1 nodes), a new module each sample; "
                 f"{rounds} round(s); {ctx.cores}", f"opkit's compile time per node so far: {growth}"]
        # The target is at 200 nodes; the other sizes show the growth (no slower than PyTensor).
        target = Target("ratio", 0.5 if n == 200 else 1.0)
        return Figure(f"graph_compile_{n}", f"{n} chained COp nodes, cold compile", "s", stats,
                      PYTENSOR_C if PYTENSOR_C in stats else OPKIT, target, notes)
    figure.__doc__ = f"Cold compile of {n} chained VectorTimesVector nodes, opkit against PyTensor's C linker."
    return figure


def graph_rebuild(ctx: Context) -> Figure:
    """The 200-node graph compiled again in the same process (its module in memory): graph work only."""
    n = 50 if ctx.quick else 200
    builders = _builders(ctx, n)
    salt = next(_salts)
    for build in builders.values():
        build(salt)  # compiled once: later samples rebuild the function of a known module
    samplers = {label: once_sampler(lambda b=build: b(salt), unit=1e-3) for label, build in builders.items()}
    stats = interleave(samplers, ctx.rounds(7, 3))
    notes = [f"{n} VectorTimesVector nodes after one SaltedMul, built and compiled once before; each sample "
             "builds the graph and the function again"]
    return Figure("graph_rebuild", f"{n} chained COp nodes, in-process rebuild", "ms", stats,
                  PYTENSOR_C if PYTENSOR_C in stats else OPKIT, Target("ratio", 0.5), notes)


FIGURES = {f"graph_compile_{n}": graph_compile(n) for n in SIZES}
FIGURES["graph_rebuild"] = graph_rebuild
