"""NVRTC through ctypes (opkit.cop.toolchain.nvrtc): real compiles, no GPU needed.

The library comes from pip's nvidia-cuda-nvrtc-cu12 wheel (`opkit-sdk[cuda]`), or from OPKIT_NVRTC.
"""

import os
import subprocess
import sys
import textwrap

import pytest
from helpers.requires import needs_nvrtc

from opkit.cop.toolchain import nvrtc
from opkit.errors import CompileError

KERNEL = 'extern "C" __global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }\n'


@needs_nvrtc
def test_version_and_archs():
    major, minor = nvrtc.nvrtc_version()
    assert major >= 12 and minor >= 0
    assert {80, 90} <= set(nvrtc.supported_archs())
    assert os.path.basename(nvrtc.find_library()).startswith("libnvrtc.so.")


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@needs_nvrtc
def test_compiles_a_cubin_and_its_ptx_for_each_arch(arch):
    compiled = nvrtc.compile_cuda(KERNEL, arch=arch)
    assert compiled.cubin[:4] == b"\x7fELF"
    assert nvrtc.cubin_arch(compiled.cubin) == arch
    assert compiled.arch == arch
    assert f".target {arch}" in compiled.ptx and ".entry scale(" in compiled.ptx
    assert "\0" not in compiled.ptx


@needs_nvrtc
def test_compute_arch_gives_ptx_only():
    compiled = nvrtc.compile_cuda(KERNEL, arch="compute_90")
    assert compiled.cubin == b"" and ".target sm_90" in compiled.ptx


@pytest.mark.parametrize("spelt, arch", [("sm_90", "sm_90"), ("sm90", "sm_90"), ("90", "sm_90"), (80, "sm_80"),
                                         ((8, 6), "sm_86"), ("SM_89", "sm_89"), ("compute_80", "compute_80"),
                                         ("sm_90a", "sm_90a")])
def test_arch_spellings(spelt, arch):
    assert nvrtc.normalize_arch(spelt) == arch


@needs_nvrtc
def test_unknown_and_unsupported_archs_are_named():
    with pytest.raises(ValueError, match="unknown CUDA architecture 'gfx90a'"):
        nvrtc.compile_cuda(KERNEL, arch="gfx90a")
    with pytest.raises(CompileError, match=r"cannot compile for sm_20; it knows: sm_\d+, .*sm_90"):
        nvrtc.compile_cuda(KERNEL, arch="sm_20")


@needs_nvrtc
def test_options_reach_nvrtc():
    fast = nvrtc.compile_cuda('extern "C" __global__ void f(float* x) { x[0] = __fdividef(x[0], 3.0f) + '
                              'x[1] / x[2]; }\n', options=["-use_fast_math"])
    plain = nvrtc.compile_cuda('extern "C" __global__ void f(float* x) { x[0] = __fdividef(x[0], 3.0f) + '
                               'x[1] / x[2]; }\n')
    assert fast.ptx != plain.ptx  # fast math: an approximate division
    with pytest.raises(CompileError) as info:
        nvrtc.compile_cuda(KERNEL, options=["--not-an-option"])
    assert "failed (NVRTC_ERROR_INVALID_OPTION)" in str(info.value)
    assert info.value.errors == ["nvrtc: error: unrecognized option --not-an-option found"]


@needs_nvrtc
def test_error_names_the_file_and_line_of_the_line_directive(tmp_path):
    source = tmp_path / "kept.cu"
    source.write_text("x")
    text = '#line 40 "/somewhere/my_op.c"\nextern "C" __global__ void f(float* x)\n{\n    x[0] = nope;\n}\n'
    with pytest.raises(CompileError) as info:
        nvrtc.compile_cuda(text, "prog.cu", source_path=source)
    error = info.value
    assert error.errors == ['/somewhere/my_op.c:42: error: identifier "nope" is undefined']
    message = str(error)
    version = ".".join(map(str, nvrtc.nvrtc_version()))  # 12.x or 13.x: whichever wheel find_library picks
    assert message.startswith(f"compiling CUDA kernels with NVRTC {version} for sm_90 failed")
    assert "NVRTC_ERROR_COMPILATION" in message
    assert f"full source kept at {source}" in message
    log = tmp_path / "kept.log"
    assert f"full NVRTC log in {log}" in message
    assert '/somewhere/my_op.c(42): error: identifier "nope" is undefined' in log.read_text()
    assert log.read_text().startswith("$ nvrtc --gpu-architecture=sm_90")
    assert oct(log.stat().st_mode & 0o777) == "0o600"
    assert error.command[0] == "nvrtc" and error.returncode == 6 and error.output


@needs_nvrtc
def test_missing_header_hint():
    with pytest.raises(CompileError) as info:
        nvrtc.compile_cuda('#include <cuda_fp16.h>\n' + KERNEL)
    assert "hint: header 'cuda_fp16.h' not found: NVRTC has no C library and no CUDA toolkit headers" in str(info.value)


