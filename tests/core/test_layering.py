"""The layers stay apart: core (the graph) knows no C and no linkers; cop (the C toolchain) knows no linkers.

Inside core, the tensor layers (LAYERS in opkit/core/tensor/__init__.py) import only the layers before them,
at module level and inside functions. No import circle joins opkit's modules (module-level and function-level
imports, and the modules import_module loads by name). Imports sit at module level but a few marked doors.
cop's stages import only earlier stages, also by way of modules outside cop; no linker imports another.
"""

import ast
import functools
import pathlib
import re
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "opkit"
RULES = {"core": ("opkit.cop", "opkit.link"), "cop": ("opkit.link",)}


def _type_checking(node):
    """Whether `node` is ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``): its body never runs."""
    test = node.test if isinstance(node, ast.If) else None
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING" or \
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


LOADERS = ("import_module", "__import__")  # calls that import the module a string names
LAZY_HELPER = "opkit.lazy"  # a module that imports this one names, in string tables, the modules it loads by name


def _loader_call(node):
    """Whether `node` calls importlib.import_module (or __import__)."""
    func = node.func if isinstance(node, ast.Call) else None
    return isinstance(func, ast.Name) and func.id in LOADERS or isinstance(func, ast.Attribute) and func.attr in LOADERS


def _docstrings(tree):
    """Return the ids of the docstring nodes of `tree` (a module's, a class's, a function's)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _imports(path, run_time=False):
    """Return [(node, module, inside_a_function), ...] for every import in `path`: _find_imports's, read once
    per package, file text and `run_time` (the checks below walk opkit's ~420 modules nine times a session)."""
    return _imports_of(PACKAGE, path, path.read_text(encoding="utf-8"), run_time)


@functools.cache
def _imports_of(package, path, text, run_time):
    return list(_find_imports(path, text, run_time))


@functools.cache
def _tree(path, text):
    """Return the syntax tree of `path` (whose source is `text`), parsed once a session."""
    return ast.parse(text, str(path))


def _find_imports(path, text, run_time=False):
    """Yield (node, module, inside_a_function) for every import in `path` (source `text`); relative ones resolved.

    An import is an import statement, or a call of import_module (or __import__) with a literal name. A module
    that imports by a name it computes (a non-literal import_module argument, or the lazy-name helper
    opkit.lazy) imports every module its string constants name, as full names or as names in its own package
    (``import_module(f"{__name__}.{name}")``): each such string is yielded as at module level.
    `run_time`: leave out the body of ``if TYPE_CHECKING:`` (imported by type checkers only)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = parts[:-1]  # a package's __init__ lies in its package, as a module does
    tree = _tree(path, text)
    by_name = []

    def walk(node, inside):
        for child in ast.iter_child_nodes(node):
            if run_time and _type_checking(child):
                for orelse in child.orelse:
                    yield from walk(ast.Module(body=[orelse], type_ignores=[]), inside)
                continue
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
            elif _loader_call(child) and child.args:
                name = child.args[0]
                if isinstance(name, ast.Constant) and isinstance(name.value, str):
                    yield child, name.value, inside
                else:
                    by_name.append(child)
            yield from walk(child, inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    yield from walk(tree, False)
    imported = [module for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                for module in ([a.name for a in node.names] if isinstance(node, ast.Import) else
                               [node.module or "", *(f"{node.module}.{a.name}" for a in node.names)])]
    if by_name or LAZY_HELPER in imported:
        docstrings = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                    and re.fullmatch(r"[A-Za-z_][\w.]*", node.value):
                own = [".".join([*package, node.value])] if parts[-1] == "__init__" else []  # its submodules
                for name in [node.value, *own]:
                    if name.split(".")[0] == "opkit" and _is_module(name):
                        yield node, name, False


def _is_module(dotted):
    """Whether `dotted` names a module or package of the tree under PACKAGE."""
    base = PACKAGE.parent.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


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
# No module of a tensor layer imports a later layer, at module level or inside a function. What the first layer's
# operators build (x + y, x.sum()) it finds through types/operators.py, whose table (LATE) is the package's own.
OPERATORS = "opkit.core.tensor.types.operators"


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
    """Yield what breaks the order: a module in no layer or in another layer's folder, or an import of a later
    layer (at module level or inside a function)."""
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
        seen = set()
        for node, dotted, inside in _imports(path):
            target = _tensor_module(dotted, layers)
            if target is None or layers[target][0] <= index or (node.lineno, target) in seen:
                continue
            seen.add((node.lineno, target))
            yield (f"{where}:{node.lineno} ({layer}) imports {target} ({layers[target][1]}) "
                   f"{'inside a function' if inside else 'at module level'}")


def test_tensor_layers_import_only_the_layers_before_them():
    assert list(tensor_violations()) == []


def test_the_late_bound_names_module_imports_nothing_of_opkit():
    graph = import_graph()
    assert graph[OPERATORS] == {}
    # the package names each later-layer module whose names it finds, and the gradient layer's modules
    assert {"opkit.core.tensor.shapes.reshape", "opkit.core.tensor.gradients.reduce_grad"} <= set(
        graph["opkit.core.tensor"])


def test_the_tensor_check_sees_later_layers_and_misplaced_modules(tmp_path, monkeypatch):
    tensor = tmp_path / "opkit" / "core" / "tensor"
    for folder in ("low", "high", "odd"):
        (tensor / folder).mkdir(parents=True)
        (tensor / folder / "__init__.py").write_text("")
    (tensor / "__init__.py").write_text('LAYERS = (("low", ("a", "b")), ("high", ("c", "d")))\n')
    (tensor / "low" / "a.py").write_text(
        "from opkit.core.tensor.high.c import x\n"         # a later layer at module level
        "def f():\n"
        "    from opkit.core.tensor.high import d\n"        # inside a function
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
        "opkit/core/tensor/low/a.py:3 (low) imports d (high) inside a function",
        "opkit/core/tensor/low/b.py:3 (low) imports c (high) inside a function",
        "opkit/core/tensor/odd/__init__.py: the folder odd is no layer of LAYERS",
        "opkit/core/tensor/odd/e.py: the module e is in no layer of LAYERS",
    ]


# ---- no import circle among opkit's modules ----
# Edges are the imports that run (module level and inside functions; not `if TYPE_CHECKING:`), each to the
# module it names: `from a.b import c` to a.b.c if that is a module, else to a.b. Importing a module also runs
# its packages' __init__, which is no edge here. Nothing is left out.


def module_name(path):
    """Return the dotted name of the module at `path` (a package's for its __init__.py)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph():
    """Return {module: {imported module: [(line, inside a function), ...]}} over opkit/**, inside opkit only: every
    module, none left out (the tensor facade's imports and opkit.lazy's tables count like any other)."""
    paths = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}

    def resolve(dotted):
        parts = dotted.split(".")
        return next((".".join(parts[:n]) for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in paths), None)

    graph = {}
    for module, path in paths.items():
        edges = graph.setdefault(module, {})
        by_node = {}
        for node, dotted, inside in _imports(path, run_time=True):
            by_node.setdefault(node, []).append((dotted, inside))
        for node, names in by_node.items():
            # _imports yields `from a import b` as a, then a.b: each name's own module if it is one, else a's
            named = names[1:] if isinstance(node, ast.ImportFrom) else names
            targets = {resolve(dotted) for dotted, _ in named}
            for target in targets - {None, module}:
                edges.setdefault(target, []).append((node.lineno, names[0][1]))
    return graph


def strongly_connected(graph):
    """Return the strongly connected components of `graph` with more than one module (Tarjan, iteratively)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, ())))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def describe_circle(graph, component):
    """Return a report of one circle: its modules, then every import between two of them (file:line)."""
    members = set(component)
    lines = [f"a circle of {len(component)} modules: {', '.join(component)}"]
    for module in component:
        file = module.replace(".", "/") + (".py" if not (PACKAGE.parent / module.replace(".", "/")).is_dir()
                                           else "/__init__.py")
        for target, sites in sorted(graph[module].items()):
            if target in members:
                where = ", ".join(f"{line}{' (in a function)' if inside else ''}" for line, inside in sites)
                lines.append(f"    {file}:{where} imports {target}")
    return "\n".join(lines)


def test_no_import_circle_among_opkits_modules():
    graph = import_graph()
    circles = [describe_circle(graph, component) for component in strongly_connected(graph)]
    assert not circles, "import circles among opkit's modules:\n" + "\n".join(circles)


def test_the_circle_check_sees_function_level_imports_and_exempts_nothing(tmp_path, monkeypatch):
    fake = tmp_path / "opkit"
    (fake / "pkg").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "pkg" / "__init__.py").write_text("")
    (fake / "pkg" / "a.py").write_text("from opkit.pkg import b\n")
    (fake / "pkg" / "b.py").write_text("def f():\n    from .c import name\n")  # a name in c: the edge is to c
    (fake / "pkg" / "c.py").write_text("import numpy, opkit.pkg.a\n")
    (fake / "pkg" / "d.py").write_text("TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from opkit.pkg import e\n")
    (fake / "pkg" / "e.py").write_text("from opkit.pkg import d\n")  # d's import never runs: no circle
    (fake / "pkg" / "up.py").write_text("def f():\n    from opkit.pkg import low\n")  # a facade's late edge
    (fake / "pkg" / "low.py").write_text("from opkit.pkg import up\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    graph = import_graph()
    assert strongly_connected(graph) == [["opkit.pkg.a", "opkit.pkg.b", "opkit.pkg.c"], ["opkit.pkg.low", "opkit.pkg.up"]]
    assert describe_circle(graph, ["opkit.pkg.a", "opkit.pkg.b", "opkit.pkg.c"]).splitlines() == [
        "a circle of 3 modules: opkit.pkg.a, opkit.pkg.b, opkit.pkg.c",
        "    opkit/pkg/a.py:1 imports opkit.pkg.b",
        "    opkit/pkg/b.py:2 (in a function) imports opkit.pkg.c",
        "    opkit/pkg/c.py:1 imports opkit.pkg.a",
    ]


# ---- imports at the top ----
# Load order is the import graph's: a module imports what it uses at module level. An import inside a function
# is the exception (a door to what only some calls need: the build stage, a CLI command, a lazy public name),
# each marked `# lazy: <reason>` on its line or the line above, and few. Optional dependencies (torch, jax,
# cupy, pytensor, ...) are not opkit's own modules: they stay lazy and are not counted.
LAZY_MARK = "# lazy:"
MOST_FUNCTION_LEVEL_IMPORTS = 20


def function_level_imports():
    """Yield (file, line, what) for each import of an opkit module inside a function (import statements and
    import_module calls; one per statement or call), and for each import_module call inside a function whose
    argument is computed (it may load any module)."""
    for path in sorted(PACKAGE.rglob("*.py")):
        where = str(path.relative_to(PACKAGE.parent))
        seen = set()
        for node, dotted, inside in _imports(path, run_time=True):
            if inside and id(node) not in seen and dotted.split(".")[0] == "opkit":
                seen.add(id(node))
                yield where, node.lineno, dotted
        tree = _tree(path, path.read_text(encoding="utf-8"))
        doors = _lazy_doors(tree)
        for function in ast.walk(tree):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                for call in ast.walk(function):
                    if id(call) in seen or not isinstance(call, ast.Call) or not call.args:
                        continue
                    if _loader_call(call) and not isinstance(call.args[0], ast.Constant):
                        seen.add(id(call))
                        yield where, call.lineno, f"a computed name ({ast.unparse(call.args[0])})"
                    elif _names(call.func) in doors:
                        seen.add(id(call))
                        yield where, call.lineno, f"{LAZY_HELPER}.load({ast.unparse(call.args[0])})"


def _names(node):
    """Return the dotted text of a Name or Attribute chain (``lazy.load``), else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _names(node.value)
        return base and f"{base}.{node.attr}"
    return None


def _lazy_doors(tree):
    """Return the names under which a module calls opkit.lazy's `load` (``load``, ``lazy.load``, an alias)."""
    doors = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == LAZY_HELPER:
            doors |= {alias.asname or alias.name for alias in node.names if alias.name == "load"}
        elif isinstance(node, ast.ImportFrom) and node.module == "opkit":
            doors |= {f"{alias.asname or alias.name}.load" for alias in node.names if alias.name == "lazy"}
        elif isinstance(node, ast.Import):
            doors |= {f"{alias.asname}.load" if alias.asname else f"{LAZY_HELPER}.load"
                      for alias in node.names if alias.name == LAZY_HELPER}
    return doors


def unmarked(sites):
    """Yield the sites (file, line, what) that carry no `# lazy:` comment on their line or the line above."""
    for file, line, what in sites:
        lines = (PACKAGE.parent / file).read_text(encoding="utf-8").splitlines()
        if LAZY_MARK not in lines[line - 1] and (line < 2 or LAZY_MARK not in lines[line - 2]):
            yield f"{file}:{line} imports {what} inside a function without '{LAZY_MARK} <reason>'"


def test_imports_are_at_module_level_but_a_few_marked_doors():
    sites = list(function_level_imports())
    assert list(unmarked(sites)) == []
    assert len(sites) <= MOST_FUNCTION_LEVEL_IMPORTS, "\n".join(f"{f}:{n} {w}" for f, n, w in sites)


def test_the_import_count_sees_statements_import_module_calls_and_opkit_lazy_load(tmp_path, monkeypatch):
    fake = tmp_path / "opkit"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "low.py").write_text("")
    (fake / "a.py").write_text(
        "import importlib, numpy\n"
        "def f():\n    import numpy  # not opkit's\n    from opkit import low\n"
        "def g(name):\n    # lazy: a door\n    return importlib.import_module(name)\n"
        "def h():\n    return importlib.import_module('opkit.low')  # lazy: the literal door\n"
        "from opkit.lazy import load as fetch\nfrom opkit import lazy\n"
        "def i(name):\n    return fetch(name), lazy.load('opkit.low')  # lazy: through opkit.lazy\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    sites = list(function_level_imports())
    assert sites == [("opkit/a.py", 4, "opkit"), ("opkit/a.py", 9, "opkit.low"),
                     ("opkit/a.py", 7, "a computed name (name)"), ("opkit/a.py", 13, "opkit.lazy.load(name)"),
                     ("opkit/a.py", 13, "opkit.lazy.load('opkit.low')")]
    assert list(unmarked(sites)) == ["opkit/a.py:4 imports opkit inside a function without '# lazy: <reason>'"]


def test_the_circle_check_reads_import_module_names_and_lazy_tables(tmp_path, monkeypatch):
    fake = tmp_path / "opkit"
    (fake / "pkg").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "lazy.py").write_text("")
    (fake / "pkg" / "__init__.py").write_text(
        "import importlib\nNAMES = ('b',)\n"
        "def __getattr__(name):\n    return importlib.import_module(f'{__name__}.{name}')\n")
    (fake / "pkg" / "b.py").write_text("def f():\n    import importlib\n    importlib.import_module('opkit.pkg.c')\n")
    (fake / "pkg" / "c.py").write_text("from opkit import lazy\nTABLE = {'x': 'opkit.pkg.d', 'y': 'not.a.module'}\n")
    (fake / "pkg" / "d.py").write_text('"""opkit.pkg.b (a docstring names no module)"""\nfrom opkit.pkg import b\n')
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    graph = import_graph()
    assert sorted(graph["opkit.pkg"]) == ["opkit.pkg.b"]
    assert strongly_connected(graph) == [["opkit.pkg.b", "opkit.pkg.c", "opkit.pkg.d"]]


