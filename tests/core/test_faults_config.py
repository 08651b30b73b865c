"""Flags that used to be accepted and then misbehave: an empty compiledir, NaN, negative and huge numbers.

Every flag of opkit/config.py is tried with the same bad values; each numeric one must refuse them
with a message naming the flag, in Python, in OPKIT_FLAGS and in every `opkit` command (one line).
"""

import math
import os
import subprocess
import sys

import pytest

import opkit
from opkit.config import MAX_THREADS, Config, config, flag_help

# The values a script gets wrong: NaN, infinities, negative, huge, not a number, empty.
BAD_TEXT = ["nan", "NaN", "inf", "-inf", "-1", "-0.5", "1" + "0" * 30, "1e400", "soon", ""]
BAD_PYTHON = [math.nan, math.inf, -math.inf, -1, -0.5, 10**30, 1e300, True, "soon", None]
# Flags whose value is free text (a command, flags, a -march= name): any word is theirs to keep.
TEXT_FLAGS = {"cxx", "cflags", "march"}
# Flags whose empty value is a documented setting: off (no sanitizer, false).
EMPTY_IS_OFF = {"sanitize", "openmp", "incremental", "python_fallback", "profile", "verbose", "cmodule__debug",
                "blas__ldflags"}  # empty link flags: no BLAS


def numeric_flags():
    """Return every flag whose default is a number (not a bool): found from config.py, not listed by hand."""
    return sorted(name for name, default, _ in flag_help()
                  if isinstance(default, (int, float)) and not isinstance(default, bool))


