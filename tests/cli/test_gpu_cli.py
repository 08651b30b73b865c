"""The GPU side of the command line (SPEC 16): the `cuda` extra, `opkit doctor`'s GPU report."""

import re
import sys
import tomllib

import pytest
from helpers.requires import has_cupy, has_nvrtc, needs_cupy, needs_nvrtc, variants

from conftest import ROOT
from opkit.cli import main
from opkit.cli import doctor


def run(capsys, *argv):
    """Run `opkit *argv`; return (exit status, stdout, stderr)."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _cupy_device_count():
    """Return how many devices CuPy finds, or the CUDA error's name; None without CuPy."""
    try:
        import cupy
    except ImportError:
        return None
    try:
        return cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 - CUDARuntimeError
        return str(exc).partition(":")[0]


# ---- the extra ----


def test_the_cuda_extra_is_cupy_and_nvrtc_from_pip_and_the_test_extra_pulls_neither():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert extras["cuda"] == ["cupy-cuda12x>=13.0", "nvidia-cuda-nvrtc-cu12>=12.0"]
    for name in ("test", "test-base"):
        assert not [r for r in extras[name] if "cupy" in r or "nvidia" in r or "[cuda" in r], name


def test_import_opkit_imports_no_cupy():
    import subprocess

    code = "import sys, opkit, opkit.tensor\nprint([m for m in sys.modules if m.startswith(('cupy', 'nvidia'))])"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


NVRTC_OR_NOT = variants("NVRTC", has_nvrtc(), needs_nvrtc)  # see helpers.requires.variants


# ---- opkit doctor ----


def _doctor_lines(capsys):
    status, out, _ = run(capsys, "doctor")
    assert status == 0, out
    return {line[6:].split("  ")[0].strip(): line for line in out.splitlines() if line[:4] in ("ok  ", "FAIL")}


@pytest.mark.skipif(has_cupy(), reason="CuPy is installed here: the test of its report runs")
def test_doctor_without_the_cuda_extra_says_how_to_get_it(capsys):
    lines = _doctor_lines(capsys)
    assert "not installed: GPU ops (device='cuda') need it: pip install 'opkit-sdk[cuda]'" in lines["CuPy"]
    assert lines["GPU"].endswith("not checked: CuPy is not installed")


@needs_cupy
def test_doctor_reports_cupy_nvrtc_driver_and_gpus_as_this_machine_has_them(capsys):
    lines = _doctor_lines(capsys)
    found = _cupy_device_count()
    import cupy

    assert lines["CuPy"].split()[2] == cupy.__version__ and "(CUDA runtime 12." in lines["CuPy"]
    nvrtc_line = lines["NVRTC"].split()
    assert nvrtc_line[0] == "ok" and nvrtc_line[2].startswith("12.") and "libnvrtc" in lines["NVRTC"]
    if isinstance(found, str):  # no device here: the CUDA error that says why
        assert lines["GPU"].endswith(f"none: CuPy finds no CUDA device: {found}; device='cuda-interpret' runs "
                                     "kernels on the CPU")
        assert found.startswith("cudaError")
    else:
        for index in range(found):
            props = cupy.cuda.runtime.getDeviceProperties(index)
            assert f"{props['name'].decode()}, sm_{props['major']}{props['minor']}, " in lines[f"GPU {index}"]
        driver = cupy.cuda.runtime.driverGetVersion()
        version = f"{driver // 1000}.{driver % 1000 // 10}"
        assert re.search(rf"CUDA driver +CUDA {re.escape(version)}(, kernel module [\d.]+)?$", lines["CUDA driver"])


