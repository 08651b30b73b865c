"""One identity: everything that changes what a compiler makes changes every key that covers it.

Each key is the key of a request (opkit.cop.toolchain.identity.CompileRequest): exactly what the
compiler receives. This file changes each input of those requests, one at a time, and checks
which keys change: each must change when it covers the input, and stay when it does not.

The keys (columns):
- module: the module cache's (region_key; module_key and an incremental chunk's take the same request);
- shipped: a shipped module's (portable: no compiler, no paths; Python's ABI and numpy's C-API, not the
  bytes of this machine's Python and numpy headers, which differ from the building machine's);
- token: a node's code identity with the function's flags, as pickle and Dask tokens hold them (no compiler,
  no system: a function pickled here runs the same code elsewhere);
- pch: the precompiled header's (the compiler, opkit's flags, Python's and numpy's headers);
- kernel: a node's CUDA kernels' (NVRTC's version, the architecture, every option and header);
- shipped_kernel: a shipped kernel's (the same request, portable: no NVRTC version, no folders);
- version: the COp's c_code_cache_version (its files and the headers found through its own folders and arguments).

The inputs (rows): each flag (the op's compile arguments, defines, -O, -march, include and library folders,
libraries; config.cflags, march, openmp, cmodule__debug, sanitize; the compiler command), each header byte (a
user header, nested or found through -I; a numpy header and numpy's API version, in a copy of numpy's include
folder that numpy.get_include() names, edited in place as an upgrade would; Python.h in a copy of Python's,
which sysconfig names; Python's ABI), and each NVRTC input (--fmad, -arch, the op's c_kernel_options, a header
found through --include-path, NVRTC's version). Nothing here mocks a compiler: test_a_numpy_upgraded_in_place
builds and runs modules against the edited headers.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.cop import kernels
from opkit.cop.toolchain import identity, system_headers
from opkit.cop.toolchain.compiler import find_compiler, python_include_dirs
from opkit.cop.toolchain.flags import build_flags
from opkit.cop.toolchain.pch import pch_key
from opkit.cop.generate.codegen import collect_module
from opkit.cop.generate.region import Region
from opkit.cop.store.shipped import shipped_key
from opkit.gpu.shipped_kernels import shipped_kernel_key
from opkit.link.pickling import graph_recipe, graph_token, node_identities

KEYS = ("module", "shipped", "token", "pch", "kernel", "shipped_kernel", "version")
HOST = {"module", "shipped", "token"}  # what an op's own flags reach: its module, wherever it is built
FLAGS = {"module", "shipped", "token", "pch"}  # what opkit's flags reach (opkit's flags build the PCH too)
SYSTEM = {"module", "pch"}  # this machine's Python and numpy headers
NVRTC = {"kernel", "shipped_kernel"}

OP_FILE = """\
#section support_code
#include <user_scale.h>
#if __has_include(<op_extra.h>)
#include <op_extra.h>
#endif
#if __has_include(<cflags_extra.h>)
#include <cflags_extra.h>
#endif

#section code
Py_XDECREF(OUTPUT_0);
OUTPUT_0 = (PyArrayObject*)PyArray_NewCopy(INPUT_0, NPY_CORDER);
if (!OUTPUT_0) FAIL;
{
    npy_intp n = PyArray_SIZE(OUTPUT_0);
    double* v = (double*)PyArray_DATA(OUTPUT_0);
    for (npy_intp i = 0; i < n; ++i) v[i] = v[i] * USER_SCALE + 0;
}

