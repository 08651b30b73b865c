"""Pickled functions: their token covers what a call returns, every built-in op pickles (issue 21 items 3, 5;
issue 22 items 5, 9).

The token (and the memo of unpickled functions) covers the output structure,
each op's code identity, the mode and the build flags; plain pickle handles
every built-in op; random graphs round-trip through pickle and cloudpickle
into a fresh process with equal results and equal structure.
"""

import functools
import importlib
import inspect
import os
import pathlib
import pickle
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opkit
import opkit.tensor as ot
from opkit.core.graph import io_toposort
from opkit.core.op import Op
from opkit.core.scalar_type import DTYPES
from opkit.core.tensor.elementwise.elemwise import Elemwise
from opkit.core.tensor.scalars.scalar_logic import cast as scalar_cast
from opkit.core.tensor.scalars.builtins import builtin_scalar_ops
from opkit.link import pickling
from opkit.link.function import FunctionMaker
from opkit.link.mode import get_mode

cloudpickle = pytest.importorskip("cloudpickle")

TESTS = pathlib.Path(__file__).parents[1]
DATA = TESTS / "data"
# Classes that are bases to derive from, never put in a graph as they are.
ABSTRACT = {"Op", "COp", "_LaneOp", "OpenMPOp", "Reduce", "_RegisteredCOp", "SectionOp", "_Transfer",
            "OpSections",  # OpSections: the C methods of a SectionOp, never in a graph
            "ScalarOp", "UnaryScalarOp", "BinaryScalarOp",  # opkit.scalar's bases of users' scalar ops
            "GradientOp",  # the base of the gradient markers (zero_grad & co.), which are in the graph
            "Scan",  # compat.pytensor.scan.op.Scan: a class no op is an instance of (it raises when made)
            "SortOp", "ArgSortOp",  # PyTensor's names: calling one makes a Sort or Argsort node (in the graph)
            # Theano's names (compat theano.tensor): calling one makes opkit's nodes (Concatenate, Subtensor,
            # Reshape, Max/Argmax...), which are in the graph; _Factory/_MultiFactory are their bases
            "_Factory", "_MultiFactory", "AllocEmpty", "Default", "DiffOp", "Flatten", "Join", "MaxAndArgmax",
            "Nonzero", "PermuteRowElements", "Rebroadcast", "Split", "Tile", "Tri"}


def _python(code, **env):
    environment = {**os.environ, **env}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


# ---- item 3: the output structure and the op's code are part of the token ----

@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_one_output_and_a_list_of_one_get_different_tokens_and_keep_their_structure(mode):
    x = ot.dvector("x")
    a = np.arange(3.0)
    for first_single in (True, False):
        pickling._rebuilt.clear()
        single = opkit.function([x], x * 2, mode=mode)
        listed = opkit.function([x], [x * 2], mode=mode)
        assert single.__dask_tokenize__() != listed.__dask_tokenize__()
        order = [single, listed] if first_single else [listed, single]
        loaded = [pickle.loads(pickle.dumps(f)) for f in order]
        for original, copy in zip(order, loaded):
            expected, got = original(a), copy(a)
            assert type(got) is type(expected)
            if isinstance(expected, list):
                assert len(got) == len(expected) == 1
                np.testing.assert_array_equal(got[0], expected[0])
            else:
                np.testing.assert_array_equal(got, expected)


def test_the_token_covers_the_mode_the_output_names_and_no_outputs():
    x = ot.dvector("x")
    named = x * 2
    named.name = "doubled"
    tokens = {opkit.function([x], x * 2, mode="FAST_RUN").__dask_tokenize__(),
              opkit.function([x], x * 2, mode="FAST_COMPILE").__dask_tokenize__(),
              opkit.function([x], named).__dask_tokenize__(),
              opkit.function([x], [], on_unused_input="ignore").__dask_tokenize__()}
    assert len(tokens) == 4


SCALE_SOURCE = """
import numpy as np
import opkit

class Scale(opkit.Op):
    __props__ = ()

    def make_node(self, x):
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * FACTOR

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (z,) = inputs, outputs
        return f'''
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_NewCopy({x}, NPY_ANYORDER);
        if (!{z}) {sub["fail"]};
        {{
            double* data = (double*)PyArray_DATA({z});
            for (npy_intp i = 0; i < PyArray_SIZE({z}); ++i) data[i] *= FACTOR;
        }}
        '''

    def c_code_cache_version(self):
        return (1,)
"""


