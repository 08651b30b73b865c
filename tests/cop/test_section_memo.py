"""Built-in ops' expanded `#section` files are kept across processes (opkit.cop.source.section_memo), never stale."""

import os
import pathlib
import subprocess
import sys
import time

import numpy as np
import pytest

import opkit
from opkit.cop.generate.templates import render
import opkit.cop.compiledir.layout as layout
import opkit.cop.source.section_memo as section_memo
import opkit.cop.compiledir.text_memo as text_memo
import opkit.tensor as ot
from opkit.core import c_source
from opkit.core.builtin_ops import view_op
from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.tensor.types.type import TensorType
from opkit.cop.generate.cinterface import op_has_c
from opkit.cop.generate.codegen import collect_module
from opkit.cop.compiledir.private_fs import write_sealed
from opkit.cop.generate.region import Region
from opkit.cop.source.section_op import OpSections
from opkit.errors import SectionError
from opkit.link.function import FunctionMaker
from opkit.link.mode import get_mode

PACKAGE = pathlib.Path(opkit.__file__).resolve().parent


@pytest.fixture
def memo(tmp_path, monkeypatch):
    """A memo of its own: another cache directory, nothing known in this process, files looked at every time."""
    monkeypatch.setattr(layout, "host_dir", lambda: tmp_path / "host")
    monkeypatch.setattr(text_memo, "_pending", {})
    text_memo._rendered_dir.cache_clear()
    text_memo._bound.cache_clear()
    monkeypatch.setattr(section_memo, "RECHECK_SECONDS", 0.0)

    def forget():  # what a new process knows: only what is on disk (the last one kept its texts at exit)
        text_memo.flush()
        monkeypatch.setattr(section_memo, "_files", {})
        monkeypatch.setattr(section_memo, "_answers", {})
        monkeypatch.setattr(section_memo, "_versions", {})

    forget()
    yield forget
    text_memo._rendered_dir.cache_clear()
    text_memo._bound.cache_clear()


def _kept():
    """Return the kept texts' files, once what this process made is written (as once a key exists)."""
    text_memo.flush()
    folder = text_memo._rendered_dir()
    return sorted(folder.iterdir()) if folder.exists() else []


def _graphs():
    x, m = ot.dvector("x"), ot.fmatrix("m")
    n = ot.lscalar("n")
    yield [x], [x * 2 + ot.exp(x) - (x > 1)]
    yield [m], [m.sum(axis=0), m.max(), ot.argmax(m, axis=1), (m * 2).prod(axis=1)]
    yield [m, n], [m.reshape((n, -1)), m.T, m[1:, ::2], m.shape, m.shape[0] + n]
    yield [x], [x]  # a deep copy of an input
    yield [x, n], [ot.alloc(n, 3, x.shape[0]), ot.specify_shape(x, (3,)) * 2, ot.zeros((n, 2))]
    yield [x, m], [ot.concatenate([x, x]), ot.cast(m, "int16")]
    y = ot.dvector("y")
    yield [m, n, x, y], [m.reshape((n, -1)).shape, (x + y).shape[0], view_op(x)]  # ResolvedShape, ViewOp
    d = ot.dmatrix("d")
    yield [x, d], [(ot.reshape(x, (2, 1)) + d).shape[1]]  # Depend: a length with a check its value does not compute
    yield [x, y, n], [ot.set_subtensor(x[n:], y), ot.inc_subtensor(x[::-1][0], 1.0)]  # IncSubtensor
    yield [x, y], [opkit.grad((x * y).sum(), x)]  # SumToShape: x may be broadcast when the graph runs
    yield [x], [ot.exp(ot.scalar_from_tensor(x.sum()))]  # ScalarFromTensor, then TensorFromScalar
    yield [x, m], [ot.dot(m, m.T), ot.dot(x, x)]  # Dot (dot.c)
    rows = np.array([0, 1])  # the tensor language's C ops: sorting and scans, take, repeat, eye, diagonals, indexing
    yield [x, m, n], [ot.sort(m, axis=1), ot.argsort(x), ot.cumsum(m, axis=0), ot.take(x, rows), ot.repeat(x, 2),
                      ot.eye(n), ot.diag(x), ot.diagonal(m), x[rows], ot.inc_subtensor(x[rows], 1.0),
                      opkit.grad((ot.sort(x) * x).sum(), x)]  # sort's gradient gathers along the axis