# ---- opkit/cop in stages ----
# STAGES in opkit/cop/__init__.py lists cop's subpackages in pipeline order. A stage's module imports only its own
# stage and the stages before it (module level and inside functions); the modules on top (TOP: the orchestrators
# and the public blas helpers) may import every stage, and no stage imports them.
COP_TOP = {"opkit.cop", "opkit.cop.compile", "opkit.cop.incremental", "opkit.cop.blas", "opkit.cop.kernels"}


def cop_stages():
    """Return STAGES from opkit/cop/__init__.py (read, not imported)."""
    tree = ast.parse((PACKAGE / "cop" / "__init__.py").read_text(encoding="utf-8"))
    return next(ast.literal_eval(node.value) for node in tree.body
                if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["STAGES"])


def cop_violations():
    """Yield each import from a cop stage to a later stage or to the top, and each cop module in no stage."""
    stages = cop_stages()

    def rank(module):
        parts = module.split(".")
        return stages.index(parts[2]) if len(parts) > 2 and parts[2] in stages else len(stages)

    def in_cop(module):
        return module == "opkit.cop" or module.startswith("opkit.cop.")

    graph = import_graph()
    for module in sorted(graph):
        if not in_cop(module):
            continue
        if rank(module) == len(stages):
            if module not in COP_TOP:
                yield f"{module} is in no stage of STAGES and not on top ({', '.join(sorted(COP_TOP))})"
            continue
        for target, sites in sorted(graph[module].items()):
            if in_cop(target) and rank(target) > rank(module):
                where = ", ".join(f"{line}{' (in a function)' if inside else ''}" for line, inside in sites)
                later = stages[rank(target)] if rank(target) < len(stages) else "the top"
                yield f"{module}:{where} ({stages[rank(module)]}) imports {target} ({later})"
        # an import that leaves cop and comes back: the path through modules outside cop reaches a later stage
        paths = {target: [target] for target in sorted(graph[module]) if not in_cop(target)}
        work = list(paths)
        while work:
            outside = work.pop(0)
            for target in sorted(graph.get(outside, ())):
                if in_cop(target):
                    if rank(target) > rank(module):
                        later = stages[rank(target)] if rank(target) < len(stages) else "the top"
                        yield (f"{module} ({stages[rank(module)]}) imports {target} ({later}) by way of "
                               f"{' -> '.join(paths[outside])}")
                elif target not in paths:
                    paths[target] = [*paths[outside], target]
                    work.append(target)