def _define_scale(module_name, factor, c_code=True):
    """Run a notebook cell defining Scale in `module_name` (again): the module keeps its name, the class changes."""
    source = SCALE_SOURCE.replace("FACTOR", f"{factor}.0")
    if not c_code:
        source = source.split("    def c_code(")[0]
    module = sys.modules.get(module_name) or types.ModuleType(module_name)
    sys.modules[module_name] = module
    exec(compile(source, f"<cell {module_name}>", "exec"), module.__dict__)
    return module.Scale


@pytest.mark.parametrize("c_code", [True, False], ids=["C op", "Python op"])
@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_a_redefined_op_class_unpickles_to_its_own_code(c_code, mode):
    module_name = f"notebook_cell_{int(c_code)}_{mode}"
    x = ot.dvector("x")
    a = np.arange(1.0, 4.0)
    try:
        first = opkit.function([x], _define_scale(module_name, 2, c_code)()(x), mode=mode)
        first_pickle = pickle.dumps(first)
        np.testing.assert_array_equal(pickle.loads(first_pickle)(a), a * 2)
        second = opkit.function([x], _define_scale(module_name, 3, c_code)()(x), mode=mode)  # the cell run again
        assert second.__dask_tokenize__() != first.__dask_tokenize__()
        np.testing.assert_array_equal(pickle.loads(pickle.dumps(second))(a), a * 3)
        np.testing.assert_array_equal(cloudpickle.loads(cloudpickle.dumps(second))(a), a * 3)
    finally:
        sys.modules.pop(module_name, None)


def test_unpickling_after_a_section_file_was_edited_builds_from_the_file_as_a_fresh_process_would(tmp_path):
    c_file = tmp_path / "op.c"
    c_file.write_text((TESTS.parent / "examples" / "vector_times_vector" / "vector_times_vector" /
                       "vectorTimesVector.c").read_text())

    class Times(opkit.COp):  # a module-level class in a notebook: pickled by reference to this test module
        __props__ = ()

        def __init__(self):
            super().__init__(str(c_file), "APPLY_SPECIFIC(vector_times_vector)")

        def make_node(self, x, y):
            return opkit.Apply(self, [x, y], [x.type()])

    globals()["Times"] = Times
    Times.__qualname__ = "Times"
    try:
        x, y = ot.dvector("x"), ot.dvector("y")
        data = pickle.dumps(opkit.function([x, y], Times()(x, y)))
        a, b = np.arange(1.0, 4.0), np.full(3, 10.0)
        np.testing.assert_array_equal(pickle.loads(data)(a, b), a * b)
        c_file.write_text(c_file.read_text().replace("x_ptr[i * x_str] * y_ptr[i * y_str]",
                                                     "x_ptr[i * x_str] - y_ptr[i * y_str]"))
        np.testing.assert_array_equal(pickle.loads(data)(a, b), a - b)  # the op re-reads its file on unpickling
    finally:
        del globals()["Times"]


def test_code_identity_follows_the_code_not_the_object_nor_the_order_it_is_computed_in():
    from opkit.core import code_identity

    def define(factor):
        class Helper:
            pass

        class Scale(Op):
            __props__ = ()

            def perform(self, node, inputs, output_storage):
                output_storage[0][0] = inputs[0] * factor

        Scale.helper, Helper.scale = Helper(), Scale()  # classes that refer to each other
        return Scale, Helper

    (scale, helper), (again, _), (other, _) = define(2), define(2), define(3)
    first = (code_identity.class_identity(scale), code_identity.class_identity(helper))
    code_identity._class_digests.clear()
    assert (code_identity.class_identity(helper), code_identity.class_identity(scale)) == first[::-1]
    assert code_identity.python_identity(again()) == code_identity.python_identity(scale())  # the same code
    assert code_identity.python_identity(other()) != code_identity.python_identity(scale())  # another constant


SESSION = """
import sys
import cloudpickle
import opkit, opkit.tensor as ot
FACTOR_SOURCE
x = ot.dvector("x")
f = opkit.function([x], Scale()(x))
sys.stdout.write(f.__dask_tokenize__() + " " + cloudpickle.dumps(f).hex())
"""