#section kernels
#include "user_scale.h"
#include <nv_extra.h>
extern "C" __global__ void APPLY_SPECIFIC(scale)(npy_intp n, const DTYPE_INPUT_0* x, DTYPE_OUTPUT_0* y)
{
    npy_intp i = (npy_intp)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * USER_SCALE * NV_EXTRA + 0;
}
"""


class Scaled(opkit.COp):
    """y = x * USER_SCALE from a user's .c file and headers; its flags are class attributes a test sets."""

    __props__ = ("path",)
    HEADER_DIRS: tuple = ()
    COMPILE_ARGS: tuple = ()
    LIBRARIES: tuple = ()
    LIB_DIRS: tuple = ()
    KERNEL_OPTIONS: tuple = ()

    def __init__(self, path):
        self.path = str(path)
        super().__init__(self.path)

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def c_header_dirs(self, c_compiler=None):
        return [*super().c_header_dirs(c_compiler), *self.HEADER_DIRS]

    def c_compile_args(self, c_compiler=None):
        return list(self.COMPILE_ARGS)

    def c_libraries(self, c_compiler=None):
        return list(self.LIBRARIES)

    def c_lib_dirs(self, c_compiler=None):
        return list(self.LIB_DIRS)

    def c_kernel_options(self, node):
        return list(self.KERNEL_OPTIONS)


class OpFiles:
    """The files of one test: the op's .c file, its headers (one nested), a folder NVRTC finds a header in."""

    def __init__(self, root: pathlib.Path):
        self.root = root
        self.c_file = root / "op" / "scaled.c"
        self.headers = root / "headers"
        self.nvrtc_headers = root / "nvrtc_headers"
        for folder in (self.c_file.parent, self.headers, self.nvrtc_headers, root / "empty", root / "libs",
                       root / "op_extra", root / "cflags_extra"):
            folder.mkdir(parents=True)
        (root / "op_extra" / "op_extra.h").write_text("#define OP_EXTRA 1\n")
        (root / "cflags_extra" / "cflags_extra.h").write_text("#define CFLAGS_EXTRA 1\n")
        (root / "pre.h").write_text("#define PRE_INCLUDED 1\n")
        self.c_file.write_text(OP_FILE)
        (self.headers / "user_scale.h").write_text('#include "user_nested.h"\n#define USER_SCALE (2 * NESTED)\n')
        (self.headers / "user_nested.h").write_text("#define NESTED 1\n")
        (self.nvrtc_headers / "nv_extra.h").write_text("#define NV_EXTRA 1\n")
        self.arch, self.options, self.nvrtc = "sm_80", [f"--include-path={self.nvrtc_headers}"], "nvrtc 12.9"

    def keys(self) -> dict:
        """Return every key of a node of the op, from what the process sees now."""
        op = Scaled(self.c_file)
        x = ot.dvector("x")
        y = op(x)
        node = y.owner
        parts = collect_module(Region.from_nodes([node], lambda variable: True))
        kernel = kernels.kernel_request(node, self.arch, self.options, nvrtc=self.nvrtc)
        return {"module": identity.region_key(parts), "shipped": shipped_key(parts),
                "token": graph_token(graph_recipe([x], [y]), opkit.Mode(), True, node_identities([x], [y])),
                "pch": pch_key(find_compiler(), build_flags()[0], python_include_dirs()),
                "kernel": identity.request_key(kernel, kernels.KERNEL_FORMAT),
                "shipped_kernel": shipped_kernel_key(node, self.arch, self.options),
                "version": repr(op.c_code_cache_version())}


def _edit(path: pathlib.Path, old: bytes, new: bytes):
    """Replace `old` by `new` in the file `path`, in place (the same inode, as an editor writing over it)."""
    data = path.read_bytes()
    assert old in data, (path, old)
    with open(path, "r+b") as handle:
        handle.write(data.replace(old, new, 1))
        handle.truncate()


def _class_attribute(name, value):
    """Add `value` (or what `value(op)` gives) to the op class's tuple `name` (its flags)."""
    return lambda op, monkeypatch: monkeypatch.setattr(
        Scaled, name, (*getattr(Scaled, name), *(value(op) if callable(value) else value)))


def _setup(setup, change):
    """`change` made after `setup` (which the keys before the change already see)."""
    change.setup = setup
    return change


