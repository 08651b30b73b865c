"""Modules loaded with RTLD_GLOBAL never bind each other's symbols: each runs its own code."""

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(r'''
    import os, sys
    sys.setdlopenflags(os.RTLD_NOW | os.RTLD_GLOBAL)
    import numpy as np
    import opkit, opkit.tensor as ot
    from opkit import Apply, Op

    class Helper(Op):
        """Calls a function named the same in every module, with another body each."""
        __props__ = ("k", "where")

        def __init__(self, k, where):
            self.k, self.where = k, where

        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def _helper(self):
            return f"double opkit_same_name(double v) {{ return v * {self.k}; }}\n"

        def c_support_code(self):
            return self._helper() if self.where == "support_code" else ""

        def c_support_code_apply(self, node, name):
            return self._helper() if self.where == "support_code_apply" else ""

        def c_code(self, node, name, inputs, outputs, sub):
            (x,), (z,) = inputs, outputs
            return f"""
            Py_XDECREF({z});
            {z} = (PyArrayObject*)PyArray_NewCopy({x}, NPY_CORDER);
            if (!{z}) {sub['fail']}
            for (npy_intp i = 0; i < PyArray_SIZE({z}); ++i)
                ((double*)PyArray_DATA({z}))[i] = opkit_same_name(((double*)PyArray_DATA({z}))[i]);
            """

        def c_code_cache_version(self):
            return (1,)

    x, y = ot.dvector("x"), ot.dvector("y")
    v = np.arange(1.0, 4.0)
    seen = []
    for where in ("support_code", "support_code_apply"):
        for k in map(int, sys.argv[1:]):
            seen.append((f"{where} k={k}", opkit.function([x], Helper(k, where)(x))(v).tolist(), (v * k).tolist()))
    # graphs of one shape, other ops: the same generated structure, other node code
    for name, op, ref in (("mul", ot.mul, np.multiply), ("add", ot.add, np.add), ("sub", ot.sub, np.subtract)):
        seen.append((name, opkit.function([x, y], op(x, y))(v, v + 1).tolist(), ref(v, v + 1).tolist()))
    wrong = [(label, got, want) for label, got, want in seen if got != want]
    print("WRONG", wrong) if wrong else print("OK", len(seen))
''')


# Two bodies of the one name in each place: a module bound to the other's would give the other's numbers. A third
# body (k=5) only repeats that: soak (`-m soak`).
@pytest.mark.parametrize("ks", [(2, 3), pytest.param((2, 3, 5), marks=pytest.mark.soak)], ids=["two", "three"])
def test_rtld_global_modules_run_their_own_code(ks):
    # The session's cache (OPKIT_COMPILEDIR, tests/conftest.py): the Helper modules are this test's own, built by
    # the first process; opkit's own graphs (mul, add, sub) may come from another test's build. Either way each is
    # dlopened into one RTLD_GLOBAL process, where a symbol bound to another module's would give other numbers.
    for _ in range(2):  # built (or loaded) in this process, then loaded from the cache in a fresh one
        result = subprocess.run([sys.executable, "-c", SCRIPT, *map(str, ks)], capture_output=True, text=True,
                                timeout=600)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == f"OK {2 * len(ks) + 3}", result.stdout
