"""The CUDA interpreter's one table (opkit.gpu.interpret.builtins): the C headers' list of built-ins is its
rendering, the headers define exactly its built-ins, and the refusals' allow-list is its names."""

import os
import re
import subprocess

import pytest

from opkit.gpu.interpret import builtins
from opkit.gpu.interpret.refusals import KernelNotInterpretable, check_interpretable

HEADERS = builtins.HEADER.parent


def test_the_headers_table_is_the_rendering_of_the_python_table():
    assert builtins.HEADER.read_text(encoding="utf-8") == builtins.render_header(), \
        "cuda_interpret_table.h is stale: run python -m opkit.gpu.interpret.builtins"


def _defined_by_headers(tmp_path):
    """Return (functions and variables, macros) that cuda_interpret*.h define at global scope, read from g++'s
    preprocessed text (-dD keeps the #defines; line markers say which file each line is from)."""
    source = tmp_path / "table_scan.cpp"
    source.write_text('#include "cuda_interpret.h"\n')
    text = subprocess.run(["g++", "-std=c++17", "-E", "-dD", "-I", str(HEADERS), str(source)], capture_output=True,
                          text=True, check=True).stdout
    macros, statements, statement, current, depth = {}, [], [], "", 0
    for line in text.splitlines():
        marker = re.match(r'# \d+ "([^"]+)"', line)
        if marker:
            current = os.path.basename(marker.group(1))
            continue
        ours = current.startswith("cuda_interpret") and current != builtins.HEADER.name
        directive = re.match(r"\s*#\s*(define|undef)\s+(\w+)", line)
        if directive:
            if ours:
                macros[directive.group(2)] = directive.group(1) == "define"
            continue
        for char in line + "\n":  # the statements at global scope: bodies and namespaces left out
            if depth == 0 and ours:
                statement.append(char)
            if char == "{":
                if depth == 0 and ours:
                    statements.append("".join(statement))
                    statement = []
                depth += 1
            elif char == "}":
                depth -= 1
            elif char == ";" and depth == 0 and ours:
                statements.append("".join(statement))
                statement = []
    names = set()
    for statement in (" ".join(s.split()) for s in statements):
        if statement.startswith(("namespace", "__asm__", "asm")) or not statement.strip("{;} "):
            continue
        variable = re.match(r"static (?:constexpr|const) \w+ (\w+) =", statement)
        declarator = re.search(r"([A-Za-z_]\w*)\s*\(", statement)
        name = variable.group(1) if variable else declarator.group(1) if declarator else None
        if name and not name.startswith("opkit_"):
            names.add(name)
    return names, {name for name, defined in macros.items() if defined and not name.startswith(("OPKIT_", "opkit_"))}


def test_the_headers_define_exactly_the_tables_builtins(tmp_path):
    declared, macros = _defined_by_headers(tmp_path)
    assert declared == set(builtins.names(("function", "variable")))
    assert macros == set(builtins.names(("qualifier", "macro")))
    assert len(builtins.names()) == len(set(builtins.names()))  # each built-in once


def test_a_builtin_the_headers_lack_fails_the_compile(tmp_path):
    """The rendering checks the table against the headers in every interpreted compile."""
    (tmp_path / "t.cpp").write_text('#include "cuda_interpret.h"\nint main() { return 0; }\n')
    assert subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-I", str(HEADERS), str(tmp_path / "t.cpp")],
                          capture_output=True, text=True).returncode == 0
    for name in os.listdir(HEADERS):
        (tmp_path / name).write_bytes((HEADERS / name).read_bytes())
    table = tmp_path / builtins.HEADER.name
    table.write_text(table.read_text().replace("using ::__popc;", "using ::__popc;\nusing ::__vadd2;"))
    done = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-I", str(tmp_path), str(tmp_path / "t.cpp")],
                          capture_output=True, text=True)
    assert done.returncode != 0 and "__vadd2" in done.stderr


def test_the_allow_list_is_the_tables_reserved_names_and_each_passes_the_refusals():
    assert builtins.ALLOWED == {name for name in builtins.names() if name.startswith("__")}
    for name in builtins.names():
        check_interpretable(f"__global__ void k(int* p) {{ {name}(p); }}\n", "k.cu")


@pytest.mark.parametrize("text, construct", [
    ("__global__ void k(unsigned* p) {\n  p[0] = __vadd2(p[1], p[2]);\n}\n", "__vadd2"),
    ("__global__ void k(float* p) {\n  p[0] = __expf(p[1]);\n}\n", "a fast approximate intrinsic"),
    ("__global__ void k(int* p) {\n  p[0] = __shfl(p[1], 0);\n}\n", "a warp function without _sync"),
])
def test_an_intrinsic_outside_the_table_is_refused_by_name(text, construct):
    with pytest.raises(KernelNotInterpretable, match=r"^k\.cu:2: the CUDA interpreter") as caught:
        check_interpretable(text, "k.cu")
    assert caught.value.construct == construct and caught.value.line == 2


@pytest.mark.parametrize("text", [
    "#define __MY_CHECK(x) (x)\n__global__ void k(int* p) { p[0] = __MY_CHECK(p[1]); }\n",
    "__device__ int __mine(int a) { return a; }\n__global__ void k(int* p) { p[0] = __mine(p[1]); }\n",
    "__global__ void k(int* p) { if (__builtin_expect(p[0], 0)) p[1] = 0; }\n",
    "__global__ void k(int* __restrict__ p) { int __attribute__((unused)) q = 0; /* __vadd2(p) */ }\n",
])
def test_compiler_names_and_names_the_text_defines_are_not_refused(text):
    check_interpretable(text, "k.cu")
