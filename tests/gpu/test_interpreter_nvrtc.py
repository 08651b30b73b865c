"""One text both ways: the kernels the interpreter runs in tests/gpu/test_interpreter*.py compile with NVRTC for
the GPU (sm_80, sm_90) as they are, with no GPU needed; nothing in them is refused by the interpreter's checks."""

import pathlib

import pytest
from helpers.requires import needs_nvrtc

from opkit.cop.toolchain import nvrtc
from opkit.cop.kernels import kernel_names
from opkit.gpu.interpret.refusals import check_interpretable, interpretable_text

HERE = pathlib.Path(__file__).resolve().parent
NODE = "#define APPLY_SPECIFIC(str) str##_node7\n"
TEXTS = {
    "interpreter_kernels.cu": ["axpy", "block_sum", "histogram", "warp_sums", "segment_scan", "votes",
                               "coordinates", "block_votes", "half_warp", "early_exit", "two_barriers", "wrong_mask",
                               "read_exited", "asserting", "trapping", "atomics", "bit_intrinsics", "conversions", "warp_extras", "racy_shift", "faulting", "extra_math"],
    "interpreter_contract_kernels.cu": ["scale_node7", "block_total_node7"],
}


def source(name):
    text = (HERE / name).read_text()
    return NODE + text if "APPLY_SPECIFIC" in text else text


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", sorted(TEXTS))
@needs_nvrtc
def test_the_interpreted_kernels_compile_with_nvrtc(name, arch):
    compiled = nvrtc.compile_cuda(source(name), filename=name, arch=arch)
    assert nvrtc.cubin_arch(compiled.cubin) == arch
    for kernel in TEXTS[name]:
        assert f".entry {kernel}(" in compiled.ptx


def test_the_kernels_section_names_are_the_nodes_kernels():
    assert kernel_names((HERE / "interpreter_contract_kernels.cu").read_text()) == ["scale", "block_total"]


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_the_interpreter_refuses_nothing_in_them(name):
    text = source(name)
    if "extern __shared__" in text:
        text = interpretable_text(text, name)
    check_interpretable(text, name)
