"""Incremental builds (opkit.cop.incremental): a big graph's module linked from cached chunk objects.

A graph that differs from a cached one by one node compiles one new object (the
chunk holding that node) and the glue, never the other chunks; what the cache
guarantees for modules holds for the objects: content identity, damage detected
and rebuilt, one build per key across processes. Every test checks the cache's
contents or its event counters, and the numbers against numpy.
"""

import json
import pathlib
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest

import opkit
import opkit.scalar as os_
import opkit.tensor as ot
from opkit import Apply, COp, Op, ParamsType
from opkit.cop.store.cache import CacheWarning, module_events
from opkit.cop.store.objects import object_events
from opkit.cop.incremental import CHUNK_MEAN, INCREMENTAL_ABOVE, node_piece
from helpers.caches import copy_of, seeded
from helpers.state_ops import Counter  # z = x + count: state of each node's own

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The smallest chain built incrementally: its g++ time grows with its nodes, and CHUNK_MOST (16) cuts it into two
# chunks or more whatever their contents. Each test's tags cut it into 2 to 5 chunks.
N = INCREMENTAL_ABOVE + 1
C_LINKER = opkit.Mode(linker="c", optimizer=None)
VECTOR_TIMES_VECTOR = ROOT / "tests" / "data" / "sections" / "vectorTimesVector.c"
AXPY_PARAMS_FILE = ROOT / "tests" / "data" / "params" / "axpy_params.c"


class Tagged(Op):
    """z = x * y; its tag is a comment in its C code, so each tag is another node content."""

    __props__ = ("tag",)

    def __init__(self, tag):
        self.tag = tag

    def make_node(self, x, y):
        return Apply(self, [x, y], [x.type()])

    def c_support_code(self, **kwargs):
        return ("static void tagged_mul(const double* x, npy_intp xs, const double* y, npy_intp ys,\n"
                "                       double* z, npy_intp n)\n"
                "{ for (npy_intp i = 0; i < n; i++) z[i] = x[i * xs] * y[i * ys]; }\n")

    def c_code(self, node, name, inputs, outputs, sub):
        x, y, z, fail = inputs[0], inputs[1], outputs[0], sub["fail"]
        return f"""// tag: {self.tag}
if (PyArray_DIMS({y})[0] != PyArray_DIMS({x})[0]) {{
    PyErr_SetString(PyExc_ValueError, "Tagged: x and y differ in length");
    {fail}
}}
if (NULL == {z} || PyArray_DIMS({z})[0] != PyArray_DIMS({x})[0]) {{
    Py_XDECREF({z});
    {z} = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS({x}), NPY_FLOAT64, 0);
    if (!{z}) {fail}
}}
tagged_mul((const double*)PyArray_DATA({x}), PyArray_STRIDES({x})[0] / 8,
           (const double*)PyArray_DATA({y}), PyArray_STRIDES({y})[0] / 8,
           (double*)PyArray_DATA({z}), PyArray_DIMS({x})[0]);"""

    def c_code_cache_version(self):
        return (1,)


class FileMul(COp):
    """vectorTimesVector from a `#section` file (support code, apply-specific functions)."""

    __props__ = ()

    def __init__(self, path):
        super().__init__(str(path), "APPLY_SPECIFIC(vector_times_vector)")

    def make_node(self, x, y):
        return Apply(self, [x, y], [x.type()])