@needs_nvrtc
def test_include_dirs_are_searched(tmp_path):
    (tmp_path / "helper.h").write_text("__device__ inline float twice(float v) { return 2 * v; }\n")
    compiled = nvrtc.compile_cuda('#include "helper.h"\nextern "C" __global__ void f(float* x) '
                                  '{ x[0] = twice(x[0]); }\n', include_dirs=[str(tmp_path)])
    assert compiled.cubin[:4] == b"\x7fELF"


@needs_nvrtc
def test_compiles_are_counted():
    before = nvrtc.nvrtc_events["compiled"]
    nvrtc.compile_cuda(KERNEL)
    assert nvrtc.nvrtc_events["compiled"] == before + 1


def test_missing_nvrtc_names_the_extra(monkeypatch):
    monkeypatch.delenv(nvrtc.ENVIRONMENT, raising=False)
    monkeypatch.setattr(nvrtc, "_wheel_folders", lambda: [])
    with pytest.raises(nvrtc.NvrtcNotFoundError) as info:
        nvrtc.nvrtc_version()
    message = str(info.value)
    assert message.startswith("NVRTC, the CUDA runtime compiler, is not installed: CUDA kernels cannot be compiled")
    assert "fix: pip install opkit-sdk[cuda]" in message
    assert isinstance(info.value, CompileError)


def test_override_that_names_nothing(monkeypatch, tmp_path):
    monkeypatch.setenv(nvrtc.ENVIRONMENT, str(tmp_path / "libnvrtc.so.12"))
    with pytest.raises(nvrtc.NvrtcNotFoundError) as info:
        nvrtc.compile_cuda(KERNEL)
    assert f"looked for:\n  {tmp_path / 'libnvrtc.so.12'}" in str(info.value)
    assert f"fix: set {nvrtc.ENVIRONMENT} to libnvrtc.so.12" in str(info.value)


def test_override_with_a_file_that_is_no_library(monkeypatch, tmp_path):
    bogus = tmp_path / "libnvrtc.so.12"
    bogus.write_bytes(b"not a library")
    monkeypatch.setenv(nvrtc.ENVIRONMENT, str(bogus))
    with pytest.raises(nvrtc.NvrtcNotFoundError, match=f"NVRTC at {bogus} cannot be loaded"):
        nvrtc.nvrtc_version()


@needs_nvrtc
def test_override_with_a_folder_in_a_fresh_process(tmp_path):
    folder = os.path.dirname(nvrtc.find_library())
    code = textwrap.dedent("""
        import sys
        from opkit.cop.toolchain import nvrtc
        print(nvrtc.find_library(), nvrtc.nvrtc_version(), "cuda" in sys.modules, "cupy" in sys.modules)
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, nvrtc.ENVIRONMENT: folder})
    path, rest = run.stdout.split(" ", 1)
    assert os.path.dirname(path) == folder
    assert rest.strip().endswith("False False")  # no cuda-bindings, no CuPy


def test_log_errors_keep_errors_first_and_convert_the_format():
    log = ("a.c(3): warning #177-D: variable \"v\" was declared but never referenced\n"
           "a.c(5): error: expected a \";\"\nb.h(1): catastrophic error: cannot open source file \"c.h\"\n")
    assert nvrtc.log_errors(log) == ['a.c:5: error: expected a ";"',
                                    'b.h:1: catastrophic error: cannot open source file "c.h"']
    assert nvrtc.log_diagnostics(log)[0] == ("a.c", 3, "warning", 'variable "v" was declared but never referenced')
    assert nvrtc.log_errors("something else went wrong\n") == ["something else went wrong"]


def test_cubin_arch_rejects_what_is_no_cubin():
    with pytest.raises(ValueError, match="not a CUDA cubin"):
        nvrtc.cubin_arch(b"\x7fELF" + bytes(60))


@needs_nvrtc
def test_wheel_layouts_newest_cuda_first_without_cupy(monkeypatch, tmp_path):
    """Without a CuPy wheel the newest NVRTC comes first (with one, CuPy's CUDA: tests/gpu/test_nvrtc_wheels.py)."""
    real = nvrtc.find_library()
    monkeypatch.setattr(nvrtc, "cupy_cuda_major", lambda: None)
    (tmp_path / "cuda_nvrtc" / "lib").mkdir(parents=True)
    (tmp_path / "cuda_nvrtc" / "lib" / "libnvrtc.so.12").symlink_to(real)
    monkeypatch.delenv(nvrtc.ENVIRONMENT, raising=False)
    monkeypatch.setattr(nvrtc, "_wheel_folders", lambda: [str(tmp_path)])
    assert nvrtc.find_library() == str(tmp_path / "cuda_nvrtc" / "lib" / "libnvrtc.so.12")
    (tmp_path / "cu13" / "lib").mkdir(parents=True)
    (tmp_path / "cu13" / "lib" / "libnvrtc.so.13").symlink_to(real)  # CUDA 13's wheel: nvidia/cu13/lib
    assert nvrtc.find_library() == str(tmp_path / "cu13" / "lib" / "libnvrtc.so.13")
    assert nvrtc.compile_cuda(KERNEL).cubin[:4] == b"\x7fELF"
