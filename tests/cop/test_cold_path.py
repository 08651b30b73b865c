"""The first cold path stays natural: generating a module's code writes nothing to the compile cache before the
module's key exists, and the compiler is probed once per process, however many modules it builds."""

import os
import subprocess
import sys
import textwrap

import opkit.tensor as ot
from opkit.config import config
from opkit.cop.compiledir import text_memo
from opkit.cop.generate import templates
from opkit.cop.generate.codegen import collect_module, render_parts
from opkit.cop.generate.region import Region


def _files(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, names in os.walk(root) for f in names)


def test_generating_code_writes_nothing_to_the_cache_until_a_key_exists(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setattr(text_memo, "_pending", {})
    monkeypatch.setattr(templates, "_rendered", {})  # as in a new process: another test may have rendered these
    text_memo._rendered_dir.cache_clear()
    x = ot.dvector("x")
    node = (ot.exp(x) * 3 + x).owner
    with config.change_flags(compiledir=str(root)):
        try:
            parts = collect_module(Region.from_nodes([node], lambda variable: True))
            render_parts(parts)
            assert not root.exists()  # neither the rendered texts nor jinja2's compiled templates yet
            assert text_memo._pending  # made, kept for the flush
            text_memo.flush()
            kept = _files(root)
            assert any(name.startswith(os.path.join("host", "rendered")) for name in kept), kept
            assert not text_memo._pending
        finally:
            text_memo._rendered_dir.cache_clear()


def test_a_cache_that_cannot_be_written_keeps_no_text_and_says_nothing(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setattr(text_memo, "_pending", {})
    text_memo.keep_later(blocked / "host" / "rendered" / "a", b"text")
    text_memo.flush()  # an OSError (a file where a folder belongs) keeps nothing, raises nothing
    assert blocked.read_text() == "not a folder" and not text_memo._pending


PROBES = textwrap.dedent("""
    import collections, numpy as np, opkit, opkit.tensor as ot
    from opkit.cop.toolchain import compiler, host
    calls = collections.Counter()

    def counted(module, name):
        real = getattr(module, name)

        def wrapper(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)

        setattr(module, name, wrapper)

    for module, name in ((compiler, "_locate"), (compiler, "_ask_identity"), (host, "_probe_native"),
                         (host, "_probe_openmp"), (host, "_probe_linker")):
        counted(module, name)
    x = ot.dvector("x")
    for k in range(3):  # three modules built, one after another
        f = opkit.function([x], ot.exp(x) * (k + 2.5) + x)
        assert np.allclose(f(np.arange(3.0)), np.exp(np.arange(3.0)) * (k + 2.5) + np.arange(3.0))
    print(dict(calls))
""")


def test_the_compiler_is_probed_once_per_process(tmp_path):
    env = dict(os.environ, OPKIT_COMPILEDIR=str(tmp_path / "cache"), OPKIT_NO_PCH="1")
    run = subprocess.run([sys.executable, "-c", PROBES], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr
    calls = eval(run.stdout.strip().splitlines()[-1])
    assert calls.get("_locate") == 1 and calls.get("_ask_identity") == 1, calls
    assert all(count <= 1 for count in calls.values()), calls
