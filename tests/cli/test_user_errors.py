"""Errors a user reads: a compile error's traceback, malformed OPKIT_FLAGS, a closed pipe, an unwritable cache."""

import os
import subprocess
import sys
import textwrap

import pytest
from helpers.child import GRAPH_CHILD, _drop_root_powers, run_child

BAD_C = """\
#section support_code_apply
int APPLY_SPECIFIC(helper)(int x) { return x; }

#section code
OUTPUT_0 = INPUT_0 + undefined_thing;
"""

USER_SCRIPT = textwrap.dedent("""\
    import opkit, opkit.tensor as ot
    class Bad(opkit.COp):
        __props__ = ()
        def __init__(self):
            super().__init__("bad.c")
        def make_node(self, x):
            x = ot.as_tensor_variable(x)
            return opkit.Apply(self, [x], [x.type()])
    x = ot.dvector("x")
    f = opkit.function([x], Bad()(x))
""")


def test_a_compile_error_ends_with_the_users_line_the_node_and_the_kept_source(tmp_path):
    (tmp_path / "bad.c").write_text(BAD_C)
    (tmp_path / "user.py").write_text(USER_SCRIPT)
    result = subprocess.run([sys.executable, "user.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    frames = [line for line in lines if line.startswith('  File "')]
    assert frames[0].startswith(f'  File "{tmp_path / "user.py"}", line 10')
    assert len(frames) == 2 and "opkit/link/function.py" in frames[1], result.stderr  # no internal frames
    start = next(i for i, line in enumerate(lines) if line.startswith("opkit.CompileError: "))
    tail = lines[start + 1:]
    assert tail[0].startswith(f"{tmp_path / 'bad.c'}:5:") and "error:" in tail[0] and "undefined_thing" in tail[0]
    assert tail[1].startswith("full source kept at ") and tail[1].endswith(".cpp")
    assert os.path.exists(tail[1].removeprefix("full source kept at "))
    assert tail[-2:] == ["while compiling:", "  Bad(x)  [op __main__.Bad]"]


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["doctor"], ["list"], ["cache", "info"],
                                  ["new", "my_ops"], ["demo"]])
@pytest.mark.parametrize("flags, message", [
    ("bogus", "OPKIT_FLAGS entry 'bogus' is not name=value"),
    ("mode=FAST", "opkit flag mode='FAST' is not one of 'FAST_RUN', 'FAST_COMPILE', 'DebugMode'"),
])
def test_a_malformed_opkit_flags_is_one_line_in_every_command(tmp_path, argv, flags, message):
    result = subprocess.run([sys.executable, "-m", "opkit", *argv], cwd=tmp_path, capture_output=True, text=True,
                            env={**os.environ, "OPKIT_FLAGS": flags}, timeout=120)
    assert (result.returncode, result.stdout, result.stderr) == (1, "", f"opkit: error: {message}\n")
    assert not list(tmp_path.iterdir())  # `opkit new` made nothing


@pytest.mark.parametrize("argv", [["--help"], ["list"], ["list", "--json"], ["doctor"], ["cache", "info"]])
def test_output_to_a_closed_pipe_is_cut_short_quietly(argv):
    # `opkit list | head -1`, with the reader already gone: every write meets a closed pipe
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        writer = subprocess.run([sys.executable, "-m", "opkit", *argv], stdout=write_end, stderr=subprocess.PIPE,
                                text=True, timeout=120)
    finally:
        os.close(write_end)
    assert writer.stderr == "" and writer.returncode in (0, 1)  # 0: argparse itself ignores a closed pipe


def test_python_dash_m_opkit_runs_the_command():
    result = subprocess.run([sys.executable, "-m", "opkit", "--version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.startswith("opkit 0.")


# An unwritable cache location, checked in a child on which mode bits are enforced (see test_cache_env.py).
@pytest.mark.parametrize("case", ["read-only HOME", "0500 cache dir", "dir owned by another user"])
def test_an_unwritable_cache_location_is_one_error_with_the_right_fix(tmp_path, case, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    root = home / ".cache" / "opkit"
    monkeypatch.delenv("OPKIT_COMPILEDIR")  # the default location (an empty value is an error)
    env = {"HOME": str(home), "XDG_CACHE_HOME": ""}
    if case == "read-only HOME":
        home.chmod(0o500)
        expected = f"{home} is not writable, so "
        fix = f"`chmod u+rwx {home}`"
    elif case == "0500 cache dir":
        env["OPKIT_COMPILEDIR"] = str(root)
        root.mkdir(parents=True, mode=0o700)
        root.chmod(0o500)
        expected = fix = f"`chmod -R u+rwX {root}`"
    else:  # never loads another user's modules: an error, whose fix is chown
        env["OPKIT_COMPILEDIR"] = str(root)
        root.mkdir(parents=True, mode=0o755)
        os.chown(root, 54321, 54321)
        code = "import opkit, opkit.tensor as ot\nx = ot.lvector('x')\nopkit.function([x], x * 7 + 1)"
        result = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True,
                                text=True, timeout=300, preexec_fn=_drop_root_powers)
        os.chown(root, os.getuid(), os.getgid())
        assert result.returncode == 1
        assert result.stderr.strip().splitlines()[-2:] == [
            f"opkit.cop.compiledir.private_fs.UnsafeCacheDirError: refusing to load compiled modules from {root}: it is owned "
            f"by uid 54321, not by you (uid 0)",
            f"fix: sudo chown -R root {root} && chmod 700 {root}, or choose another compiledir "
            f"(OPKIT_COMPILEDIR=... or opkit.config.compiledir)"]
        return
    try:
        out = run_child(GRAPH_CHILD, "plain", "x * 7 + 1", "x * 5 - 2", env=env, unprivileged=True)
    finally:
        home.chmod(0o700)
    assert out["warnings"] == []
    for error in out["results"]:
        assert error.startswith("CacheNotWritableError: the compile cache "), error
        assert expected in error and fix in error, error
        assert "or set OPKIT_COMPILEDIR to a directory you can write" in error
