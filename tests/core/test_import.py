"""`import opkit` stays light: no numpy, no build toolchain, no plugins until they are used."""

import json
import subprocess
import sys

HEAVY = ("numpy", "jinja2", "setuptools", "pluggy")


def imported_after(code):
    """Run `code` in a fresh interpreter; return the sorted names of the modules it left imported."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(result.stdout.splitlines()[-1])


def test_import_opkit_imports_nothing_heavy():
    modules = imported_after("import opkit")
    assert [name for name in HEAVY if name in modules] == []
    # no graph machinery, C backend or plugin until first use
    deferred = ("opkit.core", "opkit.cop", "opkit.plugins", "opkit.tensor")
    assert [name for name in modules if name.startswith(deferred)] == []


def test_building_a_python_mode_function_needs_no_build_toolchain():
    code = ("import opkit, opkit.tensor as ot\nx = ot.dvector('x')\n"
            "assert list(opkit.function([x], x * 2, mode='FAST_COMPILE')([1.0])) == [2.0]")
    modules = imported_after(code)
    assert "numpy" in modules
    assert [name for name in ("jinja2", "setuptools") if name in modules] == []


def test_public_names_resolve_lazily():
    code = ("import opkit\nopkit.Op, opkit.Apply, opkit.Type, opkit.Variable, opkit.Constant\n"
            "opkit.ParamsType, opkit.Params, opkit.EnumType, opkit.EnumList, opkit.CEnumType, opkit.CDataType")
    modules = imported_after(code)
    assert [name for name in HEAVY if name in modules] == []


def test_an_ops_c_needs_no_import_order():
    """A tensor op's C (a SectionOp's files, a template macro) is there before anything imported opkit.cop:
    core loads cop's readers on first use (opkit.lazy.provided), whatever was imported first."""
    code = ("import sys, opkit.tensor as ot\nassert 'opkit.cop' not in sys.modules\nx = ot.dmatrix('x')\n"
            "node = x.T.owner\nprint(node.op.c_code(node, 'n', ['x'], ['z'], {'fail': 'FAIL', 'params': 'p'}))\n"
            "node = ot.exp(x).owner\nprint(node.op.c_code(node, 'n', ['x'], ['z'], {'fail': 'FAIL'}))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "dims[0] = PyArray_DIMS(x)[1];" in result.stdout  # DimShuffle's section file
    assert "exp(" in result.stdout  # Elemwise's template


def test_report_import_time(capsys):
    """Print the cumulative `import opkit` time from -X importtime (reported, never asserted)."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", "import opkit"],
                            capture_output=True, text=True, check=True, timeout=120)
    rows = [line.split("|") for line in result.stderr.splitlines() if line.startswith("import time:")]
    cumulative = {row[2].strip(): int(row[1]) for row in rows if row[1].strip().isdigit()}
    assert "opkit" in cumulative
    with capsys.disabled():
        print(f"\n[opkit] import opkit: {cumulative['opkit'] / 1000:.1f} ms cumulative (python -X importtime)")