def _config(**flags):
    """Change opkit's configuration (OPKIT_FLAGS) until the test ends; a callable value is given the old one."""
    def change(op, monkeypatch):
        values = {name: value(getattr(opkit.config, name)) if callable(value) else value
                  for name, value in flags.items()}
        op.stack.enter_context(opkit.config.change_flags(**values))
    return change


def _file_edit(where, old, new):
    return lambda op, monkeypatch: _edit(where(op), old, new)


def _numpy_copy(op, monkeypatch) -> pathlib.Path:
    """Build against a copy of numpy's include folder: numpy.get_include() names it, as it names numpy's own."""
    copy = op.root / "numpy_include"
    shutil.copytree(np.get_include(), copy)
    monkeypatch.setattr(np, "get_include", lambda: str(copy))
    return copy


def _python_copy(op, monkeypatch) -> pathlib.Path:
    """Build against a copy of Python's include folder: sysconfig names it, as it names Python's own."""
    paths = sysconfig.get_paths()
    copy = op.root / "python_include"
    shutil.copytree(paths["include"], copy)
    get_paths = sysconfig.get_paths
    monkeypatch.setattr(sysconfig, "get_paths", lambda *a, **k: {**get_paths(*a, **k), "include": str(copy),
                                                                  "platinclude": str(copy)})
    return copy


def _numpy_header(old, new, name="_numpyconfig.h"):
    """numpy upgraded in place: a byte of one of its headers changes, its folder stays."""
    def change(op, monkeypatch):
        _edit(op.root / "numpy_include" / "numpy" / name, old, new)
    change.setup = _numpy_copy
    return change


def _python_header(op, monkeypatch):
    _edit(op.root / "python_include" / "Python.h", b"#define Py_PYTHON_H", b"#define Py_PYTHON_H ")


_python_header.setup = _python_copy


def _another_compiler_command(op, monkeypatch):
    """The same compiler given another argument by config.cxx: what it makes changes, so does the compiler's part."""
    op.stack.enter_context(opkit.config.change_flags(cxx=f"{find_compiler().command[0]} -DOPKIT_VIA_CXX=1"))


def _attribute(name, value):
    return lambda op, monkeypatch: monkeypatch.setattr(op, name, value(op) if callable(value) else value)


