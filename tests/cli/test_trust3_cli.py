"""Trust 3, CLI items: usage errors exit 2 with the command's usage line; other failures are one `opkit: error:` line."""

import argparse
import os
import subprocess
import sys

import pytest

from opkit.cli import build_parser, main


def run(capsys, *argv):
    """Run `opkit *argv` in-process; return (exit status, stdout, stderr)."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _subcommands(parser, prefix=()):
    """Yield the argv prefix of every (sub)command of `parser`, nested ones (cache info) included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name)
                yield from _subcommands(sub, (*prefix, name))


# One usage error (or more) for every command: argv, then a piece of the reason.
USAGE_ERRORS = [
    (["list", "--bogus"], "unrecognized arguments: --bogus"),
    (["info"], "the following arguments are required: OP"),
    (["info", "summ"], "no installed opkit plugin registers the op 'summ'\ndid you mean 'sum'?"),
    (["show", "add"], "the following arguments are required: --dtypes"),
    (["show", "add", "--dtypes", ","], "--dtypes ',' names no dtype; give one per input"),
    (["show", "neg", "--dtypes", "floot64"], "--dtypes: 'floot64' is neither a numpy dtype nor a registered type"),
    (["show", "add", "--dtypes", "float64,float64", "--ndims", "x"],
     "--ndims must be integers separated by commas, got 'x'"),
    (["show", "add", "--dtypes", "float64,float64", "--ndims", "1"], "--ndims gives 1 ranks for 2 --dtypes"),
    (["show", "add", "--dtypes", "float64,float64", "--ndims", "1,-1"], "--ndims 1,-1: a rank cannot be negative"),
    (["show", "dot", "--dtypes", "float64"], "dot takes 2 input(s); --dtypes gives 1 (float64)"),
    (["show", "dot", "--dtypes", "float64,float64", "--ndims", "3,3"],
     "dot.make_node rejected inputs (TensorType(float64, tensor3), TensorType(float64, tensor3)): dot takes "
     "vectors and matrices"),
    (["build", "nothing", "--dtypes", "float64"], "no installed opkit plugin registers the op 'nothing'"),
    (["build", "add", "--dtypes", "float64,float64", "--into", "{tmp}"],
     "--into {tmp}: not the source directory of the package 'opkit' that defines add"),
    (["check"], "the following arguments are required: OP|FILE|DIR"),
    (["check", "nothing"], "'nothing' is neither a file, a directory nor an installed op"),
    (["cache", "--bogus"], "unrecognized arguments: --bogus"),
    (["cache", "bogus"], "argument ACTION: invalid choice: 'bogus'"),
    (["cache", "info", "--bogus"], "unrecognized arguments: --bogus"),
    (["cache", "prune", "--max-bytes", "-1"], "argument --max-bytes: --max-bytes must be at least 0, not -1"),
    (["cache", "prune", "--max-bytes", "ten"], "argument --max-bytes: --max-bytes must be a whole number, not 'ten'"),
    (["cache", "clear", "now"], "unrecognized arguments: now"),
    (["new"], "the following arguments are required: NAME"),
    (["new", "2fast"], "'2fast' cannot name an op package: it must make a Python identifier"),
    (["new", "class"], "'class' cannot name an op package"),
    (["new", "my ops"], "'my ops' cannot name an op package"),
    (["new", ""], "'' cannot name an op package"),
    (["new", "json"], "'json' would shadow the module 'json'; choose another name (e.g. my_json)"),
    (["new", "add"], "'add' would shadow the built-in op opkit.ops.add"),
    (["new", "a" * 300], "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'... (300 characters) is too long: the file system "
                         "of {tmp} holds file names of at most"),
    (["doctor", "--bogus"], "unrecognized arguments: --bogus"),
    (["demo", "--size", "0"], "argument --size: --size must be at least 1, not 0"),
    (["demo", "--repeat", "x"], "argument --repeat: --repeat must be a whole number, not 'x'"),
]


def test_every_command_has_a_usage_error_tested():
    tested = {tuple(argv[:2]) if argv[0] == "cache" and len(argv) > 1 and argv[1] in ("info", "prune", "clear")
              else (argv[0],)
              for argv, _ in USAGE_ERRORS}
    assert set(_subcommands(build_parser())) - {("cache",)} == tested - {("cache",)}
    assert ("cache",) in tested


@pytest.mark.parametrize("argv, reason", USAGE_ERRORS, ids=[" ".join(a)[:40] for a, _ in USAGE_ERRORS])
def test_usage_errors_exit_2_with_the_commands_usage_line(capsys, tmp_path, argv, reason):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    reason = reason.replace("{tmp}", str(tmp_path))
    if argv[0] == "new":
        argv += ["--directory", str(tmp_path)]
    status, out, err = run(capsys, *argv)
    nested = argv[0] == "cache" and len(argv) > 1 and argv[1] in ("info", "prune", "clear")
    command = " ".join(argv[:2]) if nested else argv[0]
    assert (status, out) == (2, "")
    assert err.startswith(f"usage: opkit {command}"), err
    assert f"\nopkit {command}: error: {reason}" in err, err
    assert "Traceback" not in err
    assert os.listdir(tmp_path) == []  # nothing made, nothing built into --into


def test_a_300_character_name_is_one_usage_error_from_the_real_command(tmp_path):
    """F15: the console script, not a traceback (the name was an OSError from makedirs)."""
    result = subprocess.run([sys.executable, "-m", "opkit", "new", "n" * 300, "--directory", str(tmp_path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    usage, error = result.stderr.splitlines()
    assert usage.startswith("usage: opkit new ")
    assert error.startswith("opkit new: error: 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn'... (300 characters) is "
                            "too long: the file system of ")
    assert error.endswith("so NAME may have at most 238 characters; choose a shorter name (e.g. my_ops)")


def test_the_longest_name_the_file_system_allows_is_accepted(capsys, tmp_path):
    longest = os.pathconf(tmp_path, "PC_NAME_MAX") - len("test_.py.~") - 7
    status, _, err = run(capsys, "new", "b" * (longest + 1), "--directory", str(tmp_path))
    assert status == 2 and f"so NAME may have at most {longest} characters" in err
    status, out, err = run(capsys, "new", "b" * longest, "--directory", str(tmp_path))
    assert status == 0, err
    assert os.path.isfile(tmp_path / ("b" * longest) / "tests" / f"test_{'b' * longest}.py")


def test_a_directory_opkit_cannot_create_is_one_error_line(capsys, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    status, out, err = run(capsys, "new", "my_ops", "--directory", str(blocker))
    assert (status, out) == (1, "")
    assert err == (f"opkit: error: cannot create the project in {blocker}/my_ops: {blocker}/my_ops: Not a "
                   "directory; check --directory (it must be a directory you can write, or one opkit can "
                   "create)\n")
    status, out, err = run(capsys, "new", "my_ops", "--directory", str(blocker / "deeper"))
    assert status == 1 and err.startswith("opkit: error: cannot create the project in ") and "\n" == err[-1]
    assert err.count("\n") == 1


def test_failures_that_are_not_usage_errors_still_exit_1(capsys, tmp_path):
    assert run(capsys, "new", "my_ops", "--directory", str(tmp_path))[0] == 0
    status, _, err = run(capsys, "new", "my_ops", "--directory", str(tmp_path))
    assert status == 1 and err == f"opkit: error: {tmp_path}/my_ops already exists; choose another NAME or remove it\n"
    status, _, err = run(capsys, "show", "argmax", "--dtypes", "float16")  # float16: numpy's argmax
    assert status == 1 and err.startswith("opkit: error: argmax has no C code for")
