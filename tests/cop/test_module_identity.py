"""A module is used only if it is exactly what the current Python objects generate.

Nothing trusts c_code_cache_version alone: an edited op, a redefined class, a
constant baked into c_code, or an edited header each get their own module.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
from helpers.caches import seeded
from helpers.trust_ops import copy_and_update_c

import opkit
import opkit.tensor as ot
from opkit import Apply, Op

OP_FILE = textwrap.dedent('''
    import opkit.tensor as ot
    from opkit import Apply, Op

    class Scale(Op):
        __props__ = ()

        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def c_header_dirs(self, c_compiler=None):
            return [HEADER_DIR]

        def c_support_code(self):
            return "#include <scale_by.h>\\n#include \\"offset_by.h\\"\\n"

        def c_code(self, node, name, inputs, outputs, sub):
            (x,), (z,) = inputs, outputs
            return f"""
            Py_XDECREF({z});
            {z} = (PyArrayObject*)PyArray_NewCopy({x}, NPY_CORDER);
            if (!{z}) {sub['fail']}
            for (npy_intp i = 0; i < PyArray_SIZE({z}); ++i)
                ((double*)PyArray_DATA({z}))[i] = ((double*)PyArray_DATA({z}))[i] * FACTOR * SCALE_BY + OFFSET_BY;
            """

        def c_code_cache_version(self):
            return VERSION
''')

SCRIPT = textwrap.dedent('''
    import sys, numpy as np, opkit, opkit.tensor as ot
    from userop import Scale
    x = ot.dvector("x")
    print(opkit.function([x], Scale()(x))(np.ones(1))[0], "jinja2" in sys.modules, "setuptools" in sys.modules)
''')


def _write_op(directory, factor, scale, offset, version=(1,)):
    headers = directory / "headers"
    headers.mkdir(exist_ok=True)
    (headers / "scale_by.h").write_text(f"#define SCALE_BY {scale}\n")
    (headers / "offset_by.h").write_text(f"#define OFFSET_BY {offset}\n")
    text = OP_FILE.replace("FACTOR", str(factor)).replace("HEADER_DIR", repr(str(headers)))
    (directory / "userop.py").write_text(text.replace("VERSION", repr(version)))


def _run(directory, cache):
    env = dict(os.environ, OPKIT_COMPILEDIR=str(cache), PYTHONPATH=os.pathsep.join(
        [str(directory), *filter(None, [os.environ.get("PYTHONPATH")])]))
    result = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=600,
                            cwd=directory)
    assert result.returncode == 0, result.stderr
    value, jinja2, setuptools = result.stdout.split()
    return float(value), jinja2 == "True" or setuptools == "True"


def test_a_new_process_sees_edited_code_and_headers_whatever_the_version(tmp_path):
    cache = tmp_path / "cache"
    seeded(cache)
    _write_op(tmp_path, factor=2, scale=1, offset=0)
    assert _run(tmp_path, cache) == (2.0, True)  # cold: rendered and built
    assert _run(tmp_path, cache) == (2.0, False)  # warm: neither jinja2 nor setuptools imported
    _write_op(tmp_path, factor=3, scale=1, offset=0)  # c_code edited, same version
    assert _run(tmp_path, cache)[0] == 3.0
    _write_op(tmp_path, factor=3, scale=5, offset=0)  # a <header> in c_header_dirs edited
    assert _run(tmp_path, cache)[0] == 15.0
    _write_op(tmp_path, factor=3, scale=5, offset=1, version=(2,))  # a "header" edited, with a version bump
    assert _run(tmp_path, cache)[0] == 16.0
    _write_op(tmp_path, factor=2, scale=1, offset=0)  # back to the first: its module is still there
    assert _run(tmp_path, cache) == (2.0, False)


def test_garbage_under_the_cache_changes_nothing(tmp_path):
    cache = tmp_path / "cache"
    seeded(cache)
    _write_op(tmp_path, factor=2, scale=1, offset=0)
    assert _run(tmp_path, cache)[0] == 2.0
    (cache / "index").mkdir(exist_ok=True)
    (cache / "index" / ("ab" * 32)).write_text("not a key\n")
    _write_op(tmp_path, factor=7, scale=1, offset=0)
    assert _run(tmp_path, cache)[0] == 7.0


def _scale_class(factor):
    class Doubler(Op):  # the same name, module and version each time: a notebook cell run again
        __props__ = ()

        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def c_code(self, node, name, inputs, outputs, sub):
            return copy_and_update_c(inputs[0], outputs[0], sub["fail"], f"v *= {factor}")

        def c_code_cache_version(self):
            return (1,)

    return Doubler


def test_a_class_redefined_in_the_same_process_runs_its_new_code():
    x = ot.dvector("x")
    for factor in (2, 3, 2, 11):
        op = _scale_class(factor)()
        np.testing.assert_array_equal(opkit.function([x], op(x))(np.ones(2)), [factor, factor])


class AddBakedConstant(Op):
    """A versioned c_code that writes its constant input's value into the C text."""

    __props__ = ()

    def make_node(self, x, c):
        return Apply(self, [x, ot.as_tensor_variable(c)], [x.type()])

    def c_code(self, node, name, inputs, outputs, sub):
        value = float(node.inputs[1].data)
        return copy_and_update_c(inputs[0], outputs[0], sub["fail"], f"v += {value!r}")

    def c_code_cache_version(self):
        return (1,)


def test_c_code_that_reads_a_constant_gets_a_module_per_value():
    x = ot.dvector("x")
    for value in (2.0, 5.0, 2.0, -1.5):
        f = opkit.function([x], AddBakedConstant()(x, value), mode=opkit.Mode(linker="c", optimizer=None))
        np.testing.assert_array_equal(f(np.zeros(2)), [value, value])