def test_cop_stages_import_only_earlier_stages():
    assert list(cop_violations()) == []


def test_the_cop_check_sees_a_back_edge_inside_a_function_an_import_of_the_top_and_a_way_round(tmp_path, monkeypatch):
    cop = tmp_path / "opkit" / "cop"
    for folder in ("low", "high"):
        (cop / folder).mkdir(parents=True)
        (cop / folder / "__init__.py").write_text("")
    (tmp_path / "opkit" / "__init__.py").write_text("")
    (cop / "__init__.py").write_text('STAGES = ("low", "high")\n')
    (cop / "compile.py").write_text("from opkit.cop.high import c\nfrom opkit.cop.low import a\n")  # the top: free
    (cop / "stray.py").write_text("")  # in no stage, not on top
    (cop / "low" / "a.py").write_text("def f():\n    from opkit.cop.high.c import name\n")  # a back edge
    (cop / "low" / "b.py").write_text("from opkit.cop import compile\nfrom . import a\n")  # the top; its own stage
    (cop / "high" / "c.py").write_text("from ..low import b\nfrom opkit.cop.low.a import f\n")  # earlier: fine
    (cop / "low" / "d.py").write_text("from opkit.gpu import glue\n")  # leaves cop ...
    (tmp_path / "opkit" / "gpu").mkdir()
    (tmp_path / "opkit" / "gpu" / "__init__.py").write_text("")
    (tmp_path / "opkit" / "gpu" / "glue.py").write_text("from opkit.gpu import more\n")
    (tmp_path / "opkit" / "gpu" / "more.py").write_text("import opkit.cop.compile\nimport opkit.cop.low.b\n")  # ... back
    monkeypatch.setattr(__import__(__name__), "PACKAGE", tmp_path / "opkit")
    assert list(cop_violations()) == [
        "opkit.cop.low.a:2 (in a function) (low) imports opkit.cop.high.c (high)",
        "opkit.cop.low.b:1 (low) imports opkit.cop.compile (the top)",
        "opkit.cop.low.d (low) imports opkit.cop.compile (the top) by way of opkit.gpu.glue -> opkit.gpu.more",
        "opkit.cop.stray is in no stage of STAGES and not on top (opkit.cop, opkit.cop.blas, opkit.cop.compile, "
        "opkit.cop.incremental, opkit.cop.kernels)",
    ]


