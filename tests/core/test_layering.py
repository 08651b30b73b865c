"""The layers stay apart: core (the graph) knows no C and no linkers; cop (the C toolchain) knows no linkers.

Inside core, the tensor layers (LAYERS in opkit/core/tensor/__init__.py) import only the layers before them.
"""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "opkit"
RULES = {"core": ("opkit.cop", "opkit.link"), "cop": ("opkit.link",)}


def _imports(path):
    """Yield (node, module, inside_a_function) for every import in `path`; relative ones resolved."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = parts[:-1] if parts[-1] != "__init__" else parts

    def walk(node, inside):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield child, alias.name, inside
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package[:len(package) - child.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                yield child, base, inside
                for alias in child.names:  # `from opkit import link` imports opkit.link
                    yield child, f"{base}.{alias.name}", inside
            yield from walk(child, inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    yield from walk(ast.parse(path.read_text(encoding="utf-8"), str(path)), False)


def imported_modules(path):
    """Yield (line, module) for every import in `path`, inside functions too; relative ones resolved."""
    for node, module, _ in _imports(path):
        yield node.lineno, module


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


TENSOR = ("core", "tensor")
MARK = "# later layer:"


def tensor_layers():
    """Return {module name: (index, layer)} from LAYERS in opkit/core/tensor/__init__.py (read, not imported)."""
    tree = ast.parse((PACKAGE.joinpath(*TENSOR) / "__init__.py").read_text(encoding="utf-8"))
    layers = next(ast.literal_eval(node.value) for node in tree.body
                  if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["LAYERS"])
    return {module: (index, layer) for index, (layer, modules) in enumerate(layers) for module in modules}


def _tensor_module(dotted, layers):
    """Return the tensor module that `dotted` (a module, or a name in one) names, or None."""
    parts = dotted.split(".")
    if parts[:3] != ["opkit", *TENSOR]:
        return None
    names = {layer for _, layer in layers.values()}
    rest = parts[4:] if len(parts) > 3 and parts[3] in names else parts[3:]
    return rest[0] if rest and rest[0] in layers else None


def tensor_violations():
    """Yield what breaks the order: a module in no layer or in another layer's folder, an import of a later layer
    at module level, or one inside a function without a `# later layer:` comment on its line or the line above."""
    root = PACKAGE.joinpath(*TENSOR)
    layers = tensor_layers()
    names = {layer for _, layer in layers.values()}
    moved = any((root / name).is_dir() for name in names)  # before the move to folders, the modules lie flat
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(PACKAGE.parent)
        if path.name == "__init__.py":
            if path.parent != root and path.parent.name not in names:
                yield f"{where}: the folder {path.parent.name} is no layer of LAYERS"
            continue
        if path.stem not in layers:
            yield f"{where}: the module {path.stem} is in no layer of LAYERS"
            continue
        index, layer = layers[path.stem]
        if (moved or path.parent != root) and path.parent.relative_to(root).parts != (layer,):
            yield f"{where}: the module {path.stem} of layer {layer} is not in the folder {layer}/"
        lines = path.read_text(encoding="utf-8").splitlines()
        seen = set()
        for node, dotted, inside in _imports(path):
            target = _tensor_module(dotted, layers)
            if target is None or layers[target][0] <= index or (node.lineno, target) in seen:
                continue
            seen.add((node.lineno, target))
            marked = MARK in lines[node.lineno - 1] or (node.lineno > 1 and MARK in lines[node.lineno - 2])
            if not inside:
                yield f"{where}:{node.lineno} ({layer}) imports {target} ({layers[target][1]}) at module level"
            elif not marked:
                yield f"{where}:{node.lineno} ({layer}) imports {target} ({layers[target][1]}) without '{MARK}'"


def test_tensor_layers_import_only_the_layers_before_them():
    assert list(tensor_violations()) == []


def test_the_tensor_check_sees_later_layers_and_misplaced_modules(tmp_path, monkeypatch):
    tensor = tmp_path / "opkit" / "core" / "tensor"
    for folder in ("low", "high", "odd"):
        (tensor / folder).mkdir(parents=True)
        (tensor / folder / "__init__.py").write_text("")
    (tensor / "__init__.py").write_text('LAYERS = (("low", ("a", "b")), ("high", ("c", "d")))\n')
    (tensor / "low" / "a.py").write_text(
        "from opkit.core.tensor.high.c import x\n"         # a later layer at module level
        "def f():\n"
        "    from opkit.core.tensor.high import d\n"        # inside a function, unmarked
        "    from ..high.c import y  # later layer: f's gradient\n"  # marked: allowed
        "    # later layer: a marked import may say why on the line above\n"
        "    from opkit.core.tensor import c\n"
        "    from opkit.core.tensor.low import b\n")          # the same layer: allowed
    (tensor / "low" / "b.py").write_text("class B:\n    def g(self):\n        from ..high import c\n")
    (tensor / "high" / "c.py").write_text("from opkit.core.tensor.low.a import f\n")  # an earlier layer
    (tensor / "high" / "b.py").write_text("")  # layer low's module in the folder of high
    (tensor / "odd" / "e.py").write_text("")  # a module and a folder in no layer
    (tensor / "flat.py").write_text("")  # in no layer
    (tensor / "d.py").write_text("")  # once there are layer folders, a module outside its folder
    monkeypatch.setattr(__import__(__name__), "PACKAGE", tmp_path / "opkit")
    assert sorted(tensor_violations()) == [
        "opkit/core/tensor/d.py: the module d of layer high is not in the folder high/",
        "opkit/core/tensor/flat.py: the module flat is in no layer of LAYERS",
        "opkit/core/tensor/high/b.py: the module b of layer low is not in the folder low/",
        "opkit/core/tensor/low/a.py:1 (low) imports c (high) at module level",
        "opkit/core/tensor/low/a.py:3 (low) imports d (high) without '# later layer:'",
        "opkit/core/tensor/low/b.py:3 (low) imports c (high) without '# later layer:'",
        "opkit/core/tensor/odd/__init__.py: the folder odd is no layer of LAYERS",
        "opkit/core/tensor/odd/e.py: the module e is in no layer of LAYERS",
    ]
