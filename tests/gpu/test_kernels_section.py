"""`#section kernels` (opkit.cop.kernels): macros, `#line`, NVRTC compiles for sm_80 and sm_90, errors at the
user's file:line, the identity and the cache (a second process compiles nothing), `opkit check`. No GPU needed."""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from helpers.requires import has_nvrtc, needs_nvrtc

import opkit
import opkit.tensor as ot
from opkit.cop import kernels
from opkit.cop.store import kernel_cache as kernel_store
from opkit.cop.toolchain import identity, nvrtc, nvrtc_kernels
from opkit.cop.source.lint import check_file
from opkit.errors import CompileError
from tests.gpu.ops.kernel_ops import HERE, MethodKernels, Unary, axpy_node, unary_node

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64", "complex64", "complex128"]


def copy_op_files(tmp_path, *names):
    """Copy test op files into tmp_path (to edit them); return the first copy's path."""
    for name in names:
        shutil.copy(os.path.join(HERE, name), tmp_path / name)
    return tmp_path / names[0]


# ---- the section and its macros ----

def test_kernels_text_has_the_nodes_macros_and_a_line_directive():
    text = kernels.kernel_source(axpy_node("float32", "int16"), "node_7")
    assert "#define APPLY_SPECIFIC(str) str##_node_7\n" in text
    for macro, value in [("DTYPE_INPUT_0", "npy_float32"), ("DTYPE_INPUT_1", "npy_int16"),
                         ("DTYPE_OUTPUT_0", "npy_int16"), ("TYPENUM_INPUT_1", "NPY_INT16"), ("ITEMSIZE_INPUT_0", "4")]:
        assert f"#define {macro} {value}\n" in text
        assert f"#undef {macro}\n" in text
    assert f'#line 2 "{os.path.join(HERE, "axpy.c")}"\n#include "axpy_helpers.h"\n' in text
    assert "FAIL" not in text.replace("if (0) FAIL", "") and "#define INPUT_0" not in text  # host macros: none
    assert "#section code" not in text and "if (0) FAIL" not in text  # the code section is not in it


@pytest.mark.parametrize("dtype", DTYPES)
@needs_nvrtc
def test_each_dtype_compiles_with_numpys_type_size_and_number(dtype):
    node = unary_node("copy.c", dtype)
    text = kernels.kernel_source(node)
    ctype = "npy_bool" if dtype == "bool" else f"npy_{dtype}"
    assert f"#define DTYPE_INPUT_0 {ctype}\n" in text
    cubin = kernels.compile_kernels(node, options=[f"-DEXPECTED_TYPENUM={np.dtype(dtype).num}"])
    assert nvrtc.cubin_arch(cubin) == "sm_90"
    assert b"copy_node_0" in cubin


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@needs_nvrtc
def test_compile_kernels_for_sm_80_and_sm_90(arch):
    node = axpy_node()
    module = kernels.kernel_module(node, arch)
    assert module.arch == arch and module.cubin[:4] == b"\x7fELF" and nvrtc.cubin_arch(module.cubin) == arch
    assert f".target {arch}" in module.ptx  # the PTX fallback, for a device the cubin does not fit
    assert module.symbols == ("axpy_node_0", "fill_node_0")
    assert all(f".entry {symbol}(" in module.ptx for symbol in module.symbols)
    assert kernels.compile_kernels(node, arch) == module.cubin
    assert kernels.kernel_binary(module.key) == (module.cubin, module.ptx)


@needs_nvrtc
def test_the_node_name_names_the_symbols():
    module = kernels.kernel_module(axpy_node(), name="node_12")
    assert module.symbols == ("axpy_node_12", "fill_node_12")
    assert b"axpy_node_12" in module.cubin and b"axpy_node_0" not in module.cubin


@needs_nvrtc
def test_compute_arch_gives_ptx_only():
    module = kernels.kernel_module(axpy_node(), "compute_90")
    assert module.cubin == b"" and ".target sm_90" in module.ptx
    assert kernels.compile_kernels(axpy_node(), "compute_90") == module.ptx.encode()
    assert kernels.kernel_binary(module.key) == (b"", module.ptx)