def _contents(reader):
    """Return the generated parts of every graph's region, the C of every SectionOp asked of `reader`."""
    previous = c_source._section_reader
    c_source.install_c_readers(reader, render)
    try:
        contents = []
        for inputs, outputs in _graphs():
            fgraph = FunctionMaker(inputs, outputs, get_mode(None)).fgraph
            # Every node with C (Concatenate has none: it runs perform, as in a compiled function).
            nodes = [node for node in fgraph.toposort() if op_has_c(node)]
            parts = collect_module(Region.from_nodes(nodes, lambda variable: True))
            contents.append((parts.content(), parts.include_dirs, parts.versioned))
        return contents
    finally:
        c_source.install_c_readers(previous, render)


def test_kept_answers_are_what_the_section_files_expand_to_cold_and_warm(memo, monkeypatch):
    asked = set()
    real_init = section_memo.SectionC.__init__

    def recording_init(self, op, files=None, macros=()):
        real_init(self, op, files, macros)
        asked.update(self.files)

    monkeypatch.setattr(section_memo.SectionC, "__init__", recording_init)
    expanded = _contents(lambda op, files=None, macros=(): OpSections(op, files, macros))
    cold = _contents(section_memo.SectionC)
    kept = len(_kept())
    memo()  # a new process: every answer read back from disk
    warm = _contents(section_memo.SectionC)
    assert cold == expanded and warm == expanded
    assert len(_kept()) == kept  # the warm run made and kept nothing new
    # every built-in section file of the CPU graphs (the GPU ops' files, opkit/gpu/, are asked on a GPU device:
    # tests/gpu/test_builtin_gpu_ops.py runs them through the interpreter)
    cpu_files = {p for p in PACKAGE.rglob("*.c") if "gpu" not in p.relative_to(PACKAGE).parts}
    assert {pathlib.Path(p) for p in asked} >= cpu_files


class FileOp(Op):
    """An op whose C comes from files given at the call (as a registered type's DeepCopy code does)."""

    check_input = True
    params_type = None

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])


def _code(files, dtype="float64", name="node_3", fail="{ goto fail_3; }", macros=()):
    node = FileOp().make_node(TensorType(dtype, (None,))("x"))
    return section_memo.SectionC(node.op, files, macros).c_code(node, name, ["V1"], ["V2"], {"fail": fail})


def _expanded(files, dtype="float64", name="node_3", fail="{ goto fail_3; }", macros=()):
    node = FileOp().make_node(TensorType(dtype, (None,))("x"))
    return OpSections(node.op, files, macros).c_code(node, name, ["V1"], ["V2"], {"fail": fail})


CODE = "#section code\n// {tag}\nDTYPE_INPUT_0 a = 0; APPLY_SPECIFIC(f)(INPUT_0, OUTPUT_0); FAIL\n"


def test_every_value_the_macros_are_made_of_names_another_answer(memo, tmp_path):
    path = tmp_path / "op.c"
    path.write_text(CODE.format(tag="one"))
    cases = [dict(), dict(dtype="float32"), dict(name="node_4"), dict(fail="{ goto other; }"),
             dict(macros=(("OPKIT_I", 1),)), dict(macros=(("OPKIT_I", 2),))]
    answers = [_code([path], **case) for case in cases]
    assert answers == [_expanded([path], **case) for case in cases]
    assert len(set(answers)) == len(cases)
    memo()
    assert [_code([path], **case) for case in cases] == answers


def test_an_edited_file_is_expanded_again_in_this_process_and_the_next(memo, tmp_path):
    path = tmp_path / "op.c"
    path.write_text(CODE.format(tag="one"))
    assert "// one" in _code([path])
    path.write_text(CODE.format(tag="two, longer"))
    assert "// two, longer" in _code([path])
    script = ("import sys, opkit.tensor as ot\nsys.path.insert(0, sys.argv[1])\nimport test_section_memo as t\n"
              "print(t._code([sys.argv[2]]))\n")
    env = dict(os.environ, OPKIT_COMPILEDIR=str(tmp_path / "cache"))
    run = [sys.executable, "-c", script, str(pathlib.Path(__file__).parent), str(path)]
    assert "// two, longer" in subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout
    path.write_text(CODE.format(tag="three"))
    assert "// three" in subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout
    path.write_text(CODE.format(tag="two, longer"))  # back to a text kept before: its answer, from disk
    memo()
    assert _code([path]) == _expanded([path])


