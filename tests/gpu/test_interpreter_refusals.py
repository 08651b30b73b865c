"""What the CUDA interpreter cannot run faithfully is refused before g++ sees it, naming the construct and the
user's file:line (opkit.gpu.interpret.refusals); dynamic shared memory is given the launch's shared_bytes."""

import pytest

from opkit.gpu.interpret.refusals import KernelNotInterpretable, check_interpretable, interpretable_text
from opkit.errors import CompileError

USER_FILE = "/home/user/ops/my_op.cu"


def kernels(body):
    """A kernels section as kernel_source gives it: macros, then a #line directive at the user's file."""
    return ("#define APPLY_SPECIFIC(str) str##_node3\n"
            f'#line 20 "{USER_FILE}"\n'
            'extern "C" __global__ void APPLY_SPECIFIC(k)(int n, float* y)\n'
            "{\n"
            "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            f"{body}\n"
            "}\n")


@pytest.mark.parametrize("body, construct", [
    ('    asm volatile("membar.gl;");', "inline assembly (asm)"),
    ("    __asm__(\"nop\");", "inline assembly (asm)"),
    ("    long long t = clock64();", "clock()/clock64()"),
    ("    clock_t t = clock();", "clock()/clock64()"),
    ("    __nanosleep(100);", "__nanosleep"),
    ("    float v = tex1Dfetch<float>(tex, i);", "textures and surfaces"),
    ("    cudaTextureObject_t t = 0;", "textures and surfaces"),
    ("    __half h = __float2half(1.0f);", "half precision (__half, __nv_bfloat16)"),
    ("    __nv_bfloat16 b;", "half precision (__half, __nv_bfloat16)"),
    ("    y[i] = __expf(y[i]);", "a fast approximate intrinsic"),
    ("    y[i] = __fdividef(y[i], 3.0f);", "a fast approximate intrinsic"),
    ("    y[i] = __sinf(y[i]);", "a fast approximate intrinsic"),
    ("    y[i] = __frsqrt_rn(y[i]);", "__frsqrt_rn"),
    ("    y[i] = __fadd_rz(y[i], 1.0f);", "a directed-rounding intrinsic (_rz, _ru, _rd)"),
    ("    float k = __int2float_rd(n);", "a directed-rounding intrinsic (_rz, _ru, _rd)"),
    ("    double k = __dmul_ru(y[i], 2.0);", "a directed-rounding intrinsic (_rz, _ru, _rd)"),
    ("    unsigned m = __activemask();", "__activemask()"),
    ("    float v = __shfl_down(y[i], 1);", "a warp function without _sync"),
    ("    int b = __ballot(y[i] > 0);", "a warp function without _sync"),
    ("    volatile float* s = y;", "volatile"),
    ("    other<<<1, 32>>>(y);", "a kernel launch inside kernels (dynamic parallelism)"),
    ("    namespace cg = cooperative_groups;", "cooperative groups"),
    ("    cg::this_grid().sync();", "cooperative groups"),
    ("    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;", "tensor-core matrix operations (wmma)"),
    ("    extern __shared__ float s[];", "dynamic shared memory (extern __shared__) in this form"),
])
def test_refused_constructs_name_themselves_and_the_users_line(body, construct):
    with pytest.raises(KernelNotInterpretable) as info:
        check_interpretable(kernels(body), "<kernels>")
    error = info.value
    assert (error.path, error.line, error.construct) == (USER_FILE, 23, construct)
    assert str(error).startswith(f"{USER_FILE}:23: the CUDA interpreter (device='cuda-interpret') cannot run "
                                 f"{construct}: ")
    assert str(error).endswith("(docs/gpu_interpreter.md lists what it runs)")
    assert isinstance(error, CompileError) and isinstance(error, NotImplementedError)


@pytest.mark.parametrize("header", ["cuda_fp16.h", "cuda_runtime.h", "cub/cub.cuh", "thrust/sort.h", "mma.h",
                                    "cooperative_groups.h", "curand_kernel.h"])
@pytest.mark.parametrize("quote", ["<>", '""'])
def test_cuda_headers_are_refused(header, quote):
    text = f'#line 3 "{USER_FILE}"\n#include {quote[0]}{header}{quote[1]}\n'
    with pytest.raises(KernelNotInterpretable) as info:
        check_interpretable(text, "<kernels>")
    assert str(info.value).startswith(f"{USER_FILE}:3: the CUDA interpreter (device='cuda-interpret') cannot run "
                                      f"#include <{header}>: the interpreter gives kernels CUDA's built-ins, not "
                                      "CUDA's headers")


