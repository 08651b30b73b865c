"""Modules link with GNU gold where the compiler can (a third of the default GNU ld's time: ld.bfd reads
libstdc++'s symbols for every module), else with the compiler's own linker; a flag gold refuses falls back
to that linker. The linker is not part of a module's identity: the key and the numbers are the same."""

import shutil
import warnings

import numpy as np

import opkit
import opkit.tensor as ot
from opkit.cop.toolchain import host
from opkit.cop.toolchain.compiler import find_compiler

GOLD_NOTE = b".note.gnu.gold-version"  # the section gold adds to what it links (ld.bfd adds none)


def _compiled(cache, **flags):
    """Compile exp(x) * 3 + x in the cache directory `cache`, check it against numpy, return its modules' bytes."""
    x = ot.dvector("x")
    values = np.linspace(-2.0, 2.0, 7)
    with opkit.config.change_flags(compiledir=str(cache), **flags):
        f = opkit.function([x], ot.exp(x) * 3 + x)
        np.testing.assert_array_equal(f(values), np.exp(values) * 3 + values)
    modules = [path.read_bytes() for path in cache.rglob("opkit_*.so")]
    assert modules, f"no module under {cache}"
    return modules


def test_modules_link_with_gold_where_the_compiler_can(tmp_path):
    modules = _compiled(tmp_path / "cache")
    if shutil.which("ld.gold"):
        assert host.fast_linker_args(find_compiler()) == ("-fuse-ld=gold",)
        assert all(GOLD_NOTE in module for module in modules)
    else:  # no gold (another platform, binutils without it): the compiler's own linker, as before
        assert host.fast_linker_args(find_compiler()) == ()
        assert not any(GOLD_NOTE in module for module in modules)


def test_a_link_flag_gold_refuses_links_with_the_compilers_own_linker(tmp_path):
    # ld.bfd has taken --force-group-allocation since binutils 2.29; gold refuses it. The precompiled header
    # is built with it too, compile only: no "could not build its precompiled header" (the driver linked it).
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        modules = _compiled(tmp_path / "cache", cflags="-Wl,--force-group-allocation")
    assert not any(GOLD_NOTE in module for module in modules)
    assert list((tmp_path / "cache" / "pch").rglob("*.gch"))
