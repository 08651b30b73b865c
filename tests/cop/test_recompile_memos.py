"""The memos that make an in-process recompile of the same graph cheap (issue 37 item 4) are keyed by the
module's whole text: an edit in the same process (a constant baked into c_code, a header's bytes) is another
module, and a key computed through a memo is the key computed without one."""

import os

import numpy as np

import opkit
import opkit.tensor as ot
from opkit import Apply, Op
from opkit.cop.toolchain import identity
from opkit.cop.compiledir.layout import CACHE_FORMAT
from opkit.cop.generate.codegen import collect_module
from opkit.cop.generate.region import Region


def _plain_key(*parts):
    """cache_key's formula, written out: sha256 of CACHE_FORMAT and each part with its length."""
    import hashlib

    digest = hashlib.sha256(CACHE_FORMAT.encode())
    for part in parts:
        data = part.encode("utf-8", "surrogateescape") if isinstance(part, str) else bytes(part)
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()


def test_a_key_through_the_text_memo_is_the_plain_digest_and_sees_every_byte():
    text = "int f(void) { return 1; }\n" * 400
    edited = text[:5000] + "2" + text[5001:]
    for first in (text, text.encode(), edited, "\udcff" + text):
        for _ in range(2):  # a miss, then a hit
            assert identity.cache_key(first, "-O2", b"\x00") == _plain_key(first, "-O2", b"\x00")
    assert identity.cache_key(text, "-O2") != identity.cache_key(edited, "-O2")
    assert identity.cache_key(text, "-O2") != identity.cache_key(text, "-O3")
    assert identity.cache_key(text + "c", "d") != identity.cache_key(text, "cd")
    assert identity.cache_key(text) == _plain_key(text)
    for tag in ("shipped-1", "shipped-2", b"shipped-1"):  # a format tag first (a shipped module's key)
        for first in (text, edited):
            for _ in range(2):
                assert identity.cache_key(tag, first, "x") == _plain_key(tag, first, "x")
    assert identity.cache_key("shipped-1", text) != identity.cache_key("shipped-2", text)
    assert identity.cache_key("a", "b" + text) != identity.cache_key("ab", text)


def test_the_memos_stay_bounded():
    for k in range(3 * identity._MEMO_SIZE):
        identity.cache_key(f"{k}\n" + "x" * identity._PREFIX_MEMO_FROM)
    assert len(identity._prefixes) <= identity._MEMO_SIZE and len(identity._code_texts) <= identity._MEMO_SIZE


class Baked(Op):
    """z = x * SCALE + OFFSET: SCALE is baked into the C text, OFFSET comes from a header."""

    __props__ = ()
    SCALE = 2.0
    HEADER_DIRS = []

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def c_header_dirs(self, c_compiler=None):
        return list(self.HEADER_DIRS)

    def c_headers(self, c_compiler=None):
        return ["baked_offset.h"]

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (z,) = inputs, outputs
        return f"""
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_NewCopy({x}, NPY_CORDER);
        if (!{z}) {sub['fail']}
        for (npy_intp i = 0; i < PyArray_SIZE({z}); ++i)
            ((double*)PyArray_DATA({z}))[i] = ((double*)PyArray_DATA({z}))[i] * {self.SCALE!r} + OFFSET;
        """

    def c_code_cache_version(self):
        return (1,)


def _write_header(folder, offset, stamp=None):
    path = folder / "baked_offset.h"
    path.write_text(f"#define OFFSET {offset}\n")
    if stamp is not None:
        os.utime(path, ns=stamp)
    return path


def test_a_recompile_in_the_same_process_sees_a_baked_constant_and_a_header_edited_in_place(tmp_path, monkeypatch):
    monkeypatch.setattr(Baked, "HEADER_DIRS", [str(tmp_path)])
    path = _write_header(tmp_path, "1.5")
    stamp = (os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns)
    x = ot.dvector("x")
    value = np.arange(5.0)
    node = Baked()(x).owner

    def key():
        return identity.region_key(collect_module(Region.from_nodes([node], lambda variable: True)))

    first = key()
    assert key() == first  # the same graph again: the same key, through the memos
    assert np.array_equal(opkit.function([x], node.outputs[0])(value), value * 2.0 + 1.5)
    monkeypatch.setattr(Baked, "SCALE", 3.0)  # another constant in c_code's text
    assert key() != first
    assert np.array_equal(opkit.function([x], node.outputs[0])(value), value * 3.0 + 1.5)
    monkeypatch.setattr(Baked, "SCALE", 2.0)
    assert key() == first
    _write_header(tmp_path, "2.5", stamp)  # same size, modification time set back: the change time differs
    assert key() != first
    assert np.array_equal(opkit.function([x], node.outputs[0])(value), value * 2.0 + 2.5)


