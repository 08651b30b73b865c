"""The layers stay apart: core (the graph) knows no C and no linkers; cop (the C toolchain) knows no linkers."""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "opkit"
RULES = {"core": ("opkit.cop", "opkit.link"), "cop": ("opkit.link",)}


def imported_modules(path):
    """Yield (line, module) for every import in `path`, inside functions too; relative ones resolved."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = parts[:-1] if parts[-1] != "__init__" else parts
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package[:len(package) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield node.lineno, base
            for alias in node.names:  # `from opkit import link` imports opkit.link
                yield node.lineno, f"{base}.{alias.name}"


def violations(layer):
    banned = RULES[layer]
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for line, module in imported_modules(path):
            if any(module == b or module.startswith(b + ".") for b in banned):
                yield f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}"


@pytest.mark.parametrize("layer", sorted(RULES))
def test_layer_imports_nothing_above_it(layer):
    assert list(violations(layer)) == []


def test_the_check_sees_imports_inside_functions_and_relative_ones(tmp_path, monkeypatch):
    fake = tmp_path / "opkit"
    (fake / "core").mkdir(parents=True)
    (fake / "core" / "bad.py").write_text("def f():\n    from opkit.link.function import function\n"
                                          "from ..cop import codegen\nimport opkit.link\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    found = sorted(violations("core"))
    assert found == ["opkit/core/bad.py:2 imports opkit.link.function",
                     "opkit/core/bad.py:2 imports opkit.link.function.function",
                     "opkit/core/bad.py:3 imports opkit.cop",
                     "opkit/core/bad.py:3 imports opkit.cop.codegen",
                     "opkit/core/bad.py:4 imports opkit.link"]
