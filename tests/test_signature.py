"""The signature index: a warm process finds its module without rendering source."""

import os
import subprocess
import sys
import textwrap

import numpy as np

import opkit
import opkit.tensor as ot
from opkit import Apply, Op
from opkit.cop.region import Region
from opkit.cop.signature import op_signature, region_signature, type_signature

SCRIPT = textwrap.dedent("""
    import sys, numpy as np, opkit, opkit.tensor as ot
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], (x * y + 1) * 2)
    assert (f(np.ones(3), np.ones(3)) == 4).all()
    print("jinja2" in sys.modules, "setuptools" in sys.modules)
""")


def test_a_warm_process_renders_nothing_and_builds_nothing(tmp_path):
    env = dict(os.environ, OPKIT_COMPILEDIR=str(tmp_path))
    cold = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout.split() == ["True", "True"]
    warm = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout.split() == ["False", "False"]
    assert list((tmp_path / "index").iterdir())


def _region(out, inputs):
    f = opkit.function(inputs, out, mode=opkit.Mode(linker="py", optimizer="fast_run"))
    nodes = f.maker.fgraph.toposort()
    return Region.from_nodes(nodes, lambda v: v in f.maker.fgraph.outputs)


def test_signatures_follow_structure_types_and_toolchain():
    x, y = ot.dvector("x"), ot.dvector("y")
    a = region_signature(_region(x * y, [x, y]), ("tool",))
    assert a == region_signature(_region(x * y, [x, y]), ("tool",))
    assert a != region_signature(_region(x + y, [x, y]), ("tool",))
    assert a != region_signature(_region(x * y, [x, y]), ("other tool",))
    xf = ot.fvector("xf")
    assert a != region_signature(_region(xf * y, [xf, y]), ("tool",))


def test_constant_values_do_not_change_the_signature():
    x = ot.dvector("x")
    unfused = opkit.Mode(linker="py", optimizer="fast_run").excluding("fusion")

    def region(c):
        f = opkit.function([x], x * c, mode=unfused)
        return Region.from_nodes(f.maker.fgraph.toposort(), lambda v: True)

    assert region_signature(region(2.0), ()) == region_signature(region(3.0), ())


class Unversioned(Op):
    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def c_code(self, node, name, inputs, outputs, sub):
        return f"Py_XDECREF({outputs[0]}); {outputs[0]} = {inputs[0]}; Py_INCREF({outputs[0]});"


def test_unversioned_ops_and_instance_methods_have_no_signature():
    x = ot.dvector("x")
    node = Unversioned()(x).owner
    assert op_signature(node) is None
    op = Op()
    op.__props__ = ()
    op.c_code = lambda *args: ""
    assert op_signature(Apply(op, [x], [x.type()])) is None
    double = opkit.Type()
    double.c_declare = lambda name, sub: ""
    assert type_signature(double) is None


def test_unversioned_op_still_compiles_and_runs():
    x = ot.dvector("x")
    f = opkit.function([x], Unversioned()(x) * 2)
    np.testing.assert_array_equal(f(np.arange(3.0)), np.arange(3.0) * 2)
