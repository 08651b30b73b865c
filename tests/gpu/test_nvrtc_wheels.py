"""NVRTC from either of NVIDIA's pip wheels, and from both installed side by side (issue 44). No GPU needed.

CUDA 12's nvidia-cuda-nvrtc-cu12 (`opkit-sdk[cuda]`) installs nvidia/cuda_nvrtc/lib/libnvrtc.so.12; CUDA 13's
nvidia-cuda-nvrtc, which PyPI's torch pulls, installs nvidia/cu13/lib/libnvrtc.so.13. NVRTC opens its builtins
library by name at its first compile, and CUDA 13's library has no RUNPATH to find it beside itself: every compile
failed with "failed to open libnvrtc-builtins.so.13.0". The compiles here run in a fresh process, where no
builtins library is loaded yet, without LD_LIBRARY_PATH.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from opkit.cop.toolchain import nvrtc

# wheel -> (its folder under `nvidia`, its library, the line that installs it)
WHEELS = {"cuda13": ("cu13/lib", "libnvrtc.so.13", "pip install 'nvidia-cuda-nvrtc==13.*'"),
          "cuda12": ("cuda_nvrtc/lib", "libnvrtc.so.12", nvrtc.INSTALL_HINT)}
ARCHS = ["sm_80", "sm_90", "sm_100"]  # CUDA 12 writes sm_100's cubin in ELF ABI V2, CUDA 13 every one
# Warp shuffles and votes, atomics, math functions: what NVRTC takes from its builtins library.
KERNEL = """extern "C" __global__ void mix(float* x, int* count, unsigned* top)
{
    float v = x[threadIdx.x];
    v += __shfl_down_sync(0xffffffffu, v, 1);
    atomicAdd(count, __popc(__ballot_sync(0xffffffffu, v > 0.0f)));
    atomicMax(top, __float_as_uint(erff(v) + expf(v) + lgammaf(v)));
    x[threadIdx.x] = v;
}
"""

COMPILE = textwrap.dedent("""
    import json, os, sys
    from opkit.cop.toolchain import nvrtc
    from opkit.errors import CompileError
    text = sys.argv[1]
    results = []
    for override, arch in json.loads(sys.argv[2]):
        os.environ.pop(nvrtc.ENVIRONMENT, None)
        if override:
            os.environ[nvrtc.ENVIRONMENT] = override
        try:
            compiled = nvrtc.compile_cuda(text, "kernels.cu", arch=arch)
        except CompileError as exc:
            results.append({"error": str(exc)})
            continue
        results.append({"library": nvrtc.find_library(), "version": nvrtc.nvrtc_version(),
                        "cubin": nvrtc.cubin_arch(compiled.cubin), "ptx": compiled.ptx})
    print(json.dumps(results))
""")


def wheel_library(wheel):
    """Return the path of `wheel`'s NVRTC library where it is installed here, else None."""
    folder, name, _ = WHEELS[wheel]
    for root in nvrtc._wheel_folders():
        if os.path.isfile(os.path.join(root, folder, name)):
            return os.path.join(root, folder, name)
    return None


def installed():
    return [wheel for wheel in WHEELS if wheel_library(wheel)]


def require(*wheels):
    """Skip where no NVRTC is here, or one of `wheels` is absent, naming the line that installs what is missing."""
    if not installed():
        pytest.skip(f"needs NVRTC, which is not installed: {nvrtc.INSTALL_HINT}")
    for wheel in wheels:
        if wheel_library(wheel) is None:
            pytest.skip(f"needs the {wheel} NVRTC wheel ({WHEELS[wheel][1]}), which is not installed: "
                        f"{WHEELS[wheel][2]}")


