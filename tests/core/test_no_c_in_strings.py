"""opkit writes its C in `#section` files and jinja2 templates, never in Python strings (outside the code generator).

The code generators join C pieces and may hold the C that glues them: opkit/cop/, and the CUDA
interpreter's unit (opkit/gpu/interpret/), which rewrites a kernel's CUDA into the C++ g++ compiles for the CPU
and renders its built-ins' table as the header the interpreter checks. Every other module of the package names
files and passes values. Tests that define their own ops
are outside the package and exempt, as are op packages under plugins/ (their ops are written
the way the tutorials write them).
"""

import ast
import pathlib
import re

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "opkit"
CODE_GENERATORS = (("cop",), ("gpu", "interpret"))

_PREPROCESSOR = r"[ \t]*\#[ \t]*(include|define|undef|ifn?def|if|elif|else|endif|line|pragma|error)\b"
_C_LINE = re.compile(r"^" + _PREPROCESSOR + r"""            # a preprocessor line
  | [;{][ \t]*(//[^\n]*|/\*.*?\*/)?[ \t]*$                    # a statement or a block ends the line
  | ^[ \t]*\}                                                # a block closes
""", re.X | re.M)
_C_MARK = re.compile(r"^" + _PREPROCESSOR + r"""
  | \b(npy_\w+|NPY_\w+|Py[A-Z][A-Za-z]*_\w+|Py_\w+|PyObject|sizeof|APPLY_SPECIFIC|FAIL|(INPUT|OUTPUT)_\d+
       |static|inline|typedef|struct|goto|void|const|char|double|float|int|long|size_t|unsigned)\b
  | %\(\w+\)s                                                # PyTensor-style %(name)s substitution
  | \w->\w                                                   # a member through a pointer
  | \w\((\w+(,[ \t]*\w+)*)?\)[ \t]*;[ \t]*$                  # f(a, b);
  | ^[ \t]*[\w\[\].>-]+[ \t][-+*/%|&^]?=[ \t][^=\n]*;[ \t]*$  # x = y;  x[i] += 1;
  | \)[ \t]*\{[ \t]*$                                        # a block opens after a condition
""", re.X | re.M)


def looks_like_c(text: str) -> bool:
    """Return True if `text` holds a line of C: a statement, a block or a preprocessor line with a C mark."""
    return any(_C_MARK.search(line) for line in text.splitlines() if _C_LINE.search(line))


def _docstrings(tree):
    """Return the ids of the docstring nodes of `tree` (prose, which may name C types and functions)."""
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, owners) and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str)}


def _strings(tree):
    """Yield (line, text) of every string literal but docstrings; an f-string's values read as X."""
    inside_fstrings = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            inside_fstrings.update(id(v) for v in node.values)
            yield node.lineno, "".join(v.value if isinstance(v, ast.Constant) else "X" for v in node.values)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in inside_fstrings:
            yield node.lineno, node.value


def violations(package=PACKAGE):
    """Yield 'path:line' for each string of C in a module of `package` outside the code generator."""
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        if any(relative.parts[:len(folder)] == folder for folder in CODE_GENERATORS):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for line in sorted({line for line, text in _strings(tree) if looks_like_c(text)}):
            yield f"{package.name}/{relative.as_posix()}:{line}"


def test_no_module_outside_the_code_generator_holds_c_in_a_string():
    found = list(violations())
    assert found == [], ("C in Python strings: move fixed C to a #section file beside the op "
                         "(opkit.core.c_source.SectionOp) and generated C to a template macro "
                         "(opkit.core.c_source.render):\n" + "\n".join(found))


PLANTED = {
    "core/tensor/bad.py": '''
class Double:
    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]} * 2;"
''',
    "core/bad_support.py": 'SUPPORT = r"""\n#ifndef X\n#define X\nstatic int f(void) { return 1; }\n#endif\n"""\n',
    "link/bad_tutorial_style.py": 'CODE = "Py_XDECREF(%(z)s);\\n%(z)s = (PyArrayObject*)PyArray_EMPTY(1, dims, NPY_DOUBLE, 0);"\n',
    "core/bad_block.py": 'CODE = """\nif (n > 0) {\n    total += x[i];\n}\n"""\n',
    "cop/generator.py": 'GLUE = "static int opkit_glue(void);"\n',  # the code generators may
    "gpu/interpret/rewrite.py": 'SHARED = "static char opkit_shared[64];"\n',
    "gpu/bad_glue.py": 'GLUE = "static int opkit_glue(void);"\n',  # the rest of gpu/ may not
    "core/prose.py": '"""A docstring: computed in npy_uint64 (they wrap);\nPy_XDECREF(x);"""\n'
                     'HINT = "return a copy, or declare view_map = {0: [0]} (a dict).\\n"\n'
                     'NOTE = "sum(output * random projection);\\n  rankdir=TB;\\n  x -> y;"\n',
}


def test_the_check_finds_c_planted_in_strings_and_spares_prose_and_the_code_generator(tmp_path):
    package = tmp_path / "opkit"
    for name, text in PLANTED.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    assert list(violations(package)) == ["opkit/core/bad_block.py:1", "opkit/core/bad_support.py:1",
                                         "opkit/core/tensor/bad.py:4", "opkit/gpu/bad_glue.py:1",
                                         "opkit/link/bad_tutorial_style.py:1"]


@pytest.mark.parametrize("text", ["Py_XDECREF(x);", "z = x + y;", "#include <math.h>", "dims[0] = 1;",
                                  "for (i = 0; i < n; ++i) {\n}"])
def test_one_line_of_c_is_enough(text):
    assert looks_like_c(text)
