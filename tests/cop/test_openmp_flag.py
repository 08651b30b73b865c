"""OpenMPOp.openmp as Theano's: a bool (config.openmp at construction, or openmp=, and the compiler's
support, asked lazily once) that an op's C generation tests to emit `#pragma omp` (issue 34, item 6)."""

import os
import pathlib
import pickle
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opkit
import opkit.scalar as os_
import opkit.tensor as ot
from opkit import Apply, OpenMPOp
from opkit.cop.generate.codegen import collect_module
from opkit.cop.toolchain.openmp import OPENMP_FLAG, openmp_supported
from opkit.cop.generate.region import Region
from opkit.link.function import FunctionMaker
from opkit.link.mode import get_mode


class TheanoStyleScale(OpenMPOp):
    """Written as Theano's ops are: `if self.openmp:` decides the pragma and the thread query."""

    __props__ = ("factor",)

    def __init__(self, factor=3.0, openmp=None):
        super().__init__(openmp=openmp)
        self.factor = factor

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type(), os_.int64()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = (inputs[0] * self.factor).astype(inputs[0].dtype)
        outputs[1][0] = np.int64(1)

    def c_code(self, node, name, inp, out, sub):
        (x,), (z, threads), fail = inp, out, sub["fail"]
        ctype = "npy_" + node.inputs[0].dtype
        pragma = "#pragma omp parallel for num_threads(2) schedule(static)" if self.openmp else ""
        count = "team = omp_get_num_threads();" if self.openmp else ""
        return f"""
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS({x}), PyArray_TYPE({x}), 0);
        if (!{z}) {fail}
        npy_intp n = PyArray_DIM({x}, 0);
        long team = 1;
        {pragma}
        for (npy_intp i = 0; i < n; ++i) {{
            (({ctype}*)PyArray_DATA({z}))[i] = ({ctype})(*({ctype}*)PyArray_GETPTR1({x}, i) * {self.factor!r});
            if (i == 0) {{ {count} }}
        }}
        {threads} = team;
        """

    def c_code_cache_version(self):
        return (1, self.openmp)


def _parts(op, x):
    outputs = op(x)
    fgraph = FunctionMaker([x], outputs, get_mode(None)).fgraph
    return collect_module(Region.from_nodes(fgraph.toposort(), lambda variable: True))


def test_openmp_is_a_bool_from_config_at_construction_and_compiler_support():
    assert openmp_supported()  # g++ 12 with libgomp here
    with opkit.config.change_flags(openmp=True):
        on = TheanoStyleScale()
    with opkit.config.change_flags(openmp=False):
        off = TheanoStyleScale()
        assert TheanoStyleScale(openmp=True).openmp is True  # openmp= wins over config
    assert on.openmp is True and off.openmp is False
    assert TheanoStyleScale(openmp=False).openmp is False
    with opkit.config.change_flags(openmp=False):
        assert on.openmp is True  # fixed at construction, as Theano
    assert OpenMPOp(openmp=True).openmp is True and OpenMPOp(openmp=0).openmp is False


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_an_op_emitting_pragma_omp_when_openmp_runs_on_two_threads_with_numpy_results(dtype):
    x = ot.vector("x", dtype=dtype)
    op = TheanoStyleScale(openmp=True)
    parts = _parts(op, x)
    assert OPENMP_FLAG in parts.compile_args and "#pragma omp parallel for" in parts.code_text()
    data = np.linspace(-5, 5, 1001).astype(dtype)[::-2]  # strided
    scaled, threads = opkit.function([x], op(x))(data)
    np.testing.assert_allclose(scaled, data * 3.0, rtol=1e-6)
    assert scaled.dtype == dtype and threads == 2


def test_openmp_false_emits_serial_code_built_without_openmp():
    x = ot.dvector("x")
    op = TheanoStyleScale(openmp=False)
    parts = _parts(op, x)
    assert OPENMP_FLAG not in parts.compile_args and "#pragma omp" not in parts.code_text()
    scaled, threads = opkit.function([x], op(x))(np.arange(7.0))
    np.testing.assert_array_equal(scaled, np.arange(7.0) * 3)
    assert threads == 1