@needs_nvrtc
def test_c_kernels_method_gets_the_same_macros():
    node = MethodKernels()(ot.fvector("x")).owner
    text = kernels.kernel_source(node, "node_3")
    assert "#define APPLY_SPECIFIC(str) str##_node_3\n" in text and "#define DTYPE_INPUT_0 npy_float32\n" in text
    assert kernels.kernel_names(text) == ["twice"]
    assert kernels.kernel_module(node, "sm_80", name="node_3").symbols == ("twice_node_3",)
    assert kernels.has_kernels(node.op) and kernels.has_kernels(axpy_node().op)


def test_an_op_without_kernels():
    node = unary_node(os.path.join(ROOT, "tests", "data", "cop", "checked_sqrt.c"))
    assert kernels.kernel_source(node) == "" and not kernels.has_kernels(node.op)
    with pytest.raises(ValueError, match="Unary has no CUDA kernels: its C files have no '#section kernels' and it "
                                         r"defines no c_kernels\(node, name\) method"):
        kernels.compile_kernels(node)


def test_kernel_names():
    text = textwrap.dedent("""
        // extern "C" __global__ void APPLY_SPECIFIC(in_a_comment)(int* x)
        /* extern "C" __global__ void APPLY_SPECIFIC(in_a_block_comment)(int* x) */
        extern "C" __global__ void APPLY_SPECIFIC(first)(int* x) {}
        extern "C" __global__ __launch_bounds__(256) void APPLY_SPECIFIC(second)(int* x) {}
        extern "C"
        __global__ void
        APPLY_SPECIFIC( third )(int* x) {}
        __global__ void APPLY_SPECIFIC(mangled)(int* x) {}
        extern "C" __global__ void plain(int* x) {}
        extern "C" __global__ void APPLY_SPECIFIC(first)(int* x, int n);
    """)
    assert kernels.kernel_names(text) == ["first", "second", "third"]
    assert kernels.kernel_symbol("first", "node_2") == "first_node_2"


# ---- errors ----

@needs_nvrtc
def test_a_kernel_error_points_at_the_users_file_and_line_and_names_the_node():
    path = os.path.join(HERE, "broken.c")
    node = axpy_node(c_file=path)
    with pytest.raises(CompileError) as info:
        kernels.compile_kernels(node)
    error = info.value
    assert error.errors == [f'{path}:5: error: identifier "undeclared_value" is undefined']
    message = str(error)
    assert message.startswith(f"compiling CUDA kernels with NVRTC {'.'.join(map(str, nvrtc.nvrtc_version()))} ")
    assert f"while compiling the CUDA kernels of:\n  {node}  [op tests.gpu.ops.kernel_ops.Axpy, node name node_0]" \
        in message
    assert error.node is node
    kept = error.source_path
    assert f"full source kept at {kept}" in message and kept.endswith("kernels.cu")
    assert open(kept).read() == kernels.program_text(node)  # the source NVRTC compiled, kept
    assert "undeclared_value" in open(kept[:-len(".cu")] + ".log").read()
    assert kernels.kernel_events["built"] >= 0  # nothing published
    with pytest.raises(LookupError, match="no compiled CUDA kernels with key"):
        kernels.kernel_binary(kernels.kernel_module_key(node))


@needs_nvrtc
def test_a_misspelt_macro_gets_a_hint(tmp_path):
    path = copy_op_files(tmp_path, "copy.c")
    path.write_text(path.read_text().replace("DTYPE_OUTPUT_0* y)", "DTYPE_OUTPTU_0* y)"))
    with pytest.raises(CompileError) as info:
        kernels.compile_kernels(unary_node(path))
    assert f"hint: {path}:10: DTYPE_OUTPTU_0 is not an opkit macro (nor #defined in this file); did you mean " \
           "DTYPE_OUTPUT_0?" in str(info.value)


def test_nvrtc_missing_names_the_extra(monkeypatch):
    monkeypatch.setattr(nvrtc, "_wheel_folders", lambda: [])
    monkeypatch.delenv(nvrtc.ENVIRONMENT, raising=False)
    with pytest.raises(nvrtc.NvrtcNotFoundError, match=r"fix: pip install opkit-sdk\[cuda\]"):
        kernels.compile_kernels(axpy_node(x_dtype="float32"))
    assert "pip install opkit-sdk[cuda]" in kernels.nvrtc_missing_message()
    monkeypatch.undo()
    assert (kernels.nvrtc_missing_message() is None) == has_nvrtc()  # None where NVRTC is installed