def test_doctor_without_cupy_says_how_to_install_it_and_is_no_problem(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # `import cupy` fails as if it were not installed
    monkeypatch.setattr(doctor, "nvrtc_version_and_path", _no_nvrtc)
    checks = doctor.gpu_checks()
    assert checks == [
        ("CuPy", True, "not installed: GPU ops (device='cuda') need it: pip install 'opkit-sdk[cuda]'; "
                       "device='cuda-interpret' runs kernels on the CPU without it"),
        ("NVRTC", True, "not found: kernels compile with it (pip install nvidia-cuda-nvrtc-cu12 (or pip install "
                        "'opkit-sdk[cuda]')); modules shipped with `opkit build --arch` load without it"),
        ("GPU", True, "not checked: CuPy is not installed"),
    ]


def _no_nvrtc():
    raise OSError("no libnvrtc.so.12 (the wheel nvidia-cuda-nvrtc-cu12) on this machine")


@needs_cupy
def test_cupy_without_nvrtc_is_a_problem_with_its_fix(monkeypatch, capsys):
    monkeypatch.setattr(doctor, "nvrtc_version_and_path", _no_nvrtc)
    status, out, _ = run(capsys, "doctor")
    assert status == 1
    [line] = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert line.split()[:2] == ["FAIL", "NVRTC"]
    assert line.endswith("not found (no libnvrtc.so.12 (the wheel nvidia-cuda-nvrtc-cu12) on this machine): CuPy "
                         "is installed but kernels cannot compile; fix: pip install nvidia-cuda-nvrtc-cu12 (or pip "
                         "install 'opkit-sdk[cuda]')")


def test_a_cupy_that_does_not_import_is_a_problem(monkeypatch):
    import importlib.abc

    class Broken(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "cupy":
                raise ImportError("libcudart.so.12: cannot open shared object file")
            return None

    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    monkeypatch.setattr(sys, "meta_path", [Broken(), *sys.meta_path])
    _, line = doctor.cupy_check()
    assert line == ("CuPy", False, "installed but does not import: ImportError: libcudart.so.12: cannot open "
                                   "shared object file; fix: pip install --force-reinstall 'opkit-sdk[cuda]'")


@needs_nvrtc
def test_the_nvrtc_version_comes_from_the_library():
    (major, minor), where = doctor.nvrtc_version_and_path()
    assert major >= 12 and minor >= 0 and where.endswith("libnvrtc.so.12")


def test_a_device_is_described_by_name_architecture_and_memory():
    props = {"name": b"NVIDIA H100 80GB HBM3", "major": 9, "minor": 0, "totalGlobalMem": 85520809984}
    assert doctor.describe_device(props) == "NVIDIA H100 80GB HBM3, sm_90, 80 GiB"


@pytest.mark.parametrize("text, version", [
    ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n", "550.54.15"),
    ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build\n", "570.86.15"),
    ("something else\n", ""),
])
def test_the_kernel_modules_version_is_read_from_proc(text, version):
    assert doctor.kernel_module_version(text) == version


def test_cuda_versions_are_written_as_cuda_writes_them():
    assert doctor._cuda_version(12090) == "12.9" and doctor._cuda_version(12040) == "12.4"
    assert doctor._cuda_version(0) == "unknown"


# ---- opkit new NAME --cuda ----


def test_new_cuda_adds_the_gpu_op_its_kernel_and_its_tests(tmp_path, capsys):
    from opkit.cli.new import CUDA_TEMPLATES, TEMPLATES

    status, out, _ = run(capsys, "new", "gpu_ops", "--cuda", "--directory", str(tmp_path))
    assert status == 0
    project = tmp_path / "gpu_ops"
    files = sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_file())
    assert files == sorted(path.format(package="gpu_ops") for path in {**TEMPLATES, **CUDA_TEMPLATES}.values())
    kernel = (project / "src" / "gpu_ops" / "gpu_ops_gpu.cu").read_text()
    assert kernel.startswith("#section kernels\n") and "\n#section code\n" in kernel
    assert 'extern "C" __global__ void APPLY_SPECIFIC(multiply)(' in kernel
    assert "opkit_gpu_empty(&OUTPUT_0, 1, INPUT_0->dims, TYPENUM_OUTPUT_0)" in kernel
    assert "OPKIT_LAUNCH(multiply, blocks, threads, 0, n, x, x_stride, y, y_stride, z)" in kernel
    op_gpu = (project / "src" / "gpu_ops" / "op_gpu.py").read_text()
    assert "class GpuOpsGpu(opkit.COp):" in op_gpu and "opkit.gpu.register_gpu_version(GpuOps, make_gpu_node)" in op_gpu
    pyproject = (project / "pyproject.toml").read_text()
    assert 'cuda = ["opkit-sdk[cuda]>=' in pyproject and 'gpu_ops = ["*.c", "*.h", "*.cu"]' in pyproject
    tests = (project / "tests" / "test_gpu_ops_gpu.py").read_text()
    assert 'DEVICES = ["cuda-interpret",' in tests and "has_device()" in tests
    assert "its GPU version GpuOpsGpu runs in the tests on the CPU (device='cuda-interpret')" in out


def test_new_without_cuda_makes_no_gpu_file(tmp_path, capsys):
    assert main(["new", "cpu_ops", "--directory", str(tmp_path)]) == 0
    project = tmp_path / "cpu_ops"
    assert not list(project.rglob("*gpu*")) and not list(project.rglob("*.cu"))
    assert "cuda" not in (project / "pyproject.toml").read_text()
    assert "gpu" not in (project / "src" / "cpu_ops" / "__init__.py").read_text().lower()


@pytest.mark.parametrize("params", [False, True])
def test_the_cuda_scaffold_templates_render_as_valid_python(tmp_path, params):
    import ast

    from opkit.cli.new import render_scaffold, scaffold_names

    for path in render_scaffold(scaffold_names("gpu_ops"), tmp_path, params=params, cuda=True):
        if path.endswith(".py"):
            ast.parse(open(path, encoding="utf-8").read(), path)
    kernel = (tmp_path / "src" / "gpu_ops" / "gpu_ops_gpu.cu").read_text()
    assert ("double scale = PARAMS->scale;" in kernel) == params


def test_doctor_reads_nvrtc_as_opkit_compiles_with_it(monkeypatch, tmp_path):
    """The NVRTC line is opkit.cop.toolchain.nvrtc's library: OPKIT_NVRTC naming no library is reported."""
    from opkit.cop.toolchain import nvrtc

    missing = tmp_path / "libnvrtc.so.12"
    monkeypatch.setenv(nvrtc.ENVIRONMENT, str(missing))
    name, ok, detail = doctor.nvrtc_check(cupy_installed=True)
    assert (name, ok) == ("NVRTC", False)
    assert detail.startswith("not found (NVRTC, the CUDA runtime compiler, is not installed: CUDA kernels cannot be "
                             "compiled): CuPy is installed but kernels cannot compile; fix: pip install ")


@needs_nvrtc
def test_doctor_names_the_nvrtc_opkit_compiles_with(monkeypatch):
    from opkit.cop.toolchain import nvrtc

    monkeypatch.delenv(nvrtc.ENVIRONMENT, raising=False)
    assert doctor.nvrtc_check(cupy_installed=True) == (
        "NVRTC", True, f"{'.'.join(map(str, nvrtc.nvrtc_version()))} ({nvrtc.find_library()})")


def _check_scaffold_outcome(stdout: str, total: int, on_device: int, dist: str, nvrtc: bool):
    """A scaffold's pytest -rs output: `total` tests, of which the `on_device` ones skip only where CuPy finds no
    device and the NVRTC one only where NVRTC is absent, each naming why (the scaffold's own words)."""
    gpu = isinstance(_cupy_device_count(), int) and _cupy_device_count() > 0
    reasons = [] if gpu else ["CuPy finds no CUDA device"] * on_device
    reasons += [] if nvrtc else [f"needs NVRTC: pip install '{dist}[cuda]'"]
    summary = f"{total - len(reasons)} passed" + (f", {len(reasons)} skipped" if reasons else "")
    assert re.search(rf"^{summary} in ", stdout, re.M), stdout
    skips = [line for line in stdout.splitlines() if line.startswith("SKIPPED")]
    counted = []
    for line in skips:  # SKIPPED [N] file:line: reason
        count, reason = re.match(r"SKIPPED \[(\d+)\] [^:]+:\d+: (.*)$", line).groups()
        counted += [reason] * int(count)
    assert sorted(counted) == sorted(reasons), stdout


# A pip install and the package's 34 tests in a subprocess (soak: `-m soak`); the --params scaffold's GPU tests run
# below in the default run, and every scaffold template renders in test_the_cuda_scaffold_templates_render_....
@pytest.mark.soak
@pytest.mark.parametrize("nvrtc", NVRTC_OR_NOT)
def test_a_new_cuda_package_installs_and_passes_its_own_tests(plugin_venv, tmp_path, nvrtc):
    """`opkit new NAME --cuda`, pip install, pytest: the CPU op's tests and the kernel's, through the interpreter
    (and on the GPU where CuPy finds one: skipped only where it finds none; NVRTC's test where NVRTC is)."""
    plugin_venv.run("-m", "opkit.cli", "new", "cuda_ops", "--cuda", cwd=tmp_path)
    assert plugin_venv.run("-m", "opkit.cli", "check", "cuda_ops/src/cuda_ops/cuda_ops_gpu.cu", cwd=tmp_path,
                           check=False).returncode == 0
    plugin_venv.pip_install(tmp_path / "cuda_ops")
    result = plugin_venv.run("-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", "cuda_ops", cwd=tmp_path,
                             env={"OPKIT_DISABLE_PLUGINS": "opkit-test-broken"}, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    _check_scaffold_outcome(result.stdout, total=34, on_device=12, dist="cuda-ops", nvrtc=nvrtc)
    listed = plugin_venv.run("-m", "opkit.cli", "list", cwd=tmp_path).stdout
    names = {line.split()[0] for line in listed.splitlines() if line.startswith("cuda_ops")}
    assert names == {"cuda_ops", "cuda_ops_gpu"}


# ---- opkit build OP --dtypes ... --arch sm_80,sm_90 --into PACKAGE_DIR ----


def test_arch_lists_are_read_as_nvrtc_names_them():
    from opkit.cli.build_gpu import parse_archs

    assert parse_archs("sm_80, 90,sm_80,sm90") == ["sm_80", "sm_90"]


@pytest.mark.parametrize("argv, message", [
    (["build", "add", "--dtypes", "float64,float64", "--arch", "sm_80"],
     "--arch is for GPU ops: add (Elemwise) has no CUDA kernels (no '#section kernels' in its files, no c_kernels "
     "method)"),
    (["build", "add", "--dtypes", "float64,float64", "--arch", "volta"],
     "--arch: unknown CUDA architecture 'volta'; expected e.g. 'sm_80', 'sm_90' or 'compute_90'"),
    (["build", "add", "--dtypes", "float64,float64", "--arch", "compute_90"],
     "--arch: 'compute_90' is PTX only; name the GPUs' architectures (sm_80, sm_90): each one's PTX is shipped with "
     "its cubin"),
    (["build", "add", "--dtypes", "float64,float64", "--arch", " , "],
     "--arch ' , ' names no architecture; e.g. --arch sm_80,sm_90"),
])
def test_wrong_arch_arguments_are_usage_errors(capsys, argv, message):
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert err.strip().endswith(message)


TARGET = """
import sys
import opkit, opkit.gpu
from opkit.cop.toolchain import nvrtc
from opkit.cop.generate.codegen import collect_module
from opkit.cop.generate.region import Region
from opkit.cop.store.shipped import find_shipped
from opkit.gpu.device import using_device
from opkit.gpu.runtime import _BINARIES
from opkit.gpu.shipped_kernels import building_for
from arch_ops import ArchOpsGpu

try:
    nvrtc.find_library()
except opkit.CompileError:
    print("no NVRTC")
for arch in ("sm_90", "sm_80", "sm_100", "sm_75"):  # the GPU's architecture, as the device would give it
    with using_device("cuda") as target, building_for(arch):
        node = ArchOpsGpu()(opkit.gpu.vector("x0", dtype="float32"), opkit.gpu.vector("x1", dtype="float32")).owner
        region = Region.from_nodes([node], lambda variable: True, target=target)
        try:
            parts = collect_module(region)
        except opkit.CompileError as exc:
            print(arch, "error:", str(exc).splitlines()[-1])
            continue
        [ptx] = [ptx for key, (_, ptx) in _BINARIES.items() if key in parts.content()]  # the host module's key
        target = ptx.split(".target ")[1].split()[0]
        print(arch, "host module shipped:", find_shipped(region, parts) is not None, "kernels for:", target)
"""

ON_THE_GPU = """
import numpy as np
import opkit, opkit.gpu
from opkit.gpu.runtime import cupy
from arch_ops import ArchOpsGpu

x, y = opkit.gpu.vector("x", dtype="float32"), opkit.gpu.vector("y", dtype="float32")
f = opkit.function([x, y], ArchOpsGpu()(x, y), mode=opkit.Mode(device="cuda"))
a, b = np.arange(1000, dtype="float32"), np.linspace(0, 1, 1000, dtype="float32")
assert (cupy().asnumpy(f(cupy().asarray(a), cupy().asarray(b))) == a * b).all()
print("ran on the GPU without NVRTC")
"""


@needs_nvrtc
def test_build_arch_ships_cubins_and_ptx_that_load_without_nvrtc_or_a_compiler(plugin_venv, tmp_path):
    import json

    plugin_venv.run("-m", "opkit.cli", "new", "arch_ops", "--cuda", cwd=tmp_path)
    plugin_venv.run("-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--disable-pip-version-check",
                    "-e", str(tmp_path / "arch_ops"))  # editable: what --into adds is in the installed package
    package = tmp_path / "arch_ops" / "src" / "arch_ops"
    out = plugin_venv.run("-m", "opkit.cli", "build", "arch_ops_gpu", "--dtypes", "float32,float32", "--arch",
                          "sm_80,sm_90", "--into", str(package), cwd=tmp_path).stdout
    assert out.startswith("sm_80:\nkernels multiply_node_0: cubin ") and "\nsm_90:\nkernels multiply_node_0" in out
    shipped = package / "_opkit_modules"
    kernels = [json.loads(p.read_text()) for p in sorted((shipped / "kernels").glob("*/meta.json"))]
    assert sorted(meta["arch"] for meta in kernels) == ["sm_80", "sm_90"]
    for meta in kernels:
        entry = shipped / "kernels" / meta["key"]
        assert f"shipped kernels: {entry.relative_to(tmp_path)}" in out or f"shipped kernels: {entry}" in out
        assert (entry / "kernels.cubin").read_bytes()[:4] == b"\x7fELF"
        assert f".target {meta['arch']}" in (entry / "kernels.ptx").read_text()
        assert meta["symbols"] == ["multiply_node_0"] and meta["op"] == "arch_ops_gpu"
    hosts = [json.loads(p.read_text()) for p in shipped.glob("*/meta.json")]
    assert sorted((meta["arch"], meta["device"]) for meta in hosts) == [("sm_80", "cuda"), ("sm_90", "cuda")]
    doctor = plugin_venv.run("-m", "opkit.cli", "doctor", cwd=tmp_path, check=False).stdout
    assert ("arch_ops_gpu: (GpuArrayType(float32, vector), GpuArrayType(float32, vector); sm_80); "
            "(GpuArrayType(float32, vector), GpuArrayType(float32, vector); sm_90)") in doctor

    shown = plugin_venv.run("-m", "opkit.cli", "show", "arch_ops_gpu", "--dtypes", "float32,float32", "--arch", "sm_80",
                            cwd=tmp_path).stdout
    [sm_80] = [meta for meta in kernels if meta["arch"] == "sm_80"]
    assert f'opkit_kernel_module_key_node_0 = "{sm_80["kernel_key"]}";' in shown
    assert "OPKIT_LAUNCH(multiply, blocks, threads, 0, n, x, x_stride, y, y_stride, z)" in shown
    refused = plugin_venv.run("-m", "opkit.cli", "build", "arch_ops_gpu", "--dtypes", "float32,float32", "--arch",
                              "sm_10", cwd=tmp_path, check=False)
    assert refused.returncode == 2 and "--arch: this NVRTC cannot compile for sm_10; it knows sm_" in refused.stderr
    here = plugin_venv.run("-m", "opkit.cli", "build", "arch_ops_gpu", "--dtypes", "float32,float32", cwd=tmp_path,
                           check=False)
    if isinstance(_cupy_device_count(), int) and _cupy_device_count() > 0:
        assert here.returncode == 0 and here.stdout.startswith("sm_"), here.stderr
    else:
        assert here.returncode == 1
        why = "CuPy finds no CUDA device (" if has_cupy() else "device='cuda' needs CuPy, which is not installed ("
        assert here.stderr.startswith("opkit: error: ArchOpsGpu is a GPU op (it has CUDA kernels) and opkit builds "
                                      f"it for this machine's GPU, and here {why}"), here.stderr
        assert here.stderr.rstrip().endswith("fix: name the GPUs' architectures: --arch sm_80,sm_90 (NVRTC compiles "
                                             "for them without a GPU)")

    # The target machine: neither NVRTC nor a C++ compiler.
    env = {"OPKIT_NVRTC": str(tmp_path / "no" / "libnvrtc.so.12"), "OPKIT_FLAGS": "cxx=/nonexistent/bin/c++",
           "OPKIT_COMPILEDIR": str(tmp_path / "target-cache")}
    result = plugin_venv.run("-c", TARGET, cwd=tmp_path, env=env)
    assert result.stdout.splitlines() == [
        "no NVRTC",
        "sm_90 host module shipped: True kernels for: sm_90",
        "sm_80 host module shipped: True kernels for: sm_80",
        "sm_100 host module shipped: True kernels for: sm_90",  # a newer GPU: sm_90's PTX, compiled by the driver
        "sm_75 error: arch_ops ships kernels for sm_80, sm_90 (opkit build --arch), none for sm_75 or an "
        "architecture below it; ship one for sm_75, or install NVRTC",
    ]
    if isinstance(_cupy_device_count(), int) and _cupy_device_count() > 0:
        assert plugin_venv.run("-c", ON_THE_GPU, cwd=tmp_path, env=env).stdout.strip() == \
            "ran on the GPU without NVRTC"


def test_check_of_a_directory_lints_its_cuda_files_too(tmp_path, capsys):
    assert main(["new", "lint_ops", "--cuda", "--directory", str(tmp_path)]) == 0
    kernel = tmp_path / "lint_ops" / "src" / "lint_ops" / "lint_ops_gpu.cu"
    kernel.write_text(kernel.read_text().replace("DTYPE_INPUT_1* y, npy_intp y_stride", "DTYPE_INPTU_1* y, "
                                                                                        "npy_intp y_stride"))
    capsys.readouterr()
    status, out, err = run(capsys, "check", str(tmp_path / "lint_ops"))
    assert status == 1
    assert f"{kernel}:" in out and "did you mean DTYPE_INPUT_1?" in out
    assert "2 file(s) checked" in err


@pytest.mark.parametrize("nvrtc", NVRTC_OR_NOT)
def test_new_cuda_with_params_passes_its_own_tests(tmp_path, capsys, nvrtc):
    """`opkit new NAME --cuda --params`: the kernel takes PARAMS->scale from the host code; the package's GPU
    tests (registration aside: that needs a pip install) pass through the interpreter. (Its CPU tests are
    tests/cli/test_scaffold.py's --params case.)"""
    import os
    import subprocess

    assert main(["new", "par_gpu_ops", "--cuda", "--params", "--directory", str(tmp_path)]) == 0
    project = tmp_path / "par_gpu_ops"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(project / "src"), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", "-k",
                             "not registered", str(project / "tests" / "test_par_gpu_ops_gpu.py")], cwd=tmp_path,
                            env=env, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    _check_scaffold_outcome(result.stdout, total=29, on_device=14, dist="par-gpu-ops", nvrtc=nvrtc)


def test_a_cuda_scaffold_name_must_leave_room_for_its_longest_file(tmp_path):
    import os

    from opkit.cli import CommandFailed
    from opkit.cli.new import check_name_fits

    limit = os.pathconf(tmp_path, "PC_NAME_MAX")
    longest = limit - len("test__gpu.py") - len(".~") - 7
    check_name_fits("a" * longest, str(tmp_path), cuda=True)
    check_name_fits("a" * (longest + 4), str(tmp_path))  # without --cuda, tests/test_NAME.py is the longest
    with pytest.raises(CommandFailed, match=rf"the scaffold makes tests/test_NAME_gpu.py from it, so NAME may have "
                                            rf"at most {longest} characters"):
        check_name_fits("a" * (longest + 1), str(tmp_path), cuda=True)
