"""Errors a user reads: a compile error's traceback, a malformed OPKIT_FLAGS in every `opkit` command."""

import os
import subprocess
import sys
import textwrap

import pytest

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
