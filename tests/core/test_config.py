"""opkit.config: OPKIT_FLAGS / OPKIT_COMPILEDIR parsing and change_flags."""

import os
import subprocess
import sys

import pytest

import opkit
from opkit.config import Config, flag_help

FLAG_NAMES = sorted(name for name, _, _ in flag_help())


def run_python(code, **environ):
    """Run `code` in a fresh interpreter with extra environment variables; return the process."""
    env = {k: v for k, v in os.environ.items() if k != "OPKIT_FLAGS"}
    env.update(environ)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_opkit_flags_set_floatx_for_constructors():
    code = "import opkit.tensor as ot, opkit\nprint(ot.matrix().dtype, ot.vector().dtype, opkit.config.floatX)"
    result = run_python(code, OPKIT_FLAGS="floatX=float32")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["float32", "float32", "float32"]


def test_opkit_flags_take_several_flags_with_spaces():
    code = "import opkit\nprint(opkit.config.floatX, opkit.config.mode, opkit.config.cflags)"
    result = run_python(code, OPKIT_FLAGS=" floatX=float32 , mode=FAST_COMPILE,cflags=-O1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["float32", "FAST_COMPILE", "-O1"]


def test_an_unknown_flag_is_an_error_listing_the_valid_flags():
    assert run_python("import opkit", OPKIT_FLAGS="floatx=float32").returncode == 0  # never at import
    result = run_python("import opkit\nopkit.config.floatX", OPKIT_FLAGS="floatx=float32")
    assert result.returncode != 0
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line == ("ValueError: OPKIT_FLAGS: unknown opkit flag 'floatx'. Did you mean 'floatX'? "
                         f"Valid flags: {', '.join(FLAG_NAMES)}")


def test_opkit_compiledir_sets_the_cache_directory(tmp_path):
    code = "import opkit\nprint(opkit.config.compiledir)"
    result = run_python(code, OPKIT_COMPILEDIR=str(tmp_path / "cache"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(tmp_path / "cache")
    # OPKIT_COMPILEDIR wins over a compiledir in OPKIT_FLAGS
    result = run_python(code, OPKIT_COMPILEDIR=str(tmp_path / "env"), OPKIT_FLAGS=f"compiledir={tmp_path / 'flag'}")
    assert result.stdout.strip() == str(tmp_path / "env")


def test_the_default_compiledir_is_in_the_user_cache(tmp_path):
    config = Config(environ={})
    assert os.sep + os.path.join("opkit", "") in config.compiledir
    assert Config(environ={"OPKIT_COMPILEDIR": "~/somewhere"}).compiledir == os.path.expanduser("~/somewhere")


@pytest.mark.parametrize("flags,message", [
    ("floatX=float8", "opkit flag floatX='float8' is not one of 'float64', 'float32', 'float16'"),
    ("mode=FAST", "opkit flag mode='FAST' is not one of 'FAST_RUN', 'FAST_COMPILE', 'DebugMode'"),
    ("floatX", "OPKIT_FLAGS entry 'floatX' is not name=value"),
    ("compile_lock_timeout=soon", "opkit flag compile_lock_timeout='soon' must be a number of seconds"),
    ("python_fallback=maybe", "opkit flag python_fallback='maybe' must be true or false"),
    ("colour=blue", f"OPKIT_FLAGS: unknown opkit flag 'colour'. Valid flags: {', '.join(FLAG_NAMES)}"),
])
def test_bad_flags_are_rejected(flags, message):
    with pytest.raises(ValueError) as excinfo:
        Config(environ={"OPKIT_FLAGS": flags})
    assert str(excinfo.value) == message


def test_flag_values_are_converted():
    config = Config(environ={"OPKIT_FLAGS": "compile_lock_timeout=2.5,cache_max_bytes=1000,python_fallback=yes"})
    assert config.compile_lock_timeout == 2.5
    assert config.cache_max_bytes == 1000
    assert config.python_fallback is True


def test_change_flags_restores_the_old_values():
    config = opkit.config
    before = (config.floatX, config.mode)
    with config.change_flags(floatX="float32", mode="FAST_COMPILE"):
        assert (config.floatX, config.mode) == ("float32", "FAST_COMPILE")
        import opkit.tensor as ot

        assert ot.matrix().dtype == "float32"
        with config.change_flags(floatX="float16"):
            assert config.floatX == "float16"
        assert config.floatX == "float32"
    assert (config.floatX, config.mode) == before


def test_change_flags_restores_after_an_exception():
    before = opkit.config.floatX
    with pytest.raises(RuntimeError, match="inside"):
        with opkit.config.change_flags(floatX="float32"):
            raise RuntimeError("inside")
    assert opkit.config.floatX == before


def test_change_flags_rejects_bad_changes_and_keeps_the_others():
    before = (opkit.config.floatX, opkit.config.mode)
    with pytest.raises(ValueError, match="opkit flag mode='SLOW' is not one of"):
        with opkit.config.change_flags(floatX="float32", mode="SLOW"):
            pass  # not reached
    with pytest.raises(AttributeError, match="unknown opkit flag 'floatz'. Did you mean 'floatX'"):
        with opkit.config.change_flags(floatz="float32"):
            pass  # not reached
    assert (opkit.config.floatX, opkit.config.mode) == before


def test_change_flags_as_a_decorator():
    before = opkit.config.floatX

    @opkit.config.change_flags(floatX="float16")
    def current_floatx():
        return opkit.config.floatX

    assert current_floatx() == "float16"
    assert current_floatx() == "float16"  # reusable
    assert opkit.config.floatX == before


def test_unknown_attributes_are_rejected():
    with pytest.raises(AttributeError, match=f"unknown opkit flag 'floatx'. Did you mean 'floatX'\\? "
                                             f"Valid flags: {', '.join(FLAG_NAMES)}"):
        opkit.config.floatx
    with pytest.raises(AttributeError, match="unknown opkit flag 'speed'"):
        opkit.config.speed = "fast"


def test_config_lists_its_flags():
    assert set(FLAG_NAMES) >= {"floatX", "compiledir", "cxx", "mode", "cflags"}
    assert set(FLAG_NAMES) <= set(dir(opkit.config))
    assert "floatX=" in repr(opkit.config)
