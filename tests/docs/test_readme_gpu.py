"""The README's "GPU ops" section, run literally: its .cu file and its Python example, through the CPU
interpreter here (device="cuda-interpret") and on the GPU where CuPy finds one."""

import os
import re
import subprocess
import sys
import pytest
from helpers.requires import needs_nvrtc

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTION = README[README.index("\n## GPU ops\n"):]
SECTION = SECTION[:SECTION.index("\n## ", 1)]
DEVICE_LINE = 'device = "cuda" if opkit.gpu.has_device() else "cuda-interpret"  # the CPU interpreter without a GPU'
PRINTS = "[4. 0. 9.]\nb'\\x7fELF'"


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", SECTION, re.S | re.M)


def _has_device() -> bool:
    import opkit.gpu.runtime

    return opkit.gpu.runtime.has_device()


def test_the_section_names_the_extra_the_file_and_the_commands():
    assert "pip install 'opkit-sdk[cuda]'" in SECTION
    assert 'super().__init__("squared_diff.cu")' in SECTION and "This is `squared_diff.cu`:" in SECTION
    for command in ("opkit new NAME --cuda", "--arch sm_80,sm_90 --into PACKAGE_DIR", "opkit doctor"):
        assert command in SECTION
    [cu] = blocks("c")
    assert cu.startswith("#section kernels\n") and "\n#section code\n" in cu
    assert "OPKIT_LAUNCH(squared_diff, blocks, 256, 0, n, x, y, z)" in cu and "opkit_gpu_empty(&OUTPUT_0" in cu
    assert f"prints `{PRINTS.splitlines()[0]}`" in SECTION
    assert README.index("\n## GPU ops\n") > README.index("\n## Parameters, state and libraries\n")
    links = re.findall(r"\]\(([\w./]+\.md)\)", SECTION)
    assert {"docs/gpu_interpreter.md", "docs/gpu_kernels.md"} <= set(links)
    assert all((ROOT / link).is_file() for link in links), links


@pytest.fixture(scope="module")
def example_dir(tmp_path_factory):
    """One folder holding the section's .cu file for every run of the example: the module the interpreter compiles
    names that file (#line), so the runs share one compiled module (one compile, not one a run)."""
    folder = tmp_path_factory.mktemp("readme_gpu")
    [cu] = blocks("c")
    (folder / "squared_diff.cu").write_text(cu)
    return folder


def _run_example(folder, name: str, python: str, **env) -> subprocess.CompletedProcess:
    """Run `python` as the script `name` beside the section's .cu file in `folder`."""
    script = folder / name
    script.write_text(python)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=folder, timeout=600,
                          env=dict(os.environ, OPKIT_FLAGS="", **env))


@needs_nvrtc
@pytest.mark.parametrize("device", ["as written", "cuda-interpret"])
def test_the_example_runs_and_prints_what_it_says(device, example_dir):
    """As written: the interpreter here, the GPU where CuPy finds one; the interpreter also on a GPU machine."""
    [python] = blocks("python")
    assert DEVICE_LINE in python
    if device != "as written":
        python = python.replace(DEVICE_LINE, f"device = {device!r}")
    done = _run_example(example_dir, f"example_{device.replace(' ', '_').replace('-', '_')}.py", python)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == PRINTS


@needs_nvrtc
def test_a_kernel_error_is_at_the_readme_files_line(tmp_path):
    """The section's promise: a kernel error is a CompileError at the user's file:line, naming the node."""
    [python] = blocks("python")
    [cu] = blocks("c")
    broken = cu.replace("z[i] = d * d;", "z[i] = d * undeclared;")
    line = broken.splitlines().index("        z[i] = d * undeclared;") + 1
    python = python.split("\ndevice = ")[0] + (
        '\nnode = SquaredDiff()(opkit.gpu.vector("x", dtype="float32"), opkit.gpu.vector("y", dtype="float32")).owner'
        "\ntry:\n    opkit.gpu.compile_kernels(node)\nexcept opkit.CompileError as exc:\n    print(exc)\n")
    (tmp_path / "squared_diff.cu").write_text(broken)
    script = tmp_path / "example.py"
    script.write_text(python)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"squared_diff.cu:{line}:" in done.stdout and "undeclared" in done.stdout
    assert "SquaredDiff" in done.stdout


def test_without_the_cuda_extra_the_example_stops_at_its_own_line_with_the_fix(example_dir, tmp_path):
    """Issue 45.3: where NVRTC is absent (here forced: OPKIT_NVRTC names no library), the example prints its
    interpreter result, then the error's traceback is the user's line and opkit's public function, not a dozen
    frames of the toolchain, before the message that names the fix."""
    [python] = blocks("python")
    script = example_dir / "example_without_nvrtc.py"
    done = _run_example(example_dir, script.name, python.replace(DEVICE_LINE, 'device = "cuda-interpret"'),
                        OPKIT_NVRTC=str(tmp_path / "no" / "libnvrtc.so.12"))
    assert done.returncode == 1 and done.stdout.strip() == PRINTS.splitlines()[0]
    trace = done.stderr[done.stderr.index("Traceback (most recent call last):"):]
    frames = re.findall(r'^  File "([^"]+)", line \d+, in (\S+)$', trace, re.M)
    assert frames == [(str(script), "<module>"), (frames[1][0], "compile_kernels")], trace
    assert frames[1][0].endswith(os.path.join("opkit", "cop", "kernels.py"))
    assert "NvrtcNotFoundError: NVRTC, the CUDA runtime compiler, is not installed" in trace
    assert "fix: set OPKIT_NVRTC to libnvrtc.so.12 (or .so.13) or the folder holding it, or unset it" in trace
