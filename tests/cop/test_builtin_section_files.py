"""opkit's own ops are written as users write theirs: `#section` files that `opkit check` passes,
`#line` directives that name them, and compile errors reported at their file and line."""

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import opkit
from opkit.cli import main
from opkit.core.c_source import SectionOp, section_paths
from helpers.caches import seeded

PACKAGE = pathlib.Path(opkit.__file__).resolve().parent
SECTION_FILES = sorted(PACKAGE.rglob("*.c"))


def _section_op_classes():
    import importlib

    import opkit.core.tensor.shapes.scalar_tensor  # noqa: F401 (opkit.scalar's conversions: imported by no tensor layer)
    import opkit.gpu.ops  # noqa: F401 (the built-in GPU ops: gpu_walk.c, gpu_shape*.c)
    import opkit.tensor  # noqa: F401
    from opkit.core.tensor import LAYERS

    # opkit.tensor imports what its names need; ops only gradients build (SumToShape) come with their layer.
    for layer, modules in LAYERS:
        for module in modules:
            importlib.import_module(f"opkit.core.tensor.{layer}.{module}")

    seen, todo = [], [SectionOp]
    while todo:
        for klass in todo.pop().__subclasses__():
            seen.append(klass)
            todo.append(klass)
    return seen


def test_every_section_file_of_opkit_passes_opkit_check(capsys):
    assert SECTION_FILES, "opkit ships no #section file"
    status = main(["check", *map(str, SECTION_FILES)])
    printed = capsys.readouterr()
    assert status == 0, printed
    assert f"{len(SECTION_FILES)} file(s) checked: 0 error(s), 0 warning(s)" in printed.err


def _registered_section_files():
    """The section files registered as DeepCopyOp/ViewOp/Shape/Shape_i code for a type (opkit's own plugin)."""
    from opkit.core import builtin_ops

    list(opkit.ops)  # loads the plugins, which register their C code
    registries = (builtin_ops._DEEP_COPY_C, builtin_ops._VIEW_C, builtin_ops._SHAPE_C, builtin_ops._SHAPE_I_C)
    return {pathlib.Path(item) for registry in registries for entry in registry.values() for item in entry
            if isinstance(item, os.PathLike)}


def test_every_section_file_is_named_by_an_op_and_every_named_file_exists():
    named = {pathlib.Path(p) for klass in _section_op_classes() for p in section_paths(klass)}
    named |= _registered_section_files()
    assert all(p.is_file() for p in named), sorted(p for p in named if not p.is_file())
    assert set(SECTION_FILES) <= named, sorted(set(SECTION_FILES) - named)


def _line_files(output):
    return {pathlib.Path(p) for p in re.findall(r'^#line \d+ "([^"]+)"$', output, re.M)}


@pytest.mark.parametrize("command", [["show", "add", "--dtypes", "float64,float64"],
                                     ["show", "reshape", "--dtypes", "float64,int64"]])
def test_opkit_show_prints_line_directives_naming_opkits_own_c_files(command, capsys):
    assert main(command) == 0
    files = _line_files(capsys.readouterr().out)
    own = {p for p in files if p.suffix == ".c" and PACKAGE in p.parents}
    assert own, files
    assert all(p.is_file() for p in own)


def test_a_compile_error_planted_in_a_builtin_section_file_is_reported_at_that_file_and_line(tmp_path):
    from opkit.core.tensor.shapes.reshape import Reshape

    copy = tmp_path / "opkit"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    relative = pathlib.Path(section_paths(Reshape)[0]).relative_to(PACKAGE)
    planted = copy / relative
    lines = planted.read_text().splitlines(keepends=True)
    code = next(i for i, line in enumerate(lines) if line.startswith("#section code"))
    lines.insert(code + 1, "opkit_planted_error here;\n")
    planted.write_text("".join(lines))
    script = ("import numpy, opkit, opkit.tensor as ot\n"
              "from opkit.core.tensor.shapes.reshape import reshape\n"
              "x = ot.vector('x')\n"
              "print(opkit.function([x], reshape(x, (2, -1)))(numpy.zeros(4)))\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path), OPKIT_COMPILEDIR=seeded(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", f"import opkit; assert opkit.__file__.startswith({str(copy)!r})\n"
                           + script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "CompileError" in done.stderr
    assert f"{planted}:{code + 2}:" in done.stderr, done.stderr[-3000:]


def test_the_wheel_carries_every_section_file_header_and_template(tmp_path):
    import zipfile

    root = PACKAGE.parent
    source = tmp_path / "source"  # a copy: no build/ directory left by another build can fill the wheel
    shutil.copytree(PACKAGE, source / "opkit", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (root / name).exists():
            shutil.copy(root / name, source / name)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                           "--disable-pip-version-check", "-w", str(tmp_path), str(source)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    [wheel] = tmp_path.glob("opkit_sdk-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = set(archive.namelist())
    needed = {p.relative_to(root).as_posix() for pattern in ("*.c", "*.h", "*.j2")
              for p in PACKAGE.rglob(pattern)}
    assert needed and needed <= shipped, sorted(needed - shipped)


def test_opkits_section_ops_are_coops_whose_files_opkit_info_lists():
    classes = _section_op_classes()
    assert {"Reshape", "Elemwise", "Reduce", "Alloc", "DimShuffle", "Subtensor"} <= {k.__name__ for k in classes}
    assert all(issubclass(klass, opkit.COp) for klass in classes)
    from opkit.core.tensor.shapes.reshape import Reshape

    op = Reshape(1)
    assert isinstance(op, opkit.COp) and op.func_files == section_paths(Reshape)
    info = opkit.ops.info("sum")  # registered as a class
    assert [pathlib.Path(f).name for f in info["c_files"]] == ["broadcast.c", "elemwise.c", "scalar_math.c",
                                                          "scalar_logic.c", "scalar_special.c", "reduction.c"]