def test_two_sessions_defining_main_scale_differently_get_their_own_tokens_and_results():
    outputs = []
    for factor in (2, 3):
        source = textwrap.indent(SCALE_SOURCE.replace("FACTOR", f"{factor}.0"), "")
        outputs.append(_python(SESSION.replace("FACTOR_SOURCE", source)).split())
    (token2, data2), (token3, data3) = outputs
    assert token2 != token3
    worker = f"""
import cloudpickle, numpy as np
a = np.arange(1.0, 4.0)
for data in ({data2!r}, {data3!r}, {data2!r}):
    f = cloudpickle.loads(bytes.fromhex(data))
    print(f(a).tolist(), f.__dask_tokenize__()[:12])
"""
    lines = _python(worker).splitlines()
    assert lines == [f"[2.0, 4.0, 6.0] {token2[:12]}", f"[3.0, 6.0, 9.0] {token3[:12]}",
                     f"[2.0, 4.0, 6.0] {token2[:12]}"]


def test_unpickled_functions_kept_for_reuse_are_bounded():
    x = ot.dvector("x")
    a = np.arange(3.0)
    pickling._rebuilt.clear()
    data = [pickle.dumps(opkit.function([x], x * float(k), mode="FAST_COMPILE"))
            for k in range(pickling.REBUILT_LIMIT + 40)]
    for k, payload in enumerate(data):
        np.testing.assert_array_equal(pickle.loads(payload)(a), a * k)
        assert pickling.rebuilt_count() <= pickling.REBUILT_LIMIT
    assert pickling.rebuilt_count() == pickling.REBUILT_LIMIT
    assert pickle.loads(data[-1]) is pickle.loads(data[-1])  # a recent one is still reused


# ---- item 5: every built-in op pickles with plain pickle ----

def _opkit_op_classes():
    """Every Op subclass defined in opkit's modules (the CLI, bridge and testing helpers aside)."""
    root = pathlib.Path(opkit.__file__).parent
    found = set()
    for path in sorted(root.rglob("*.py")):
        name = ".".join(path.relative_to(root.parent).with_suffix("").parts).removesuffix(".__init__")
        if name.endswith("__main__") or any(part in name for part in (".cli", ".bridge", ".testing", ".tests")):
            continue
        for value in vars(importlib.import_module(name)).values():
            if inspect.isclass(value) and issubclass(value, Op) and value.__module__.startswith("opkit"):
                found.add(value)
    return found


def test_every_builtin_scalar_function_pickles_by_reference_with_plain_pickle():
    scalar_ops = list(builtin_scalar_ops().values()) + [scalar_cast(dtype) for dtype in DTYPES]
    assert len(scalar_ops) > 40
    for scalar_op in scalar_ops:
        assert pickle.loads(pickle.dumps(scalar_op)) is scalar_op
        assert pickle.loads(pickle.dumps(Elemwise(scalar_op))) == Elemwise(scalar_op)


@pytest.fixture
def every_op(monkeypatch):
    """tests/data/every_op_graph.py, imported by name (as the fresh processes import it)."""
    monkeypatch.syspath_prepend(str(DATA))
    return importlib.import_module("every_op_graph")


def test_every_builtin_op_class_is_in_the_graph_and_pickles_with_plain_pickle(every_op):
    inputs, outputs = every_op.graph_of_every_op()
    ops = {}
    for node in io_toposort(inputs, outputs):
        ops.setdefault(type(node.op), node.op)
    # the rewritten graph: fused, resolved shapes, copies (rewritten only: the pickle test below compiles it)
    for node in FunctionMaker(inputs, outputs, get_mode("FAST_RUN")).fgraph.toposort():
        ops.setdefault(type(node.op), node.op)
    # the GPU ops and transfers placement puts in a graph (rewritten only: nothing compiles)
    gx, gy, gm = ot.fvector("gx"), ot.fvector("gy"), ot.fmatrix("gm")
    gpu_outputs = [gx * gy + 1, (gx * gy + 1).sum(), ot.dot(gm, gx)]
    gpu_outputs += opkit.grad(ot.sum(ot.dot(gm, gx) * gy) + ot.sum(gm.reshape((-1,))), [gm, gx, gy])
    placed = FunctionMaker([gx, gy, gm], gpu_outputs, opkit.Mode(device="cuda-interpret"))
    for node in placed.fgraph.toposort():
        ops.setdefault(type(node.op), node.op)
    missing = {c.__name__ for c in _opkit_op_classes()} - ABSTRACT - {c.__name__ for c in ops}
    assert not missing, f"built-in op classes this test does not put in a graph: {sorted(missing)}"
    for op in ops.values():
        assert pickle.loads(pickle.dumps(op)) == op, op