@pytest.mark.parametrize("header", ["cassert", "assert.h"])
def test_including_the_c_librarys_assert_is_refused(header):
    with pytest.raises(KernelNotInterpretable) as info:
        check_interpretable(f'#line 3 "{USER_FILE}"\n#include <{header}>\n', "<kernels>")
    assert str(info.value).startswith(f"{USER_FILE}:3: the CUDA interpreter (device='cuda-interpret') cannot run "
                                      f"#include <{header}>: it would give kernels the C library's assert, which "
                                      "NDEBUG turns off, while a GPU checks them; leave it out")


@pytest.mark.parametrize("body", [
    "    // asm volatile, clock64(), __expf and <<< in a comment",
    '    const char* s = "volatile asm __half";',
    "    /* extern __shared__ float s[]; */",
    "    __shared__ float s[64]; s[threadIdx.x] = y[i]; __syncthreads();",
    "    y[i] = expf(y[i]) + __fadd_rn(y[i], 1.0f) + __saturatef(y[i]);",
    "    y[i] = __shfl_down_sync(0xffffffff, y[i], 1) + __ballot_sync(0xffffffff, 1);",
    "    atomicAdd(&y[0], 1.0f); float clocks = 0; int halfway = n / 2; float texture_size = 1;",
    '    if (i == 0) printf("n = %d\\n", n);',
    "    int a = __float2int_rz(y[i]) + __double2ll_rd(1.5) + __float2uint_ru(2.5f) + __double2ull_rn(3.0);",
])
def test_what_the_interpreter_runs_passes(body):
    check_interpretable(kernels(body), "<kernels>")


def test_lines_without_a_directive_are_the_texts_own_under_the_given_path():
    with pytest.raises(KernelNotInterpretable) as info:
        check_interpretable("int a;\nint b;\nasm(\"nop\");\n", "generated.cu")
    assert (info.value.path, info.value.line) == ("generated.cu", 3)


def test_the_first_refused_construct_is_named():
    with pytest.raises(KernelNotInterpretable) as info:
        check_interpretable(kernels("    y[i] = __expf(y[i]);\n    asm(\"nop\");"), "<kernels>")
    assert info.value.construct == "a fast approximate intrinsic"


def test_escaped_paths_in_line_directives_are_read_back():
    text = '#line 7 "/tmp/a \\"quoted\\" dir/op.cu"\nvolatile int x;\n'
    with pytest.raises(KernelNotInterpretable) as info:
        check_interpretable(text, "<kernels>")
    assert info.value.path == '/tmp/a "quoted" dir/op.cu' and info.value.line == 7


@pytest.mark.parametrize("declaration, element", [
    ("extern __shared__ float s[];", "float"),
    ("extern __shared__ __align__(16) unsigned char s[];", "unsigned char"),
    ("extern  __shared__  double2 s [ ] ;", "double2"),
    ("extern __shared__ int* s[];", "int*"),
])
def test_dynamic_shared_memory_becomes_the_launches_buffer_on_the_same_line(declaration, element):
    text = kernels(f"    {declaration}\n    s[threadIdx.x] = 0;")
    rewritten = interpretable_text(text, "<kernels>")
    assert rewritten.count("\n") == text.count("\n")
    line = rewritten.splitlines()[5]
    assert line.startswith(f"    struct opkit_dynamic_shared_s {{ {element}* get() const {{ return ({element}*)"
                           "::opkit_interp::dynamic_shared(); }")
    assert line.endswith(" const s = {};")


def test_interpretable_text_still_refuses_the_rest():
    with pytest.raises(KernelNotInterpretable, match="cannot run inline assembly"):
        interpretable_text(kernels('    extern __shared__ float s[];\n    asm("nop");'), "<kernels>")


def test_launch_bounds_are_registered_after_the_kernels_body_on_the_same_line():
    text = ('#line 3 "/u/op.cu"\n'
            'extern "C" __global__ void __launch_bounds__(128, 2) APPLY_SPECIFIC(k)(int n, float* y)\n'
            "{\n"
            "    if (n) { y[0] = 1; }  // } in a comment\n"
            "}\n"
            'extern "C" __global__ void __launch_bounds__(MAXT) declared_only(float* y);\n'
            'extern "C" __global__ void __launch_bounds__(256) plain(float* y) { y[0] = "}"[0]; }\n')
    rewritten = interpretable_text(text, "<kernels>")
    assert rewritten.count("\n") == text.count("\n")
    lines = rewritten.splitlines()
    assert lines[4] == ("} static const int opkit_launch_bounds_0 = ::opkit_interp::launch_bounds("
                        "(const void*)&APPLY_SPECIFIC(k), (long long)(128));")
    assert lines[5] == text.splitlines()[5]
    assert lines[6].endswith('y[0] = "}"[0]; } static const int opkit_launch_bounds_2 = '
                             "::opkit_interp::launch_bounds((const void*)&plain, (long long)(256));")
