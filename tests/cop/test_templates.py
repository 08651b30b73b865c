"""Rendered template macros are kept in the cache directory as a bounded memo (opkit.cop.generate.templates)."""

import pathlib

import opkit.cop.compiledir.layout as layout
import opkit.cop.generate.templates as templates
import opkit.cop.compiledir.text_memo as text_memo
from opkit.cop.compiledir.private_fs import write_sealed


def test_rendered_texts_are_kept_and_the_memo_is_emptied_past_its_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(layout, "host_dir", lambda: tmp_path / "host")
    monkeypatch.setattr(text_memo, "MAX_KEPT", 5)
    monkeypatch.setattr(templates, "_rendered", templates.BoundedMemo(8))
    monkeypatch.setattr(text_memo, "_pending", {})
    text_memo._rendered_dir.cache_clear()
    text_memo._bound.cache_clear()
    try:
        first = templates.render("make_vector.c.j2", "make_vector",
                                 {"out": "V1", "inputs": ["V2"], "ctypes": ["npy_int32"], "fail": "{ goto fail; }"})
        folder = text_memo._rendered_dir()
        assert not folder.exists()  # kept once a module's key exists, not while code is generated
        text_memo.flush()
        assert "npy_int32" in first and len(list(folder.iterdir())) == 1
        write_sealed(folder / next(folder.iterdir()).name, b"kept text")  # what a later process reads back
        monkeypatch.setattr(templates, "_rendered", templates.BoundedMemo(8))
        again = templates.render("make_vector.c.j2", "make_vector",
                                 {"out": "V1", "inputs": ["V2"], "ctypes": ["npy_int32"], "fail": "{ goto fail; }"})
        assert again == "kept text"
        for k in range(6):
            (folder / f"stale{k}").write_text("x")
        text_memo._bound.cache_clear()  # a new process; it reads a kept text: it lists nothing, removes nothing
        monkeypatch.setattr(templates, "_rendered", templates.BoundedMemo(8))
        assert templates.render("make_vector.c.j2", "make_vector",
                                {"out": "V1", "inputs": ["V2"], "ctypes": ["npy_int32"], "fail": "{ goto fail; }"}
                                ) == "kept text"
        assert len(list(folder.iterdir())) == 7
        other = templates.render("make_vector.c.j2", "make_vector",  # a text to add: 7 > 5, the folder is emptied
                                 {"out": "V1", "inputs": ["V2"], "ctypes": ["npy_int64"], "fail": "{ goto fail; }"})
        text_memo.flush()
        assert "npy_int64" in other and len(list(folder.iterdir())) == 1
    finally:
        text_memo._rendered_dir.cache_clear()
        text_memo._bound.cache_clear()


def test_compiled_templates_are_kept_in_the_cache_directory_for_the_next_process():
    environment = templates.environment()
    environment.get_template("elemwise.c.j2")
    text_memo.flush()  # what jinja2 compiled is written once a key exists
    folder = pathlib.Path(environment.bytecode_cache.directory)
    assert folder.parent.name == "host" and folder.name.startswith("jinja-")
    assert any(name.endswith(".cache") for name in (p.name for p in folder.iterdir()))


def test_the_templates_digest_changes_with_any_file_a_template_may_include(tmp_path):
    (tmp_path / "type.c.j2").write_text('{% include "extract.h" %}\n')
    (tmp_path / "extract.h").write_text("int a;\n")
    first = templates.files_digest(tmp_path)
    (tmp_path / "extract.h").write_text("int b;\n")  # included, not a .j2: rendered texts change all the same
    second = templates.files_digest(tmp_path)
    (tmp_path / "more.inc").write_text("x")
    assert len({first, second, templates.files_digest(tmp_path)}) == 3
    assert templates.files_digest(tmp_path) == templates.files_digest(tmp_path)
    shipped = templates.templates_digest()
    assert shipped == templates.files_digest(pathlib.Path(templates.__file__).parents[2] / "templates")


def test_a_rendered_text_is_named_by_its_template_and_every_file_it_refers_to(tmp_path):
    import jinja2.meta

    environment = templates.environment()
    for path in pathlib.Path(templates.TEMPLATES).iterdir():
        if path.is_file():  # the scan finds what jinja2 finds, in every shipped template
            found = jinja2.meta.find_referenced_templates(environment.parse(path.read_text()))
            assert templates.referenced_templates(path.read_text()) == set(found), path.name
    files = {"a.c.j2": '{% import "b.c.j2" as b %}{{ b.x() }}', "b.c.j2": '{%- include "c.h" -%}', "c.h": "int c;"}
    first = templates.closure_digest("a.c.j2", files.__getitem__)
    files["c.h"] = "int d;"  # two steps away, still part of a's name
    second = templates.closure_digest("a.c.j2", files.__getitem__)
    files["unrelated.c.j2"] = "x"
    assert first != second == templates.closure_digest("a.c.j2", files.__getitem__)
    assert templates.closure_digest("a.c.j2", {"a.c.j2": '{% include "gone.h" %}'}.__getitem__) is None
    for dynamic in ("{% include name %}", '{% include ["a.h", "b.h"] %}', "{% extends parent ~ '.j2' %}",
                    '{% include "a.h" ~ suffix %}', '{% include "a"~b %}', "{% include %}"):
        assert templates.referenced_templates(dynamic) is None  # then every file of the folder names the text
    assert templates.referenced_templates('{%- include\n"a.h" ignore missing with context -%}{% set from = 1 %}'
                                          '{% from "b.j2" import x %}') == {"a.h", "b.j2"}
    assert templates.template_digest("tensor_type.c.j2") != templates.template_digest("elemwise.c.j2")