CHILD_WITHOUT_CLOUDPICKLE = """
import pickle, sys
sys.modules["cloudpickle"] = None  # as where it is not installed
import opkit
from every_op_graph import graph_of_every_op
inputs, outputs = graph_of_every_op()
for name in NAMES:  # a mode's name, or PY_FAST_RUN: FAST_RUN's rewrites on the Python linker
    mode = opkit.Mode(linker="py", optimizer="fast_run") if name == "PY_FAST_RUN" else name
    f = opkit.function(inputs, outputs, mode=mode, on_unused_input="ignore")
    assert len(f.__dask_tokenize__()) == 64
    payload = pickle.dumps(f)
    sys.stdout.buffer.write(len(payload).to_bytes(8, "little") + payload)
"""

LOADER = """
import pickle, sys
sys.modules["cloudpickle"] = None
import numpy as np
from every_op_graph import VALUES as values
data = sys.stdin.buffer.read()
results = []
while data:
    size = int.from_bytes(data[:8], "little")
    f = pickle.loads(data[8:8 + size])
    data = data[8 + size:]
    results.append([np.asarray(r) for r in f(*values)])
sys.stdout.buffer.write(pickle.dumps(results))
"""


# The FAST_RUN graph's C is some 40 modules (about 50 s of g++ on a cold cache): the default run pickles the
# FAST_RUN graph on the Python linker (every rewritten op, nothing compiled; the random functions below send
# compiled C functions), the soak run the compiled one.
@pytest.mark.parametrize("modes", [("PY_FAST_RUN", "FAST_COMPILE"),
                                   pytest.param(("FAST_RUN",), marks=pytest.mark.soak)], ids="-".join)
def test_functions_with_every_builtin_op_pickle_and_tokenize_without_cloudpickle_into_a_fresh_process(every_op,
                                                                                                      modes):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parent), str(DATA),
                                                         os.environ.get("PYTHONPATH", "")])}
    child = CHILD_WITHOUT_CLOUDPICKLE.replace("NAMES", repr(modes))
    made = subprocess.run([sys.executable, "-c", child], capture_output=True, env=env, timeout=600)
    assert made.returncode == 0, made.stderr.decode()
    loaded = subprocess.run([sys.executable, "-c", LOADER], input=made.stdout, capture_output=True, env=env,
                            timeout=600)
    assert loaded.returncode == 0, loaded.stderr.decode()
    results = pickle.loads(loaded.stdout)
    inputs, outputs = every_op.graph_of_every_op()
    assert len(results) == len(modes)
    for got, mode in zip(results, modes):  # the loader's results, in the sender's modes
        mode = opkit.Mode(linker="py", optimizer="fast_run") if mode == "PY_FAST_RUN" else mode
        with np.errstate(all="ignore"):
            expected = opkit.function(inputs, outputs, mode=mode, on_unused_input="ignore")(*every_op.VALUES)
        assert len(got) == len(expected)
        for position, (a, b) in enumerate(zip(got, expected)):
            assert a.dtype == np.asarray(b).dtype, (position, outputs[position])
            np.testing.assert_array_equal(a, b, err_msg=f"{mode} output {position}: {outputs[position]}")


IDENTITIES = """
import hashlib
from every_op_graph import graph_of_every_op
from opkit.link.pickling import node_identities
print(hashlib.sha256("".join(node_identities(*graph_of_every_op())).encode()).hexdigest())
"""


@functools.cache
def _identities_in_a_child(seed, prelude=""):
    """IDENTITIES' digest, printed by a fresh process run with PYTHONHASHSEED=`seed` after `prelude` (one child
    for each, shared by the two tests below)."""
    path = os.pathsep.join([str(TESTS.parent), str(DATA), os.environ.get("PYTHONPATH", "")])
    return _python(prelude + IDENTITIES, PYTHONHASHSEED=seed, PYTHONPATH=path).strip()


def test_every_op_s_code_identity_is_the_same_in_every_process_and_hash_seed(every_op):
    import hashlib

    here = hashlib.sha256("".join(pickling.node_identities(*every_op.graph_of_every_op())).encode()).hexdigest()
    for seed in ("0", "12345"):
        assert _identities_in_a_child(seed) == here