# (what changes, how, the keys that cover it)
CHANGES = [
    ("the op's C code", _file_edit(lambda op: op.c_file, b"v[i] * USER_SCALE + 0", b"v[i] * USER_SCALE + 1"),
     HOST | {"version"}),
    ("the op's kernel text", _file_edit(lambda op: op.c_file, b"NV_EXTRA + 0", b"NV_EXTRA + 1"),
     NVRTC | {"version", "token"}),  # not in its host module; the op's Python identity holds its files' text
    ("a user header (<angle>, in c_header_dirs)",
     _file_edit(lambda op: op.headers / "user_scale.h", b"(2 *", b"(3 *"), HOST | NVRTC | {"version"}),
    ("a user header it includes (\"nested\")",
     _file_edit(lambda op: op.headers / "user_nested.h", b"NESTED 1", b"NESTED 2"), HOST | NVRTC | {"version"}),
    ("a define of the op (c_compile_args -D)", _class_attribute("COMPILE_ARGS", ("-DUSER_FLAG=1",)), HOST),
    ("an -O of the op", _class_attribute("COMPILE_ARGS", ("-O3",)), HOST),
    ("a -march of the op", _class_attribute("COMPILE_ARGS", ("-march=x86-64-v3",)), HOST),
    ("an include folder of the op (c_header_dirs)", _class_attribute("HEADER_DIRS", lambda op: [str(op.root / "empty")]),
     {"module", "token", "kernel"}),  # a folder is a path: portable keys leave it out
    ("an include folder of the op (-I)", _class_attribute("COMPILE_ARGS", lambda op: [f"-I{op.root / 'empty'}"]),
     {"module", "token"}),
    ("a header found through the op's -I", _setup(
        _class_attribute("COMPILE_ARGS", lambda op: ["-I", str(op.root / "op_extra")]),
        _file_edit(lambda op: op.root / "op_extra" / "op_extra.h", b"EXTRA 1", b"EXTRA 2")), HOST | {"version"}),
    ("a header found through config.cflags -I", _setup(
        lambda op, monkeypatch: op.stack.enter_context(
            opkit.config.change_flags(cflags=f"{opkit.config.cflags} -I{op.root / 'cflags_extra'}")),
        _file_edit(lambda op: op.root / "cflags_extra" / "cflags_extra.h", b"EXTRA 1", b"EXTRA 2")), HOST),
    ("a header found through CPATH", _setup(
        lambda op, monkeypatch: monkeypatch.setenv("CPATH", str(op.root / "cflags_extra")),
        _file_edit(lambda op: op.root / "cflags_extra" / "cflags_extra.h", b"EXTRA 1", b"EXTRA 2")), HOST),
    ("a header the op pre-includes (-include)", _setup(
        _class_attribute("COMPILE_ARGS", lambda op: ["-include", str(op.root / "pre.h")]),
        _file_edit(lambda op: op.root / "pre.h", b"INCLUDED 1", b"INCLUDED 2")), HOST | {"version"}),
    ("a library of the op", _class_attribute("LIBRARIES", ("m",)), HOST),
    ("a library folder of the op", _class_attribute("LIB_DIRS", lambda op: [str(op.root / "libs")]),
     {"module", "token"}),
    ("config.cflags -D", _config(cflags=lambda old: f"{old} -DOPKIT_ONE_IDENTITY=1"), FLAGS),
    ("config.cflags -O3", _config(cflags=lambda old: f"{old} -O3"), FLAGS),
    ("config.march", _config(march="x86-64-v3"), FLAGS),
    ("config.cmodule__debug", _config(cmodule__debug=lambda old: not old), FLAGS),
    ("config.openmp", _config(openmp=lambda old: not old), FLAGS - {"shipped"}),  # shipped: always OpenMP
    ("config.sanitize", _config(sanitize="address"), FLAGS),
    ("the compiler's command (config.cxx)", _another_compiler_command, {"module", "pch"}),
    ("a numpy header's byte, numpy upgraded in place",
     _numpy_header(b"NPY_SIZEOF_SHORT 2", b"NPY_SIZEOF_SHORT 2 ", name="_numpyconfig.h"), SYSTEM),
    ("numpy's API version in its headers, numpy upgraded in place",
     _numpy_header(b"#define NPY_API_VERSION 0x", b"#define NPY_API_VERSION 0x0"), SYSTEM),
    ("a byte of Python.h", _python_header, SYSTEM),
    ("Python's ABI", lambda op, monkeypatch: monkeypatch.setattr(sys, "abiflags", sys.abiflags + "t"),
     SYSTEM | {"shipped"}),
    ("NVRTC's --fmad", _attribute("options", lambda op: [*op.options, "--fmad=true"]), NVRTC),
    ("NVRTC's -arch", _attribute("arch", "sm_90"), NVRTC),
    ("the op's c_kernel_options", _class_attribute("KERNEL_OPTIONS", ("-use_fast_math",)),
     NVRTC | {"token"}),  # the op's class is in its Python identity
    ("a header found through --include-path",
     _file_edit(lambda op: op.nvrtc_headers / "nv_extra.h", b"NV_EXTRA 1", b"NV_EXTRA 2"), NVRTC),
    ("NVRTC's version", _attribute("nvrtc", "nvrtc 13.0"), {"kernel"}),
]