def test_an_answer_is_read_from_disk_and_the_engines_source_names_it(memo, tmp_path, monkeypatch):
    path = tmp_path / "op.c"
    path.write_text(CODE.format(tag="one"))
    _code([path])
    for kept in _kept():
        if b"// one" in kept.read_bytes():
            write_sealed(kept, b'"planted"')  # what a later process reads back (whole: its digest matches)
    memo()
    assert _code([path]) == "planted"
    memo()
    monkeypatch.setattr(section_memo, "engine_digest", lambda: "another parser or expander")
    assert _code([path]) == _expanded([path])


def test_a_damaged_kept_answer_is_computed_again(memo, tmp_path):
    path = tmp_path / "op.c"
    path.write_text(CODE.format(tag="one"))
    expected = _code([path])
    for kept in _kept():
        kept.write_text('"cut sho')  # not JSON: a file damaged on disk
    memo()
    assert _code([path]) == expected == _expanded([path])


def test_the_version_covers_the_local_headers_and_is_the_expanders(memo, tmp_path):
    path, header = tmp_path / "op.c", tmp_path / "op_helpers.h"
    header.write_text("#define HELP 1\n")
    path.write_text('#section support_code\n#include "op_helpers.h"\n' + CODE.format(tag="one"))
    op = FileOp()
    first = section_memo.SectionC(op, [path]).c_code_cache_version()
    assert first == OpSections(op, [path]).c_code_cache_version()
    header.write_text("#define HELP 2 /* edited */\n")
    time.sleep(0.01)
    second = section_memo.SectionC(op, [path]).c_code_cache_version()
    assert second != first and second == OpSections(op, [path]).c_code_cache_version()
    memo()
    assert section_memo.SectionC(op, [path]).c_code_cache_version() == second


def test_a_file_that_cannot_be_read_raises_as_the_expander_does(memo, tmp_path):
    with pytest.raises(SectionError, match="cannot read C section file") as memo_error:
        _code([tmp_path / "missing.c"])
    with pytest.raises(SectionError) as expander_error:
        _expanded([tmp_path / "missing.c"])
    assert str(memo_error.value) == str(expander_error.value)
    bad = tmp_path / "bad.c"
    bad.write_text("#section cdoe\nint a;\n")
    with pytest.raises(SectionError, match="did you mean 'code'"):
        _code([bad])


def test_no_code_section_raises_as_the_expander_does(memo, tmp_path):
    path = tmp_path / "support.c"
    path.write_text("#section support_code\nint helper(void) { return 0; }\n")
    with pytest.raises(Exception) as memo_error:
        _code([path])
    with pytest.raises(Exception) as expander_error:
        _expanded([path])
    assert type(memo_error.value) is type(expander_error.value)
    assert str(memo_error.value) == str(expander_error.value)


def test_an_answer_computed_while_its_file_changed_is_used_but_not_kept(memo, tmp_path):
    path = tmp_path / "op.c"
    path.write_text(CODE.format(tag="one"))
    files = (str(path),)
    entry = section_memo._files_of(files)

    def compute():
        path.write_text(CODE.format(tag="edited meanwhile"))
        return "the old text's answer"

    before = set(_kept())
    assert section_memo._keep("a key", compute, entry.unchanged) == "the old text's answer"
    assert set(_kept()) == before


def test_a_warm_process_finds_built_in_ops_without_parsing_or_expanding(tmp_path):
    from helpers.caches import seeded  # here: a child imports this file with tests/cop alone on its path

    script = ("import sys, numpy as np, opkit, opkit.tensor as ot\n"
              "m = ot.dmatrix('m')\n"
              "f = opkit.function([m], [m.reshape((-1,)), m.T * 2, m.sum(axis=0), m[1:]])\n"
              "a = np.arange(6.).reshape(2, 3)\n"
              "r = f(a)\n"
              "assert np.array_equal(r[0], a.ravel()) and np.array_equal(r[1], a.T * 2)\n"
              "assert np.array_equal(r[2], a.sum(axis=0)) and np.array_equal(r[3], a[1:])\n"
              "print(sorted(n for n in ('opkit.cop.source.sections', 'opkit.cop.source.macros') if n in sys.modules))\n")
    env = dict(os.environ, OPKIT_COMPILEDIR=seeded(tmp_path / "cache"))
    cold, warm = (subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                                 check=True).stdout for _ in range(2))
    assert "opkit.cop.source.sections" in cold and warm.strip() == "[]"