def test_every_op_s_code_identity_does_not_depend_on_what_other_types_registered():
    """Importing opkit.gpu.ops registers Shape/Shape_i C code for GpuArrayType: the identity of the ops of
    other types stays the same (the registry table is not part of an op's Python identity)."""
    plain = _identities_in_a_child("12345")  # the child the test above runs, where it ran in this process
    assert _identities_in_a_child("12345", "import opkit.gpu.ops\n") == plain

# ---- the pickling property: random graphs and output structures, in a fresh process ----

UNARY = {"neg": lambda a: -a, "sqr": ot.sqr, "abs": ot.abs, "sin": ot.sin, "exp": lambda a: ot.exp(ot.clip(a, -5, 5)),
         "gt0": lambda a: ot.cast(a > 0, "float64"), "sum": lambda a: a - ot.sum(a)}
BINARY = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "sub": lambda a, b: a - b,
          "maximum": ot.maximum, "switch": lambda a, b: ot.switch(a > b, a, b)}

leaves = st.sampled_from(["x", "y", "2.5"])
expressions = st.recursive(leaves, lambda inner: st.one_of(
    st.tuples(st.sampled_from(sorted(UNARY)), inner),
    st.tuples(st.sampled_from(sorted(BINARY)), inner, inner)), max_leaves=5)
functions = st.tuples(st.lists(expressions, min_size=1, max_size=3),
                      st.sampled_from(["single", "list"]),
                      st.sampled_from(["FAST_RUN", "FAST_COMPILE", "cop"]))


def _build(expression, variables):
    if isinstance(expression, str):
        return variables[expression] if expression in variables else ot.constant(float(expression))
    name, *operands = expression
    table = UNARY if name in UNARY else BINARY
    return table[name](*[_build(o, variables) for o in operands])


ROUND_TRIP = """
import pickle, sys
import cloudpickle
import numpy as np
batch = pickle.loads(sys.stdin.buffer.read())
out = []
for plain, cloud, values in batch:
    row = []
    for f in (pickle.loads(plain), cloudpickle.loads(cloud)):
        result = f(*values)
        row.append((type(result).__name__, [np.asarray(r) for r in result] if isinstance(result, list)
                    else np.asarray(result), f.__dask_tokenize__()))
    out.append(row)
sys.stdout.buffer.write(pickle.dumps(out))
"""


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(functions, min_size=3, max_size=4))
def test_random_functions_round_trip_through_pickle_and_cloudpickle_in_a_fresh_process(batch):
    x, y = ot.dvector("x"), ot.dvector("y")
    variables = {"x": x, "y": y}
    values = [np.array([0.5, -1.5, 2.0]), np.array([1.0, 0.25, -3.0])]
    sent, expected = [], []
    # The bug's own case first: one output, then the same graph as a list of one.
    batch = [(["x"], "single", "FAST_COMPILE"), ([("mul", "x", "2.5")], "single", "FAST_RUN"),
             ([("mul", "x", "2.5")], "list", "FAST_RUN"), *batch]
    for expressions_, structure, mode in batch:
        outs = [_build(e, variables) for e in expressions_]
        mode = opkit.Mode(linker="cop") if mode == "cop" else mode
        f = opkit.function([x, y], outs[0] if structure == "single" else outs, mode=mode, on_unused_input="ignore")
        with np.errstate(all="ignore"):
            expected.append((f(*values), f.__dask_tokenize__()))
        sent.append((pickle.dumps(f), cloudpickle.dumps(f), values))
    done = subprocess.run([sys.executable, "-c", ROUND_TRIP], input=pickle.dumps(sent), capture_output=True,
                          timeout=600, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert done.returncode == 0, done.stderr.decode()
    for (result, token), row in zip(expected, pickle.loads(done.stdout)):
        for kind, got, got_token in row:
            assert kind == type(result).__name__
            assert got_token == token
            if isinstance(result, list):
                assert len(got) == len(result)
                for a, b in zip(got, result):
                    assert a.dtype == np.asarray(b).dtype
                    np.testing.assert_array_equal(a, b)
            else:
                assert got.dtype == result.dtype and got.shape == result.shape
                np.testing.assert_array_equal(got, result)