@pytest.fixture
def op(tmp_path, monkeypatch):
    monkeypatch.setattr(system_headers, "RECHECK_SECONDS", 0.0)  # the headers are edited within the second
    made = OpFiles(tmp_path)
    monkeypatch.setattr(Scaled, "HEADER_DIRS", (str(made.headers),))
    with contextlib.ExitStack() as made.stack:
        yield made


@pytest.mark.parametrize("change", CHANGES, ids=[what for what, _, _ in CHANGES])
def test_each_input_changes_every_key_that_covers_it_and_no_other(op, monkeypatch, change):
    what, apply, covering = change
    setup = getattr(apply, "setup", None)
    if setup is not None:
        setup(op, monkeypatch)
    before = op.keys()
    assert op.keys() == before  # nothing else moves
    apply(op, monkeypatch)
    after = op.keys()
    changed = {name for name in KEYS if before[name] != after[name]}
    assert changed == covering, f"{what}: changed {sorted(changed)}, covering {sorted(covering)}"


def test_the_keys_are_those_the_builders_use(op):
    """The keys above are those opkit computes where it builds: a function's token is the graph_token above, and
    the kernel cache's key the kernel request's (with NVRTC's own version, where NVRTC is installed)."""
    x = ot.dvector("x")
    y = Scaled(op.c_file)(x)
    f = opkit.function([x], y, mode=opkit.Mode(linker="c", optimizer=None))
    np.testing.assert_array_equal(f(np.arange(3.0)), np.arange(3.0) * 2)
    assert f.__dask_tokenize__() == graph_token(graph_recipe([x], [y]), opkit.Mode(linker="c", optimizer=None),
                                                True, node_identities([x], [y]))
    node = y.owner
    if kernels.nvrtc_missing_message() is None:
        request = kernels.kernel_request(node, "sm_80", op.options)
        assert kernels.kernel_module_key(node, "sm_80", op.options) == \
            identity.request_key(request, kernels.KERNEL_FORMAT)
        assert request.toolchain.tool == f"nvrtc {'.'.join(map(str, kernels.nvrtc_version()))}"
    portable = kernels.kernel_request(node, "sm_80", op.options, portable=True)
    assert portable.toolchain.tool == "" and str(op.root) not in portable.sources[0]


NUMPY_VERSION_OP = """\
#section code
OUTPUT_0 = (npy_int64)NPY_API_VERSION * 10 + SALT;
"""


class NumpyVersion(opkit.COp):
    """Return the numpy API version the module was compiled against (times ten, plus `salt`: another module)."""

    __props__ = ("path", "salt")

    def __init__(self, path, salt):
        self.path, self.salt = str(path), salt
        super().__init__(self.path)

    def make_node(self):
        return opkit.Apply(self, [], [opkit.scalar.int64()])

    def c_compile_args(self, c_compiler=None):
        return [f"-DSALT={self.salt}"]


def test_a_numpy_upgraded_in_place_gets_its_own_modules_and_precompiled_header(op, monkeypatch):
    """g++ uses a .gch without checking the headers it was built from: before the precompiled header's key held
    their bytes, a numpy upgraded in place (same folder, same compiler and flags) kept the old header, and every
    module built after, even a new one, saw the old numpy; the module cache served the old modules too."""
    include = _numpy_copy(op, monkeypatch)
    monkeypatch.delenv("OPKIT_NO_PCH", raising=False)
    path = op.root / "numpy_version.c"
    path.write_text(NUMPY_VERSION_OP)
    config = include / "numpy" / "_numpyconfig.h"
    version = int(next(line.split()[2] for line in config.read_text().splitlines()
                       if line.startswith("#define NPY_API_VERSION")), 16)

    def run(salt):
        f = opkit.function([], NumpyVersion(path, salt)(), mode=opkit.Mode(linker="c", optimizer=None))
        return int(f())

    with opkit.config.change_flags(compiledir=str(op.root / "cache")):
        assert run(0) == version * 10
        assert len(list((op.root / "cache").glob("pch/*/opkit_pch.hpp.gch"))) == 1
        older = version - 1
        _edit(config, f"NPY_API_VERSION 0x{version:08x}".encode(), f"NPY_API_VERSION 0x{older:08x}".encode())
        assert run(1) == older * 10 + 1  # a new module: compiled with the headers on disk, not the old .gch's
        assert run(0) == older * 10  # the module of the first call is not the one for these headers
        assert len(list((op.root / "cache").glob("pch/*/opkit_pch.hpp.gch"))) == 2