def opkit_command(*args, **environ):
    env = {k: v for k, v in os.environ.items() if k not in ("OPKIT_FLAGS", "OMP_NUM_THREADS")}
    env.update(environ)
    return subprocess.run([sys.executable, "-m", "opkit", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def run_python(code, **environ):
    env = {k: v for k, v in os.environ.items() if k not in ("OPKIT_FLAGS", "OMP_NUM_THREADS")}
    env.update(environ)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_the_numeric_flags_are_the_ones_this_file_knows():
    # A new numeric flag is tried by every test below without being named here; this says which they are.
    assert numeric_flags() == ["cache_max_bytes", "compile_lock_timeout", "compile_timeout", "threads"]


@pytest.mark.parametrize("name", [name for name, _, _ in flag_help()])
@pytest.mark.parametrize("value", BAD_TEXT)
def test_every_flag_refuses_or_keeps_as_text_a_bad_value_in_opkit_flags(name, value):
    try:
        parsed = Config(environ={"OPKIT_FLAGS": f"{name}={value}"})
    except ValueError as exc:
        assert str(exc).startswith((f"opkit flag {name}={value!r} must be ",
                                    f"opkit flag {name}={value!r} is not one of ")), str(exc)
        return
    if value == "" and name in EMPTY_IS_OFF:
        assert getattr(parsed, name) in ("", False)
    else:
        assert name in TEXT_FLAGS, f"{name}={value!r} was accepted as {getattr(parsed, name)!r}"
        assert getattr(parsed, name) == value


@pytest.mark.parametrize("name", numeric_flags())
@pytest.mark.parametrize("value", BAD_PYTHON, ids=repr)
def test_every_numeric_flag_refuses_a_bad_value_set_from_python(name, value):
    before = getattr(config, name)
    with pytest.raises(ValueError) as excinfo:
        setattr(config, name, value)
    assert str(excinfo.value).startswith(f"opkit flag {name}={value!r} must be a ")
    with pytest.raises(ValueError):
        with config.change_flags(**{name: value}):
            pass
    assert getattr(config, name) == before


@pytest.mark.parametrize("flags,message", [
    ("compile_lock_timeout=nan", "opkit flag compile_lock_timeout='nan' must be a finite number of seconds from 0 to "
                                 "1000000"),
    ("compile_lock_timeout=-1", "opkit flag compile_lock_timeout='-1' must be a finite number of seconds from 0 to "
                                "1000000"),
    ("compile_lock_timeout=soon", "opkit flag compile_lock_timeout='soon' must be a number of seconds"),
    ("compile_timeout=0", "opkit flag compile_timeout='0' must be a finite number of seconds above 0 and at most "
                          "1000000"),
    ("compile_timeout=inf", "opkit flag compile_timeout='inf' must be a finite number of seconds above 0 and at "
                            "most 1000000"),
    ("cache_max_bytes=-1", "opkit flag cache_max_bytes='-1' must be a finite whole number of bytes from 0 to "
                           "9223372036854775807"),
    ("cache_max_bytes=1.5", "opkit flag cache_max_bytes='1.5' must be a whole number of bytes"),
    ("threads=3000000000", f"opkit flag threads='3000000000' must be a whole number from 1 to {MAX_THREADS}"),
    ("threads=0", f"opkit flag threads='0' must be a whole number from 1 to {MAX_THREADS}"),
    ("threads=nan", f"opkit flag threads='nan' must be a whole number from 1 to {MAX_THREADS}"),
    ("compiledir=", "opkit flag compiledir='' must be an absolute directory path (e.g. ~/.cache/opkit); an empty "
                    "value would put compiled modules in the working directory"),
    ("compiledir=cache", "opkit flag compiledir='cache' must be an absolute directory path (e.g. ~/.cache/opkit); "
                         "a relative path would put compiled modules in the working directory"),
])
def test_bad_values_are_one_clear_error_line_in_every_opkit_command(flags, message):
    with pytest.raises(ValueError) as excinfo:
        Config(environ={"OPKIT_FLAGS": flags})
    assert str(excinfo.value) == message
    result = opkit_command("--version", OPKIT_FLAGS=flags)
    assert (result.returncode, result.stdout, result.stderr) == (1, "", f"opkit: error: {message}\n")


def test_good_values_are_still_taken():
    parsed = Config(environ={"OPKIT_FLAGS": "compile_lock_timeout=0,compile_timeout=2.5,cache_max_bytes=0,"
                                            f"threads={MAX_THREADS},compiledir=~/x"})
    assert (parsed.compile_lock_timeout, parsed.compile_timeout, parsed.cache_max_bytes, parsed.threads) == \
        (0.0, 2.5, 0, MAX_THREADS)
    assert parsed.compiledir == os.path.join(os.path.expanduser("~"), "x")
    with config.change_flags(cache_max_bytes=3.0, compile_timeout=1):
        assert config.cache_max_bytes == 3 and config.compile_timeout == 1.0


@pytest.mark.parametrize("value,shown", [("", "an empty value"), ("cache", "a relative path"),
                                          ("./cache", "a relative path")])
def test_an_empty_or_relative_opkit_compiledir_is_an_error_naming_it(value, shown, tmp_path):
    with pytest.raises(ValueError) as excinfo:
        Config(environ={"OPKIT_COMPILEDIR": value})
    message = (f"OPKIT_COMPILEDIR={value!r} must be an absolute directory path (e.g. ~/.cache/opkit); {shown} would "
               "put compiled modules in the working directory")
    assert str(excinfo.value) == message
    result = opkit_command("cache", "info", OPKIT_COMPILEDIR=value)
    assert (result.returncode, result.stderr) == (1, f"opkit: error: {message}\n")
    with pytest.raises(ValueError) as excinfo:
        config.compiledir = value
    assert str(excinfo.value) == message.replace("OPKIT_COMPILEDIR=", "opkit flag compiledir=")


def test_an_empty_compiledir_never_makes_the_working_directory_the_cache(tmp_path):
    """`OPKIT_FLAGS=compiledir=$UNSET`: compiling fails with the flag's name, and writes nothing in the cwd."""
    code = ("import numpy as np, opkit, opkit.tensor as ot\n"
            "x = ot.lvector('x')\n"
            "try:\n"
            "    opkit.function([x], x * 3 + 1)(np.arange(3))\n"
            "except ValueError as exc:\n"
            "    print(exc)\n")
    env = {k: v for k, v in os.environ.items() if k not in ("OPKIT_FLAGS", "OPKIT_COMPILEDIR")}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                            env={**env, "OPKIT_FLAGS": "compiledir="})
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("opkit flag compiledir='' must be an absolute directory path")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("value", ["3000000000", "0", "-2", "many", "9" * 5000])
def test_a_bad_omp_num_threads_warns_and_falls_back_to_the_cores(value):
    code = ("import os, warnings\n"
            "warnings.simplefilter('always')\n"
            "import opkit\n"
            "from opkit.config import threads_cell_address\n"
            "import ctypes\n"
            "print(opkit.config.threads, ctypes.c_int.from_address(threads_cell_address()).value,"
            " len(os.sched_getaffinity(0)))\n")
    result = run_python(code, OMP_NUM_THREADS=value)
    assert result.returncode == 0, result.stderr
    threads, published, cores = result.stdout.split()
    assert threads == published == cores
    warning = [line for line in result.stderr.splitlines() if "RuntimeWarning" in line]
    assert len(warning) == 1
    assert warning[0].endswith(f"RuntimeWarning: OMP_NUM_THREADS={value!r} is not a thread count from 1 to "
                               f"{MAX_THREADS}: opkit runs large loops on up to {cores} threads (the cores this "
                               "process may run on); set OPKIT_FLAGS=threads=N to choose")


def test_a_good_omp_num_threads_is_taken_without_a_word():
    result = run_python("import opkit; print(opkit.config.threads)", OMP_NUM_THREADS="3,1",
                        PYTHONWARNINGS="error")
    assert (result.returncode, result.stdout, result.stderr) == (0, "3\n", "")


def test_huge_threads_in_opkit_flags_leave_import_opkit_working():
    code = ("import opkit\n"
            "try:\n"
            "    opkit.config.threads\n"
            "except ValueError as exc:\n"
            "    print(exc)\n")
    result = run_python(code, OPKIT_FLAGS="threads=3000000000", OMP_NUM_THREADS="3000000000",
                        PYTHONWARNINGS="ignore")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"opkit flag threads='3000000000' must be a whole number from 1 to {MAX_THREADS}\n"


def test_config_threads_is_the_value_compiled_modules_read():
    import ctypes

    from opkit.config import threads_cell_address

    with config.change_flags(threads=MAX_THREADS):
        assert ctypes.c_int.from_address(threads_cell_address()).value == MAX_THREADS
    assert opkit.config.threads == ctypes.c_int.from_address(threads_cell_address()).value