class Scaled(Op):
    """z = x * scale, `scale` a static of its support code that its c_init_code sets at module load."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [os_.as_scalar(x)], [os_.float64()])

    def c_support_code(self, **kwargs):
        return "static double opkit_test_scale = 0.0;"

    def c_init_code(self, **kwargs):
        return ["opkit_test_scale = 3.0;"]

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]} * opkit_test_scale;"

    def c_code_cache_version(self):
        return (1,)


class Axpy(COp):
    """alpha * x + y (ADD) or alpha * x * y (MUL): a ParamsType read in a `#section` file."""

    __props__ = ("alpha", "mode")
    params_type = ParamsType(alpha=os_.float64, mode=opkit.EnumList("ADD", "MUL"))

    def __init__(self, alpha, mode):
        self.alpha, self.mode = alpha, mode
        super().__init__(str(AXPY_PARAMS_FILE))

    def make_node(self, x, y):
        x, y = ot.as_tensor_variable(x), ot.as_tensor_variable(y)
        return Apply(self, [x, y], [x.type()])


def _cut(node) -> bool:
    """Return True if a chunk ends after `node` (its content's hash; see opkit.cop.incremental)."""
    return int(node_piece(node).identity[:8], 16) % CHUNK_MEAN == 0


def _tagged_chain(tags, middle=None):
    """x * y ** len(tags) through one Tagged node per tag; `middle(z, y)`, if given, replaces the middle one."""
    x, y = ot.dvector("x"), ot.dvector("y")
    z = x
    for k, tag in enumerate(tags):
        z = middle(z, y) if middle is not None and k == len(tags) // 2 else Tagged(tag)(z, y)
    return [x, y], z


def _objects(compiledir):
    """Return the keys of the chunk objects in the cache at `compiledir`."""
    keys = set()
    for meta in pathlib.Path(compiledir).glob("*/*/meta.json"):
        data = json.loads(meta.read_text())
        if data["extra"].get("kind") == "chunk of nodes":
            keys.add(data["key"])
    return keys


def _replacement_tag(old_tag):
    """Return a new tag whose node cuts a chunk where `old_tag`'s does (so exactly one chunk changes)."""
    x, y = ot.dvector(), ot.dvector()
    old = _cut(Tagged(old_tag)(x, y).owner)
    return next(t for t in (f"{old_tag}-new{k}" for k in range(100)) if _cut(Tagged(t)(x, y).owner) == old)


# The chain the tests that damage, clear or rebuild a cache's objects start from: built once, in a cache of its own
# (base_cache), which each of them copies (a copied cache serves its entries: tests/cop/test_faults_cache_ownership.py).
BASE_TAGS = [f"base-{k}" for k in range(N)]


@pytest.fixture(scope="module")
def base_cache(tmp_path_factory):
    """A seeded cache holding the objects and the module of the chain of BASE_TAGS (several chunks)."""
    root = pathlib.Path(seeded(tmp_path_factory.mktemp("incremental-base") / "cache"))
    a, b = np.linspace(0.5, 1.5, 6), np.full(6, 1.01)
    with opkit.config.change_flags(compiledir=str(root)):
        built = object_events["built"]
        f = opkit.function(*_tagged_chain(BASE_TAGS), mode=C_LINKER)
        assert object_events["built"] - built == len(_objects(root)) > 1
        np.testing.assert_allclose(f(a, b), a * b ** N, rtol=1e-13)
    return root


def test_a_graph_changed_by_one_node_compiles_one_new_object(tmp_path):
    tags = [f"one-{k}" for k in range(N)]
    a, b = np.linspace(0.5, 1.5, 6), np.full(6, 1.01)
    with opkit.config.change_flags(compiledir=seeded(tmp_path)):
        built = object_events["built"]
        f = opkit.function(*_tagged_chain(tags), mode=C_LINKER)
        cold = object_events["built"] - built
        np.testing.assert_allclose(f(a, b), a * b ** N, rtol=1e-13)
        first = _objects(tmp_path)
        assert cold == len(first) > 1  # several chunks, each compiled once

        changed = list(tags)
        changed[N // 2] = _replacement_tag(tags[N // 2])
        built, modules = object_events["built"], module_events["built"]
        g = opkit.function(*_tagged_chain(changed), mode=C_LINKER)
        assert object_events["built"] - built == 1 and module_events["built"] - modules == 1
        assert len(_objects(tmp_path) - first) == 1  # one new object; every other one reused
        np.testing.assert_allclose(g(a, b), a * b ** N, rtol=1e-13)
        np.testing.assert_allclose(f(a, b), a * b ** N, rtol=1e-13)


def _write_section_file(path, factor):
    text = VECTOR_TIMES_VECTOR.read_text()
    old = "z_ptr[i * z_str] = x_ptr[i * x_str] * y_ptr[i * y_str];"
    assert old in text
    path.write_text(text.replace(old, f"z_ptr[i * z_str] = {factor} * x_ptr[i * x_str] * y_ptr[i * y_str];"))


def test_editing_a_section_file_rebuilds_only_the_chunk_of_its_node(tmp_path):
    source = tmp_path / "vectorTimesVector.c"
    compiledir = tmp_path / "cache"
    tags = [f"file-{k}" for k in range(N)]
    x, y = ot.dvector(), ot.dvector()
    _write_section_file(source, "1.0")
    old_cut = _cut(FileMul(source)(x, y).owner)
    # An edit whose node cuts its chunk where the old one did: the C changes, the chunking does not.
    factor = next(f for f in (f"2.{'0' * k}" for k in range(1, 60))
                  if (_write_section_file(source, f), _cut(FileMul(source)(x, y).owner))[1] == old_cut)
    _write_section_file(source, "1.0")
    a, b = np.linspace(0.5, 1.5, 6), np.full(6, 1.01)
    with opkit.config.change_flags(compiledir=seeded(compiledir)):
        f = opkit.function(*_tagged_chain(tags, middle=FileMul(source)), mode=C_LINKER)
        np.testing.assert_allclose(f(a, b), a * b ** N, rtol=1e-13)
        first = _objects(compiledir)
        _write_section_file(source, factor)
        built = object_events["built"]
        g = opkit.function(*_tagged_chain(tags, middle=FileMul(source)), mode=C_LINKER)
        assert object_events["built"] - built == 1 and len(_objects(compiledir) - first) == 1
        np.testing.assert_allclose(g(a, b), 2 * a * b ** N, rtol=1e-13)  # the edited C runs


def test_a_damaged_object_is_detected_and_rebuilt(base_cache, tmp_path):
    a, b = np.linspace(0.5, 1.5, 6), np.full(6, 1.01)
    root = copy_of(base_cache, tmp_path)
    with opkit.config.change_flags(compiledir=str(root)):
        entries = [p.parent for p in root.glob("*/*/meta.json")
                   if json.loads(p.read_text())["extra"].get("kind") == "chunk of nodes"]
        assert entries
        for entry in entries:  # every object damaged: the first chunks are unchanged in the next graph
            obj = next(entry.glob("*.o"))
            data = bytearray(obj.read_bytes())
            data[len(data) // 2] ^= 0xFF
            obj.write_bytes(bytes(data))
        built = object_events["built"]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            g = opkit.function(*_tagged_chain(BASE_TAGS + ["damage-extra"]), mode=C_LINKER)
        messages = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
        assert any("does not match the size and sha256 in meta.json" in m and "rebuilding" in m for m in messages)
        assert object_events["built"] - built >= 2  # the damaged ones it uses, and its new last chunk
        np.testing.assert_allclose(g(a, b), a * b ** (N + 1), rtol=1e-13)


SCRIPT = """
import sys
import numpy as np
sys.path[:0] = [{here!r}, {tests!r}]
import opkit
from test_incremental_build import C_LINKER, N, _tagged_chain
from opkit.cop.store.objects import object_events
tags = [f"overlap-{{k}}" for k in range(N)]
tags[int(sys.argv[1])] = "only-" + sys.argv[1]
f = opkit.function(*_tagged_chain(tags), mode=C_LINKER)
a, b = np.linspace(0.5, 1.5, 6), np.full(6, 1.01)
np.testing.assert_allclose(f(a, b), a * b ** N, rtol=1e-13)
print("built", object_events["built"])
"""


def test_two_processes_building_overlapping_graphs_share_their_objects(tmp_path):
    # The "overlap-" chain's chunks hold 3, 5, 1, 2, 11 and 3 nodes: nodes 1 and N - 2 fall in the first and the last
    # (small ones: each process compiles little of its own), the four between are both's.
    script = tmp_path / "build.py"
    script.write_text(SCRIPT.format(here=str(pathlib.Path(__file__).parent), tests=str(ROOT / "tests")))
    env = {**__import__("os").environ, "OPKIT_COMPILEDIR": seeded(tmp_path / "cache")}
    runs = [subprocess.Popen([sys.executable, str(script), str(k)], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for k in (1, N - 2)]
    outputs = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert not list((tmp_path / "cache").glob(".build-*"))
    # A third process finds every object and module: it compiles nothing.
    check = script.read_text().replace("f = opkit", "g = opkit.function(*_tagged_chain("
                                       "[f'overlap-{k}' if k != N - 2 else 'only-' + str(N - 2) for k in range(N)]),"
                                       " mode=C_LINKER)\nf = opkit")
    script.write_text(check)
    third = subprocess.run([sys.executable, str(script), "1"], env=env, capture_output=True, text=True, timeout=600)
    assert third.returncode == 0, third.stderr
    assert third.stdout.split() == ["built", "0"]


def _mixed_graph():
    """A model-like graph: fused elementwise, reductions, params, init code, per-node state (dot has no C)."""
    x, w = ot.dvector("x"), ot.dvector("w")
    s = os_.float64("s")
    terms = []
    h = x
    for k in range(8):
        h = ot.tanh(w * h * (0.5 + k) + x)
        h = Axpy(1.0 + k, "ADD" if k % 2 else "MUL")(h, x)
        terms.append(ot.sum(h ** 2) + ot.max(h))
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    c = s
    for _ in range(4):
        c = Counter()(Scaled()(c))
    return [x, w, s], [total, c]


def _mixed_expected(x, w, s, call):
    terms, h = [], x
    for k in range(8):
        h = np.tanh(w * h * (0.5 + k) + x)
        h = (1.0 + k) * h + x if k % 2 else (1.0 + k) * h * x
        terms.append(np.sum(h ** 2) + np.max(h))
    c = s
    for _ in range(4):
        c = c * 3.0 + call
    return sum(terms), c


# Two private caches and a big graph built both ways: soak (`-m soak`); the tests above
# build chains incrementally, and every graph under INCREMENTAL_ABOVE nodes in the suite builds whole.
@pytest.mark.soak
def test_fused_reductions_params_init_code_and_state_build_incrementally_as_numpy(tmp_path):
    rng = np.random.default_rng(7)
    x, w = rng.standard_normal(5), rng.standard_normal(5)
    results = {}
    for incremental in (True, False):
        with opkit.config.change_flags(compiledir=seeded(tmp_path / str(incremental)), incremental=incremental):
            built = object_events["built"]
            inputs, outputs = _mixed_graph()
            f = opkit.function(inputs, outputs)
            assert len(f.maker.fgraph.apply_nodes) > INCREMENTAL_ABOVE
            assert (object_events["built"] > built) == incremental
            results[incremental] = [f(x, w, 2.0) for _ in range(3)]
        for call, (total, c) in enumerate(results[incremental]):
            expected_total, expected_c = _mixed_expected(x, w, 2.0, call)
            np.testing.assert_allclose(total, expected_total, rtol=1e-12)
            assert c == expected_c
    for one, other in zip(results[True], results[False]):  # the same C, the same bits
        assert [np.asarray(v).tobytes() for v in one] == [np.asarray(v).tobytes() for v in other]


def test_a_node_that_does_not_compile_reports_the_whole_modules_error(tmp_path):
    class Broken(Tagged):
        def c_code(self, node, name, inputs, outputs, sub):
            return super().c_code(node, name, inputs, outputs, sub) + "\nthis_is_not_cpp;"

    tags = [f"broken-{k}" for k in range(N)]
    with opkit.config.change_flags(compiledir=seeded(tmp_path)):
        with pytest.raises(opkit.CompileError) as caught:
            opkit.function(*_tagged_chain(tags, middle=Broken("b")), mode=C_LINKER)
    message = str(caught.value)
    assert "compiling the C++ module 'opkit_" in message and "this_is_not_cpp" in message
    assert "while compiling:" in message and "full source kept at" in message


def test_the_incremental_flag_is_checked():
    with pytest.raises(ValueError, match="opkit flag incremental='maybe' must be true or false"):
        opkit.config.incremental = "maybe"


def test_clear_removes_the_objects_too(base_cache, tmp_path):
    root = copy_of(base_cache, tmp_path)
    with opkit.config.change_flags(compiledir=str(root)):
        assert _objects(root)
        from opkit.cop.store.cache import default_cache

        default_cache().upkeep.clear()
        assert not _objects(root)
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_updates_profile_and_failing_nodes_keep_their_meaning_in_an_incremental_build(tmp_path):
    tags = [f"upd-{k}" for k in range(N)]
    with opkit.config.change_flags(compiledir=seeded(tmp_path)):
        c = opkit.shared(np.ones(4), name="c")
        x, y = ot.dvector("x"), ot.dvector("y")
        z = c
        for tag in tags:
            z = Tagged(tag)(z, y)
        built = object_events["built"]
        f = opkit.function([y], z, updates={c: z + 1.0}, mode=C_LINKER, profile=True)
        assert object_events["built"] > built
        b = np.full(4, 1.01)
        expected = np.ones(4)
        for _ in range(3):
            np.testing.assert_allclose(f(b), expected * b ** N, rtol=1e-13)
            expected = expected * b ** N + 1.0
            np.testing.assert_allclose(c.get_value(), expected, rtol=1e-13)
        rows = f.profile.nodes()
        assert len(rows) == N + 1 and all(calls == 3 and where == "C" for _, where, calls, _ in rows)
        with pytest.raises(ValueError, match="Tagged: x and y differ in length") as caught:  # and still works
            f(np.ones(3))
        if sys.version_info >= (3, 11):
            assert "Apply node that failed" in "\n".join(getattr(caught.value, "__notes__", []))
        np.testing.assert_allclose(f(b), expected * b ** N, rtol=1e-13)


class Defines(Tagged):
    """A Tagged node whose support code defines a function (not static) returning `value`."""

    __props__ = ("tag", "value")

    def __init__(self, tag, value):
        super().__init__(tag)
        self.value = value

    def c_support_code(self, **kwargs):
        return [super().c_support_code(), f"int opkit_test_defined(void) {{ return {self.value}; }}\n"]


def _ends_defining(values):
    """A chain of N Tagged nodes whose first and last nodes are Defines (in two chunks)."""
    def make(z, y, k):
        if k in (0, N - 1):
            return Defines(f"def-{k}", values[0 if k == 0 else 1])(z, y)
        return Tagged(f"def-{k}")(z, y)
    x, y = ot.dvector("x"), ot.dvector("y")
    z = x
    for k in range(N):
        z = make(z, y, k)
    return [x, y], z


def test_support_code_defining_a_name_in_two_chunks_links_once(tmp_path, caplog):
    a, b = np.linspace(0.5, 1.5, 6), np.full(6, 1.01)
    with opkit.config.change_flags(compiledir=seeded(tmp_path)), caplog.at_level("INFO", logger="opkit"):
        built = object_events["built"]
        f = opkit.function(*_ends_defining((7, 7)), mode=C_LINKER)
        assert object_events["built"] - built >= 2
        np.testing.assert_allclose(f(a, b), a * b ** N, rtol=1e-13)
    assert not [r for r in caplog.records if "building it as one module" in r.getMessage()]


def test_two_definitions_of_a_name_report_the_whole_modules_redefinition(tmp_path):
    with opkit.config.change_flags(compiledir=seeded(tmp_path)):
        with pytest.raises(opkit.CompileError) as caught:
            opkit.function(*_ends_defining((7, 8)), mode=C_LINKER)
    message = str(caught.value)
    assert "redefinition of" in message and "opkit_test_defined" in message


@pytest.mark.parametrize("flags", [{"cflags": "-DOPKIT_TEST_INCREMENTAL=1"}, {"openmp": not opkit.config.openmp}],
                         ids=["cflags", "openmp"])
def test_the_build_flags_are_part_of_every_objects_identity(base_cache, tmp_path, flags):
    a, b = np.linspace(0.5, 1.5, 6), np.full(6, 1.01)
    root = copy_of(base_cache, tmp_path)
    with opkit.config.change_flags(compiledir=str(root)):
        first = _objects(root)  # the chain's objects, built with the flags in force
        with opkit.config.change_flags(**flags):
            built = object_events["built"]
            f = opkit.function(*_tagged_chain(BASE_TAGS), mode=C_LINKER)
            assert object_events["built"] - built == len(first)  # every object again, none reused
        assert len(_objects(root)) == 2 * len(first)
        np.testing.assert_allclose(f(a, b), a * b ** N, rtol=1e-13)