DIGEST = """
import sys
from opkit.cop.toolchain import system_headers
print(system_headers.system_headers_digest([sys.argv[1]]))
"""


def test_the_headers_digest_kept_for_other_processes_is_used_only_while_every_file_is_unchanged(tmp_path):
    """A fresh process reuses the kept digest (no file read again) while every stat holds, and hashes again after
    an edit in place, even one that keeps the size and sets the modification time back, or a file added."""
    folder = tmp_path / "include"
    (folder / "numpy").mkdir(parents=True)
    header = folder / "numpy" / "npy_config.h"
    header.write_text("#define NPY_X 1\n")
    env = dict(os.environ, OPKIT_COMPILEDIR=str(tmp_path / "cache"))

    def digest():
        run = subprocess.run([sys.executable, "-c", DIGEST, str(folder)], env=env, capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 0, run.stderr
        return run.stdout.strip()

    first = digest()
    (kept,) = (tmp_path / "cache" / "host").glob("system-headers-*")
    written = kept.stat().st_mtime_ns
    assert digest() == first and kept.stat().st_mtime_ns == written  # read back, not made again
    stat = header.stat()
    _edit(header, b"NPY_X 1", b"NPY_X 2")
    os.utime(header, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # the same size and modification time
    second = digest()
    assert second != first
    (folder / "numpy" / "new.h").write_text("")
    assert digest() not in (first, second)


def test_numpy_get_include_naming_another_numpy_is_another_key_at_once(tmp_path, monkeypatch):
    """Two copies of numpy's include folder, one with numpy's API version changed: numpy.get_include() naming
    either (as two installs of numpy would) gives each its key at the next call, in the same process."""
    copies = [tmp_path / "old", tmp_path / "new"]
    for copy in copies:
        shutil.copytree(np.get_include(), copy)
    _edit(copies[1] / "numpy" / "_numpyconfig.h", b"#define NPY_API_VERSION 0x", b"#define NPY_API_VERSION 0x0")
    x = ot.dvector("x")
    parts = collect_module(Region.from_nodes([(x * 2).owner], lambda variable: True))

    def keys(copy):
        monkeypatch.setattr(np, "get_include", lambda: str(copy))
        return identity.region_key(parts), pch_key(find_compiler(), build_flags()[0], python_include_dirs())

    old, new = keys(copies[0]), keys(copies[1])
    assert old[0] != new[0] and old[1] != new[1]
    assert keys(copies[0]) == old and keys(copies[1]) == new


def test_a_portable_key_names_no_folder(tmp_path, monkeypatch):
    """The same op installed in two places (its files, headers, -I, -include and --include-path elsewhere, the
    bytes the same): one shipped key and one shipped kernel key; the machine's keys name the folders."""
    keys = []
    for root in (tmp_path / "here", tmp_path / "there" / "deeper"):
        files = OpFiles(root)
        monkeypatch.setattr(Scaled, "HEADER_DIRS", (str(files.headers),))
        monkeypatch.setattr(Scaled, "COMPILE_ARGS", ("-I", str(root / "op_extra"), "-include", str(root / "pre.h")))
        keys.append(files.keys())
    here, there = keys
    assert here["shipped"] == there["shipped"] and here["shipped_kernel"] == there["shipped_kernel"]
    assert here["module"] != there["module"] and here["kernel"] != there["kernel"]