# ---- identity and cache ----

@needs_nvrtc
def test_identity_changes_on_kernel_header_arch_options_name_and_dtype(tmp_path):
    path = copy_op_files(tmp_path, "axpy.c", "axpy_helpers.h")
    node = axpy_node(c_file=path)
    key = kernels.kernel_module_key(node)
    assert kernels.kernel_module_key(axpy_node(c_file=path)) == key  # an equal node: the same key
    others = {
        "arch": kernels.kernel_module_key(node, "sm_80"),
        "options": kernels.kernel_module_key(node, options=["-use_fast_math"]),
        "name": kernels.kernel_module_key(node, name="node_1"),
        "dtype": kernels.kernel_module_key(axpy_node("float32", c_file=path)),
    }
    header = tmp_path / "axpy_helpers.h"
    header.write_text(header.read_text().replace("return a * (T)x;", "return a * (T)x + (T)0;"))
    others["header"] = kernels.kernel_module_key(axpy_node(c_file=path))
    path.write_text(path.read_text().replace("y[i] = value;", "y[i] = value + 0;"))
    others["kernel"] = kernels.kernel_module_key(axpy_node(c_file=path))
    assert len({key, *others.values()}) == len(others) + 1, others
    # What NVRTC compiles changed with the header: the cubin is compiled again, not served from the cache.
    assert kernels.kernel_module(axpy_node(c_file=path)).key == others["kernel"]
    # A header found through an -I option (either spelling) is in the identity too.
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "more.h").write_text("// 1\n")
    with_more = (tmp_path / "axpy.c").read_text().replace('#include "axpy_helpers.h"', '#include "axpy_helpers.h"\n'
                                                          '#include "more.h"')
    (tmp_path / "axpy.c").write_text(with_more)
    for spelling in (f"-I{extra}", f"--include-path={extra}"):
        before = kernels.kernel_module_key(axpy_node(c_file=path), options=[spelling])
        (extra / "more.h").write_text((extra / "more.h").read_text() + "// edited\n")
        assert kernels.kernel_module_key(axpy_node(c_file=path), options=[spelling]) != before, spelling
        assert kernels.compile_kernels(axpy_node(c_file=path), options=[spelling])[:4] == b"\x7fELF"


@needs_nvrtc
def test_identity_covers_the_nvrtc_version_and_the_prelude(monkeypatch):
    node = axpy_node()
    key = kernels.kernel_module_key(node)
    monkeypatch.setattr(nvrtc_kernels, "nvrtc_version", lambda: (99, 1))
    assert kernels.kernel_module_key(node) != key
    monkeypatch.undo()
    request = kernels.kernel_request(node)
    parts = identity.made_of(request)
    version = ".".join(map(str, nvrtc.nvrtc_version()))
    assert f"nvrtc {version}" in parts and repr(("sm_90",)) in parts
    # opkit's pre-included prelude and the op's header, by their bytes, as NVRTC finds them
    assert any(part.startswith(str(kernels.PRELUDE_DIR / kernels.PRELUDE) + "\n") for part in parts)
    assert any(part.startswith(os.path.realpath(os.path.join(HERE, "axpy_helpers.h")) + "\n") for part in parts)