# ---- the linkers are leaves ----
# The backend is decided once per function (opkit/link/backend.py) and the per-node binders live in one module
# (opkit/link/binders.py): no linker module imports another, at module level or inside a function.
LINKERS = {"opkit.link.c_linker", "opkit.link.py_linker", "opkit.link.no_compiler", "opkit.link.debugmode"}


def linker_edges(linkers=LINKERS):
    """Yield each import from one linker module to another (file:line, and whether inside a function)."""
    graph = import_graph()
    for module in sorted(linkers):
        for target, sites in sorted(graph.get(module, {}).items()):
            if target in linkers:
                where = ", ".join(f"{line}{' (in a function)' if inside else ''}" for line, inside in sites)
                yield f"{module}:{where} imports {target}"


def test_no_linker_imports_another_linker():
    assert set(LINKERS) <= set(import_graph()), "a linker module was renamed: update LINKERS"
    assert list(linker_edges()) == []


def test_the_linker_check_sees_a_planted_edge_at_module_and_function_level(tmp_path, monkeypatch):
    link = tmp_path / "opkit" / "link"
    link.mkdir(parents=True)
    (tmp_path / "opkit" / "__init__.py").write_text("")
    (link / "__init__.py").write_text("")
    (link / "binders.py").write_text("")
    (link / "c_linker.py").write_text("from opkit.link.binders import node_c_runner\n"  # a binder: fine
                                      "def f():\n    from opkit.link.py_linker import python_thunk\n")
    (link / "py_linker.py").write_text("from opkit.link import binders\n")
    (link / "debugmode.py").write_text("from .c_linker import f\nimport opkit.link.no_compiler\n")
    (link / "no_compiler.py").write_text("")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", tmp_path / "opkit")
    assert list(linker_edges()) == [
        "opkit.link.c_linker:3 (in a function) imports opkit.link.py_linker",
        "opkit.link.debugmode:1 imports opkit.link.c_linker",
        "opkit.link.debugmode:2 imports opkit.link.no_compiler",
    ]