def compile_in_a_fresh_process(steps):
    """Compile KERNEL in a new process for each (OPKIT_NVRTC or None, arch) of `steps`; return what each gave."""
    env = {key: value for key, value in os.environ.items() if key not in ("LD_LIBRARY_PATH", nvrtc.ENVIRONMENT)}
    run = subprocess.run([sys.executable, "-c", COMPILE, KERNEL, json.dumps(steps)], capture_output=True,
                         text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def check_compiled(result, library, arch):
    assert "error" not in result, result["error"]
    assert result["library"] == library
    assert result["version"][0] == int(library.rsplit(".", 1)[1])  # libnvrtc.so.13 is NVRTC 13.x
    assert result["cubin"] == arch
    assert f".target {arch}" in result["ptx"]
    assert ".entry mix(" in result["ptx"] and "shfl.sync.down" in result["ptx"]


def test_the_wheels_are_those_opkit_looks_for():
    assert [(folder, name) for folder, name, _ in WHEELS.values()] == list(nvrtc.WHEEL_LIBRARIES)


@pytest.mark.parametrize("wheel", list(WHEELS))
def test_each_wheel_compiles_when_chosen(wheel):
    """Each installed wheel, named by OPKIT_NVRTC (its folder), compiles for every arch in a fresh process."""
    require(wheel)
    library = wheel_library(wheel)
    results = compile_in_a_fresh_process([(os.path.dirname(library), arch) for arch in ARCHS])
    for result, arch in zip(results, ARCHS):
        check_compiled(result, library, arch)


def test_the_default_choice_compiles():
    """With no OPKIT_NVRTC, opkit takes the wheel of CuPy's CUDA where CuPy is installed (cupy-cuda12x: 12, whose
    driver loads what it compiles), else the newest (CUDA 13's beside CUDA 12's), and it compiles."""
    from opkit.cop.toolchain import nvrtc

    require()
    major = nvrtc.cupy_cuda_major()
    wheels = installed()
    preferred = [wheel for wheel in wheels if wheel == f"cuda{major}"]
    library = wheel_library((preferred or wheels)[0])
    [result] = compile_in_a_fresh_process([(None, "sm_90")])
    check_compiled(result, library, "sm_90")


def test_both_wheels_serve_one_process():
    """CUDA 13's NVRTC, then CUDA 12's, then 13's again in one process: each with its own builtins library."""
    require("cuda12", "cuda13")
    order = ["cuda13", "cuda12", "cuda13", "cuda12"]
    results = compile_in_a_fresh_process([(wheel_library(wheel), "sm_90") for wheel in order])
    for result, wheel in zip(results, order):
        check_compiled(result, wheel_library(wheel), "sm_90")
    assert results[0]["ptx"] == results[2]["ptx"] != results[1]["ptx"] == results[3]["ptx"]


def _link_or_copy(source, target):
    try:
        os.link(source, target)
    except OSError:  # another file system
        shutil.copyfile(source, target)


@pytest.mark.parametrize("wheel", list(WHEELS))
def test_builtins_are_found_beside_a_symlink_to_the_library(wheel, tmp_path):
    """OPKIT_NVRTC naming a link to a wheel's library: its builtins lie beside the file it links to."""
    require(wheel)
    library = wheel_library(wheel)
    link = tmp_path / os.path.basename(library)
    link.symlink_to(library)
    [result] = compile_in_a_fresh_process([(str(link), "sm_90")])
    assert "error" not in result, result["error"]
    assert result["library"] == str(link) and result["cubin"] == "sm_90"


@pytest.mark.parametrize("wheel", list(WHEELS))
def test_a_library_without_its_builtins_names_the_fix(wheel, tmp_path):
    """A library alone in its folder (no builtins beside it nor on LD_LIBRARY_PATH): the error names what is missing."""
    require(wheel)
    library = tmp_path / os.path.basename(wheel_library(wheel))
    _link_or_copy(wheel_library(wheel), library)
    [result] = compile_in_a_fresh_process([(str(library), "sm_90")])
    [builtins] = [name for name in os.listdir(os.path.dirname(wheel_library(wheel)))
                  if name.startswith("libnvrtc-builtins.so.")]  # what the wheel holds, libnvrtc-builtins.so.13.0
    message = result["error"]
    assert "failed (NVRTC_ERROR_BUILTIN_OPERATION_FAILURE)" in message
    assert f"failed to open {builtins}" in message
    assert (f"hint: NVRTC's builtins library {builtins} is not beside {library} (nor on LD_LIBRARY_PATH): reinstall "
            f"the wheel that holds {library.name}, or set {nvrtc.ENVIRONMENT} to a folder holding both "
            f"{library.name} and {builtins}") in message


def test_builtins_names():
    assert nvrtc.builtins_name((13, 0)) == "libnvrtc-builtins.so.13.0"
    assert nvrtc.builtins_name((12, 9)) == "libnvrtc-builtins.so.12.9"


@pytest.mark.parametrize("abi, flags", [(0x33, 0x5A055A), (0x41, 0x6005A04)])
def test_cubin_arch_reads_both_cuda_elf_abis(abi, flags):
    """CUDA 12 below sm_100 keeps the SM in e_flags' low byte (OS/ABI 0x33), CUDA 13 in its second (0x41)."""
    header = bytearray(64)
    header[:8] = b"\x7fELF\x02\x01\x01" + bytes([abi])
    header[48:52] = flags.to_bytes(4, "little")
    assert nvrtc.cubin_arch(bytes(header)) == "sm_90"
    header[7] = 0x40
    with pytest.raises(ValueError, match="not a CUDA cubin"):
        nvrtc.cubin_arch(bytes(header))


PREFERENCE = """
import sys
sys.path[:0] = [{site!r}]
from opkit.cop.toolchain import nvrtc
print(nvrtc.cupy_cuda_major(), nvrtc.find_library().rsplit("/", 3)[-3])
"""


@pytest.mark.parametrize("cupy, expected", [(None, "None cu13"), ("cupy_cuda12x", "12 cuda_nvrtc"),
                                            ("cupy_cuda13x", "13 cu13")])
def test_where_both_wheels_are_installed_cupy_s_cuda_comes_first(cupy, expected, tmp_path):
    """A cubin of a newer CUDA than the driver CuPy was built for may not load: with cupy-cuda12x, NVRTC 12."""
    import subprocess
    import sys

    site = tmp_path / "site"
    for folder, name, _ in WHEELS.values():
        (site / "nvidia" / folder).mkdir(parents=True)
        (site / "nvidia" / folder / name).write_bytes(b"")  # found, never loaded: find_library only looks
    if cupy:
        info = site / f"{cupy}-14.0.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {cupy.replace('_', '-')}\nVersion: 14.0.0\n")
    env = {k: v for k, v in os.environ.items() if k != nvrtc.ENVIRONMENT}
    hidden = [n for n in ("cupy-cuda12x", "cupy-cuda13x", "cupy-cuda11x") if _installed_distribution(n)]
    if hidden and cupy is None:
        pytest.skip(f"{hidden[0]} is installed here: the case without CuPy needs an environment without it")
    result = subprocess.run([sys.executable, "-c", PREFERENCE.format(site=str(site))], capture_output=True,
                            text=True, env=env, check=True)
    assert result.stdout.split() == expected.split()


def _installed_distribution(name):
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        distribution(name)
    except PackageNotFoundError:
        return False
    return True