def test_both_settings_in_one_process_are_two_modules_with_the_same_numbers():
    x = ot.dvector("x")
    data = np.arange(100.0)
    on = opkit.function([x], TheanoStyleScale(openmp=True)(x))(data)
    off = opkit.function([x], TheanoStyleScale(openmp=False)(x), mode="FAST_COMPILE")(data)
    np.testing.assert_array_equal(on[0], off[0])
    assert (on[1], off[1]) == (2, 1)


def _no_openmp_compiler(directory):
    wrapper = pathlib.Path(directory) / "no-openmp-g++"
    wrapper.write_text('#!/bin/sh\nfor a in "$@"; do\n  if [ "$a" = -fopenmp ]; then\n'
                       '    echo "error: unsupported option -fopenmp" >&2; exit 1\n  fi\ndone\nexec g++ "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return wrapper


def test_a_compiler_without_openmp_makes_openmp_false_and_the_code_serial(tmp_path):
    x = ot.dvector("x")
    with opkit.config.change_flags(cxx=str(_no_openmp_compiler(tmp_path)), openmp=True,
                                   compiledir=str(tmp_path / "cache")):
        op = TheanoStyleScale(openmp=True)
        assert op.openmp is False and op.uses_openmp() is False
        assert "<omp.h>" not in op.c_headers() and OPENMP_FLAG not in op.c_compile_args()
        scaled, threads = opkit.function([x], op(x))(np.arange(5.0))
    np.testing.assert_array_equal(scaled, np.arange(5.0) * 3)
    assert threads == 1
    assert op.openmp is True  # back on a compiler with OpenMP


def test_pickles_keep_the_wish_and_old_pickles_load():
    op = TheanoStyleScale(openmp=False)
    back = pickle.loads(pickle.dumps(op))
    assert back.openmp is False and back == op
    old = TheanoStyleScale.__new__(TheanoStyleScale)
    old.__setstate__({"openmp": True, "factor": 2.0})  # opkit's earlier OpenMPOp kept `openmp` itself
    assert old.openmp is True and old.factor == 2.0


def test_a_subclass_that_skips_openmpop_init_follows_config():
    class NoInit(OpenMPOp):
        def __init__(self):  # does not call OpenMPOp.__init__
            pass

    op = NoInit()
    with opkit.config.change_flags(openmp=False):
        assert op.openmp is False
    with opkit.config.change_flags(openmp=True):
        assert op.openmp is True


def test_the_compiler_is_asked_lazily_and_once(tmp_path):
    """Importing opkit and constructing an OpenMPOp compiles nothing; the first read of .openmp asks once."""
    log = tmp_path / "calls.log"
    wrapper = tmp_path / "logging-g++"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec g++ "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    script = textwrap.dedent(f"""
        import pathlib
        import opkit
        from opkit import OpenMPOp
        log = pathlib.Path({str(log)!r})

        class Op1(OpenMPOp):
            __props__ = ()

        op = Op1()
        assert not log.exists(), log.read_text()
        assert op.openmp is True and op.openmp is True and Op1(openmp=True).openmp is True
        print(sum("-fopenmp" in line for line in log.read_text().splitlines()))
        """)
    env = dict(os.environ, OPKIT_FLAGS=f"cxx={wrapper},openmp=true", OPKIT_COMPILEDIR=str(tmp_path / "cache"))
    first = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    assert int(first.stdout.split()[-1]) == 1  # three reads, two ops: the compiler was asked once
    log.unlink()
    again = subprocess.run([sys.executable, "-c", script.replace("assert not log.exists(), log.read_text()", "")
                            .replace('print(sum("-fopenmp" in line for line in log.read_text().splitlines()))',
                                     "print(log.exists())")],
                           env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert again.stdout.split()[-1] == "False"  # a second process reads the answer from the cache


def test_theano_and_pytensor_hooks(tmp_path):
    assert OpenMPOp.test_gxx_support() is True
    op = TheanoStyleScale(openmp=True)
    op.update_self_openmp()
    assert op.openmp is True
    with opkit.config.change_flags(cxx=str(_no_openmp_compiler(tmp_path)), compiledir=str(tmp_path / "cache")):
        assert OpenMPOp.test_gxx_support() is False
        op.update_self_openmp()  # as Theano: the op stops wanting OpenMP
    assert op.openmp is False