def test_a_header_found_through_cflags_or_cpath_set_in_the_same_process_reaches_the_key(tmp_path, monkeypatch):
    """The search folders are memoized on everything they come from: config.cflags and the environment."""
    from opkit.config import config

    first, second = tmp_path / "first", tmp_path / "second"
    for folder, offset in ((first, "1.0"), (second, "7.0")):
        folder.mkdir()
        _write_header(folder, offset)
    monkeypatch.delenv("CPATH", raising=False)
    node = Baked()(ot.dvector("x")).owner

    def key():
        return identity.region_key(collect_module(Region.from_nodes([node], lambda variable: True)))

    keys = {"none": key()}
    with config.change_flags(cflags=f"-I{first}"):
        keys["cflags first"] = key()
    with config.change_flags(cflags=f"-I{second}"):
        keys["cflags second"] = key()
    monkeypatch.setenv("CPATH", str(first))
    keys["CPATH first"] = key()
    monkeypatch.setenv("CPATH", str(second))
    keys["CPATH second"] = key()
    assert len(set(keys.values())) == len(keys), keys
    monkeypatch.delenv("CPATH")
    assert key() == keys["none"]


def test_the_py_objects_a_nodes_text_reads_follow_its_text():
    from opkit.cop.generate.node_code import _py_objects_read

    assert _py_objects_read("PyArray_TYPE(py_V3); V4 = 0;") == {"V3"}
    assert _py_objects_read("PyArray_TYPE(py_V3); py_V4 = 0;") == {"V3", "V4"}
    assert _py_objects_read("PyArray_TYPE(py_V3); V4 = 0;") == {"V3"}


def test_call_passes_each_keyword_only_to_a_method_that_takes_it():
    """The keyword names of a method are memoized per function object: a method redefined is asked again."""
    from opkit.cop.generate.cinterface import accepts, call

    class Plain:
        def c_extract(self, name, sub):
            return f"plain {name}"

    class Checked:
        def c_extract(self, name, sub, check_input=True):
            return f"checked {name} {check_input}"

    class Any:
        def c_extract(self, name, sub, **kwargs):
            return f"any {name} {sorted(kwargs.items())}"

    class Unhashable:
        __hash__ = None

        def __call__(self, name, sub, check_input=True):
            return f"unhashable {check_input}"

    instance = Plain()
    instance.c_headers = lambda c_compiler: ["x.h"]  # assigned on the instance, without self
    for _ in range(2):  # asked, then from the memo
        assert call(Plain(), "c_extract", "V1", {}, check_input=False) == "plain V1"
        assert call(Checked(), "c_extract", "V1", {}, check_input=False) == "checked V1 False"
        assert call(Any(), "c_extract", "V1", {}, check_input=False) == "any V1 [('check_input', False)]"
        assert call(instance, "c_headers", c_compiler=None) == ["x.h"]
        assert call(Plain(), "c_missing", default="none") == "none"
        assert accepts(Unhashable(), "check_input") and not accepts(Unhashable(), "c_compiler")
        assert not accepts(len, "check_input")  # a builtin without a signature takes no keyword
    Plain.c_extract = lambda self, name, sub, check_input=True: f"redefined {check_input}"
    assert call(Plain(), "c_extract", "V1", {}, check_input=False) == "redefined False"


def _content(context):
    from opkit.cop.generate.codegen import ModuleParts

    return ModuleParts(context, [], [], [], [], True).content()


def test_the_content_text_tells_every_two_contexts_apart():
    """Each string with its length, each list, tuple and dict with its size: pieces cannot be shifted across."""
    contexts = [["ab", "c"], ["a", "bc"], ["s1:a"], ["s1:", "a"], [["a"], "b"], [["a", "b"]], ("a", "b"), ["a", "b"],
                {"a": "b"}, {"a": ["b"]}, {"ab": ""}, [1], [True], ["1"], [None], ["None"], [1.0], [[]], [{}], [""],
                {"x": "d1:s1:a"}, {"x": "d1:", "s1:a": ""}, ["\0"], ["é"], ["e\u0301"]]
    contents = [_content(c) for c in contexts]
    assert len(set(contents)) == len(contexts)
    assert all(_content(c) == text for c, text in zip(contexts, contents))


def _contexts():
    from hypothesis import strategies as st

    leaves = st.one_of(st.text(max_size=6), st.integers(), st.none(), st.booleans(), st.floats(allow_nan=False))
    return st.recursive(leaves, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(st.text(max_size=4), inner, max_size=4)),
                        max_leaves=12)


def test_two_contexts_have_one_content_text_only_when_their_reprs_are_equal():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=100, deadline=None)  # 100 lists of up to 6 contexts (300: CI time, nothing more found)
    @given(st.lists(_contexts(), min_size=2, max_size=6))
    def check(contexts):
        by_content = {}
        for context in contexts:
            assert by_content.setdefault(_content(context), repr(context)) == repr(context)

    check()


def test_a_portable_content_leaves_out_the_folders_of_line_directives_only():
    from opkit.cop.generate.codegen import ModuleParts

    def portable(path):
        parts = ModuleParts({"code": [f'#line 3 "{path}"\nx = 1;', "y"]}, [], [], [], [], True)
        return identity.region_request(parts, identity.Toolchain(), portable=True).sources[0]

    assert portable("/a/b/op.c") == portable("/c/op.c") == portable("op.c")
    assert portable("/a/b/op.c") != portable("/a/b/other.c")