@needs_nvrtc
def test_a_second_process_reuses_the_cached_cubin():
    node = axpy_node("float32", "float32")
    module = kernels.kernel_module(node, "sm_80")
    code = textwrap.dedent("""
        import json
        from opkit.cop import kernels
        from opkit.cop.toolchain import nvrtc
        from tests.gpu.ops.kernel_ops import axpy_node
        key = kernels.kernel_module_key(axpy_node("float32", "float32"), "sm_80")
        cubin, ptx = kernels.kernel_binary(key)
        again = kernels.compile_kernels(axpy_node("float32", "float32"), "sm_80")
        with open("/proc/self/maps") as maps:
            loaded = "libnvrtc" in maps.read()
        print(json.dumps({"key": key, "same": again == cubin, "cubin": cubin.hex(), "ptx": ptx, "loaded": loaded,
                          "nvrtc": nvrtc.nvrtc_events["compiled"], "events": dict(kernels.kernel_events)}))
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": ROOT})
    assert run.returncode == 0, run.stderr
    child = json.loads(run.stdout.splitlines()[-1])
    assert child["key"] == module.key and child["same"]
    assert bytes.fromhex(child["cubin"]) == module.cubin and child["ptx"] == module.ptx
    assert child["nvrtc"] == 0  # NVRTC never ran in the child
    assert not child["loaded"]  # nor was its library loaded: its version is kept in the compile cache
    assert child["events"].get("built", 0) == 0 and child["events"]["loaded"] == 1


@needs_nvrtc
def test_the_cache_entry_holds_source_cubin_and_ptx():
    module = kernels.kernel_module(axpy_node("int32", "int32"))
    entry = kernels.kernel_cache().entry_dir(module.key)
    files = sorted(os.listdir(entry))
    assert kernels.SOURCE_NAME in files and kernels.PTX_NAME in files and "meta.json" in files
    assert any(name.endswith(".cubin") for name in files)
    meta = json.loads((entry / "meta.json").read_text())
    assert meta["key"] == module.key and meta["extra"]["description"] == "CUDA kernels of Axpy for sm_90"
    assert meta["extra"]["arch"] == "sm_90" and meta["extra"]["kernels"] == ["axpy", "fill"]
    assert meta["extra"]["nvrtc"] == ".".join(map(str, nvrtc.nvrtc_version()))
    assert meta["extra"]["options"] == ["--pre-include=opkit_nvrtc.h", "--fmad=false"]
    assert (entry / kernels.SOURCE_NAME).read_text() == kernels.program_text(axpy_node("int32", "int32"))
    assert oct((entry / kernels.PTX_NAME).stat().st_mode & 0o777) == "0o600"


@needs_nvrtc
def test_a_damaged_ptx_is_refused_then_rebuilt(tmp_path, monkeypatch):
    from opkit.config import config

    with config.change_flags(compiledir=str(tmp_path / "cache")):
        module = kernels.kernel_module(axpy_node("int8", "int8"))
        ptx = kernels.kernel_cache().entry_dir(module.key) / kernels.PTX_NAME
        ptx.write_text(module.ptx.replace(".target", ".targex"))
        monkeypatch.setattr(kernel_store, "_binaries", {})
        with pytest.raises(CompileError, match="kernels.ptx does not match its sha256 in meta.json; `opkit cache "
                                               "clear`"):
            kernels.kernel_binary(module.key)
        assert kernels.kernel_module(axpy_node("int8", "int8")) == module  # compiling again replaces the entry
        assert ptx.read_text() == module.ptx


# ---- a CPU graph is unaffected ----

def test_a_cpu_graph_ignores_the_kernels_section():
    """An op whose file holds CPU code and CUDA kernels runs on the CPU: g++ never sees the kernels."""
    op = Unary(os.path.join(HERE, "twice_cpu.c"))
    x = ot.dvector("x")
    f = opkit.function([x], op(x))
    value = np.arange(7.0)[::-2]
    np.testing.assert_array_equal(f(value), 2 * value)
    node = op(x).owner
    host = [op.c_support_code(), op.c_support_code_apply(node, "node_0"), op.c_init_code_apply(node, "node_0"),
            op.c_code(node, "node_0", ["x"], ["y"], {"fail": "return 1;"})]
    assert not any("__global__" in text for text in host)


# ---- opkit check ----

def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def test_lint_of_a_kernels_section(tmp_path):
    path = write(tmp_path, "op.c", """
        #section kernels
        /* extern "C" __global__ in a comment does not count */
        __global__ void APPLY_SPECIFIC(mangled)(float* x) { x[0] = 1; }
        extern "C" __global__ void plain(float* x) { x[0] = 2; }
        extern "C" __global__ void APPLY_SPECIFIC(good)(DTYPE_INPUT_0* x, int n)
        {
            if (n < 0) FAIL;
            x[0] = INPUT_0 + PARAMS;
        }
    """)
    found = [(d.line, d.severity, d.message) for d in check_file(path)]
    assert found[0] == (3, "error", 'APPLY_SPECIFIC(mangled) is __global__ without extern "C": its name would be '
                                    "C++-mangled and OPKIT_LAUNCH could not find it; declare it extern \"C\" "
                                    "__global__ void APPLY_SPECIFIC(name)(...)")
    assert found[1][:2] == (4, "warning") and found[1][2].startswith(
        "kernel 'plain' is not named through APPLY_SPECIFIC: OPKIT_LAUNCH(plain, ...) launches APPLY_SPECIFIC(plain)")
    assert found[2] == (7, "error", "FAIL is not defined in '#section kernels'; it is defined only in "
                                    "init_code_struct, code, code_cleanup; a kernel cannot fail the node: write an "
                                    "error flag to device memory and FAIL in the code section")
    assert found[3][:2] == (8, "error") and found[3][2].startswith("INPUT_0 is not defined in '#section kernels'")
    assert "pass the data (INPUT_0->data, OUTPUT_0->data) and sizes as kernel arguments" in found[3][2]
    assert found[4][:2] == (8, "error") and found[4][2].startswith("PARAMS is not defined in '#section kernels'")
    assert len(found) == 5


def test_lint_of_a_kernels_section_without_kernels(tmp_path):
    path = write(tmp_path, "op.c", """
        #section support_code
        #section kernels
        // extern "C" __global__ void APPLY_SPECIFIC(k)(float* x) {}
        __device__ float helper(float v) { return v; }
    """)
    found = [(d.line, d.severity, d.message) for d in check_file(path)]
    assert (2, "error", "'#section kernels' declares no kernel; declare each as extern \"C\" __global__ void "
                        "APPLY_SPECIFIC(name)(...)") in found
    for good in ("axpy.c", "copy.c", "twice_cpu.c"):
        assert check_file(os.path.join(HERE, good)) == []


def run_check(*args, env=None):
    return subprocess.run([sys.executable, "-m", "opkit", "check", *map(str, args)], capture_output=True,
                          text=True, env={**os.environ, **(env or {})})


@needs_nvrtc
def test_opkit_check_compiles_kernels_with_nvrtc(tmp_path):
    path = write(tmp_path, "op.c", """
        #section kernels
        extern "C" __global__ void APPLY_SPECIFIC(k)(DTYPE_INPUT_0* x, DTYPE_OUTPUT_1* y)
        {
            x[0] = y[0] + not_declared;
            if (x[1] > 0) FAIL;
        }
    """)
    run = run_check(path)
    assert run.returncode == 1
    assert run.stdout.splitlines() == [
        f'{path}:4: error: identifier "not_declared" is undefined (NVRTC, sm_90, every DTYPE_* as npy_float64)',
        f"{path}:5: error: FAIL is not defined in '#section kernels'; it is defined only in init_code_struct, code, "
        "code_cleanup; a kernel cannot fail the node: write an error flag to device memory and FAIL in the code "
        "section"]  # the lint's error on line 5, not NVRTC's about the same line
    assert "1 file(s) checked: 2 error(s), 0 warning(s)" in run.stderr
    good = run_check(os.path.join(HERE, "axpy.c"), os.path.join(HERE, "copy.c"))
    assert good.returncode == 0 and good.stdout == "", good.stdout


def test_opkit_check_without_nvrtc_lints_and_says_so(tmp_path):
    path = write(tmp_path, "op.c", """
        #section kernels
        extern "C" __global__ void APPLY_SPECIFIC(k)(float* x) { x[0] = not_declared; }
    """)
    run = run_check(path, env={nvrtc.ENVIRONMENT: str(tmp_path / "none")})
    assert run.returncode == 0 and run.stdout == ""
    assert "note: NVRTC is not installed: kernels sections were linted, not compiled (pip install opkit-sdk[cuda])" \
        in run.stderr


@needs_nvrtc
def test_eight_threads_compile_one_node_once(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    path = copy_op_files(tmp_path, "copy.c")
    path.write_text(path.read_text().replace("y[i] = x[i];", "y[i] = x[i]; /* threads */"))
    nodes = [unary_node(path, "float32") for _ in range(8)]
    built, compiled = kernels.kernel_events["built"], nvrtc.nvrtc_events["compiled"]
    with ThreadPoolExecutor(8) as pool:
        cubins = list(pool.map(kernels.compile_kernels, nodes))
    assert len(set(cubins)) == 1 and cubins[0][:4] == b"\x7fELF"
    assert kernels.kernel_events["built"] == built + 1 and nvrtc.nvrtc_events["compiled"] == compiled + 1


def test_public_alias():
    import opkit.gpu

    assert opkit.gpu.compile_kernels is kernels.compile_kernels


_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)
_SPACE = st.sampled_from([" ", "\n", "\t", "  \n "])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_NAMES, _SPACE, _SPACE, st.sampled_from(["", "// ", "/* "]), st.booleans()), max_size=6))
def test_kernel_names_finds_every_declared_kernel_in_order(declarations):
    """Declarations with any spacing and __launch_bounds__ are found; those in comments are not."""
    lines, expected = [], []
    for name, space1, space2, comment, launch_bounds in declarations:
        bounds = f"__launch_bounds__(128){space2}" if launch_bounds else ""
        text = (f'extern{space1}"C"{space2}__global__ {bounds}void{space1}APPLY_SPECIFIC({space2}{name})'
                f'(int* x) {{}}')
        if comment == "// ":
            text = "// " + text.replace("\n", " ")
        elif comment == "/* ":
            text = f"/* {text} */"
        else:
            expected.append(name)
        lines.append(text)
    assert kernels.kernel_names("\n".join(lines)) == list(dict.fromkeys(expected))


@needs_nvrtc
def test_an_error_in_method_kernels_points_at_the_kept_source():
    class BrokenMethod(MethodKernels):
        def c_kernels(self, node, name):
            return 'extern "C" __global__ void APPLY_SPECIFIC(k)(float* x)\n{\n    x[0] = nope;\n}\n'

    node = BrokenMethod()(ot.fvector("x")).owner
    with pytest.raises(CompileError) as info:
        kernels.compile_kernels(node)
    kept = info.value.source_path
    [error] = info.value.errors
    path, line, rest = error.split(":", 2)
    assert path == kept and rest == ' error: identifier "nope" is undefined'
    assert open(kept).read().splitlines()[int(line) - 1] == "    x[0] = nope;"


@needs_nvrtc
def test_an_ops_own_nvrtc_options_come_first_and_are_in_the_key():
    class FastMath(MethodKernels):
        def c_kernel_options(self, node):
            return ["-DOPKIT_TEST_SCALE=3"]

        def c_kernels(self, node, name):
            return ('extern "C" __global__ void APPLY_SPECIFIC(k)(DTYPE_INPUT_0* x) '
                    '{ x[0] *= OPKIT_TEST_SCALE; }\n')

    node = FastMath()(ot.fvector("x")).owner
    module = kernels.kernel_module(node)
    assert "0f40400000" in module.ptx  # 3.0f: the op's -D reached NVRTC
    meta = json.loads((kernels.kernel_cache().entry_dir(module.key) / "meta.json").read_text())
    assert meta["extra"]["options"] == ["--pre-include=opkit_nvrtc.h", "--fmad=false", "-DOPKIT_TEST_SCALE=3"]
    assert kernels.kernel_module(node, options=["-DEXTRA=1"]).key != module.key
    assert kernels.kernel_module_key(node) == module.key


def test_opkit_check_reports_a_misspelt_macro_in_kernels_as_json(tmp_path):
    path = write(tmp_path, "op.c", """
        #section kernels
        extern "C" __global__ void APPLY_SPECIFIC(k)(DTYPE_INPTU_0* x)
        {
            x[0] = 1;
        }
    """)
    run = run_check("--json", path)
    assert run.returncode == 1
    report = json.loads(run.stdout)
    found = [(d["line"], d["severity"], d["message"]) for d in report["diagnostics"]]
    assert found[0] == (2, "error", "DTYPE_INPTU_0 is not an opkit macro (nor #defined in this file); did you mean "
                                    "DTYPE_INPUT_0?")
    # NVRTC's own error on line 2 is left out (the lint's says it better); what follows from it is NVRTC's
    assert all(line > 2 and message.endswith("(NVRTC, sm_90, every DTYPE_* as npy_float64)")
               for line, _, message in found[1:])
    assert report["errors"] == len(found)
