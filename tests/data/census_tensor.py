"""The census of the tensor language: every public name of PyTensor's and Theano's tensor namespaces, and whether opkit has it.

`python3.12 tests/data/census_tensor.py --refresh --theano REPO --pytensor REPO` reads the two upstream git
trees (``git show`` at the commits in PINNED, parsed with ast, nothing imported) and writes census_tensor.json
beside this file: one list of public names per upstream place (LISTS),

- a module's ``__all__`` where it has one; else its public top-level definitions, the names it imports
  from its own library (not modules) and, recursively, the names of its star-imports; a package's
  ``__init__`` also re-exports what it imports from elsewhere and its submodules;
- ``TensorVariable``'s public methods, properties and class attributes, its bases' included.

CI has no network, so the JSON is committed. Each name is present when it resolves through opkit.compat
(``pytensor.tensor.math.exp`` -> ``opkit.compat.pytensor.tensor.math.exp``, census_compat.resolve), absent
when a rule of census_tensor_absences.txt records it with a reason, and missing otherwise; a missing name
must be listed in census_tensor_todo.txt (what is still to be built). Without ``--refresh`` the script prints
the figures per list; ``--write-todo`` rewrites the todo file's list from what is missing now.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import pathlib
import subprocess
import sys
import types

HERE = pathlib.Path(__file__).resolve().parent
CENSUS = HERE / "census_tensor.json"
ABSENCES = HERE / "census_tensor_absences.txt"
TODO = HERE / "census_tensor_todo.txt"
TODO_SECTIONS = ("# still to build (issue 48)", "# missing beyond issue 48 (a later issue)")


def _census_compat():
    """Return tests/data/census_compat.py, the op-code census whose resolving and absence rules this one shares."""
    module = sys.modules.get("census_compat")
    if module is None:
        spec = importlib.util.spec_from_file_location("census_compat", HERE / "census_compat.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["census_compat"] = module
        spec.loader.exec_module(module)
    return module


compat = _census_compat()
PINNED = {
    "pytensor": ("pymc-devs/pytensor", compat.PINNED["pytensor"][1]),  # PyTensor 3.x, the corpus's commit
    "theano": ("Theano/Theano", compat.PINNED["theano"][1]),  # Theano 1.0
}
MODULES = {  # the namespaces whose names are listed; ("class", module, name) lists a class's attributes
    "pytensor": ["pytensor.tensor", *(f"pytensor.tensor.{m}" for m in
                                      ("math", "basic", "extra_ops", "sort", "shape", "subtensor", "special")),
                 ("class", "pytensor.tensor.variable", "TensorVariable")],
    "theano": ["theano.tensor", ("class", "theano.tensor.var", "TensorVariable")],
}


def list_name(spec):
    """Return a list's dotted name ('pytensor.tensor.math', 'theano.tensor.var.TensorVariable')."""
    return spec if isinstance(spec, str) else f"{spec[1]}.{spec[2]}"


# ---- reading an upstream tree with ast ----------------------------------------------------------------------

class Tree:
    """The Python modules of one library at one commit of its git repository, parsed on demand."""

    def __init__(self, repo, library, commit):
        self.repo, self.library, self.commit = repo, library, commit
        self.paths = set(compat._git(repo, "ls-tree", "-r", "--name-only", commit).splitlines())
        self._parsed, self._names = {}, {}

    def path_of(self, module):
        """Return the file of a dotted module name, or None when the tree has no such module."""
        base = module.replace(".", "/")
        return next((p for p in (f"{base}.py", f"{base}/__init__.py") if p in self.paths), None)

    def is_package(self, module):
        return (self.path_of(module) or "").endswith("__init__.py")

    def parse(self, module):
        if module not in self._parsed:
            path = self.path_of(module)
            source = subprocess.run(["git", "-C", str(self.repo), "show", f"{self.commit}:{path}"], check=True,
                                    capture_output=True, text=True).stdout
            self._parsed[module] = ast.parse(source, path)
        return self._parsed[module]

    def absolute(self, node, module):
        """Return the absolute module an ImportFrom node names, from inside `module`."""
        package = module if self.is_package(module) else module.rpartition(".")[0]
        return compat._absolute(node.module, node.level, package)

    def names(self, module, star=True):
        """Return {public name: the module it comes from} of `module`.

        With `star`, as ``from module import *`` gives them (a module without __all__ also passes on the
        names it imports from its own library); without, the module's own API: its __all__, else what it
        defines and star-imports (a package's __init__: also what it imports).
        """
        if (module, star) not in self._names:
            self._names[module, star] = {}  # a star-import cycle ends here
            self._names[module, star] = self._read_names(module, star)
        return self._names[module, star]

    def _read_names(self, module, star):
        listed = _dunder_all(self.parse(module))
        found = {}
        for node in _top_level(self.parse(module)):
            if isinstance(node, ast.ImportFrom):
                source = self.absolute(node, module)
                for alias in node.names:
                    if alias.name == "*":
                        if self.path_of(source):
                            found.update({n: home for n, home in self.names(source).items() if n not in found})
                        continue
                    bound = alias.asname or alias.name
                    if (star or self.is_package(module)) and self._re_exports(module, source, alias.name):
                        found.setdefault(bound, source)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.setdefault(node.name, module)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    for name in _target_names(target):
                        found.setdefault(name, module)
        if listed is not None:
            return {name: found.get(name, module) for name in listed}
        return {name: home for name, home in found.items() if not name.startswith("_") and name != "__all__"}

    def _re_exports(self, module, source, name):
        """Whether ``from source import name`` inside `module` puts `name` in module's star-import names."""
        is_module = self.path_of(f"{source}.{name}") is not None
        if source.partition(".")[0] in sys.stdlib_module_names:  # typing's, functools', __future__'s names
            return False
        if self.is_package(module):  # a namespace package re-exports what it imports, its submodules included
            return True
        return not is_module and (source == self.library or source.startswith(self.library + "."))

    def class_attributes(self, module, name, seen=None):
        """Return the public attribute names of class `name` of `module`, its bases' (in this tree) included."""
        seen = set() if seen is None else seen
        found = self.find_class(module, name)
        if found is None or found in seen:
            return set()
        seen.add(found)
        home, node = found
        names = set()
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(item.name)
            elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                for target in item.targets if isinstance(item, ast.Assign) else [item.target]:
                    names.update(_target_names(target))
        for base in node.bases:
            base = base.value if isinstance(base, ast.Subscript) else base  # Variable[_TypeType, ...]
            if isinstance(base, ast.Name):
                names |= self.class_attributes(home, base.id, seen)
            elif isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name):  # utils.object2
                source = self.imported_module(home, base.value.id)
                if source:
                    names |= self.class_attributes(source, base.attr, seen)
        return {n for n in names if not n.startswith("_")}

    def imported_module(self, module, alias):
        """Return the dotted module that the name `alias` is bound to in `module` (``from x import utils``)."""
        for node in _top_level(self.parse(module)):
            if isinstance(node, ast.ImportFrom):
                for item in node.names:
                    if (item.asname or item.name) == alias:
                        candidate = f"{self.absolute(node, module)}.{item.name}"
                        return candidate if self.path_of(candidate) else None
        return None

    def find_class(self, module, name, depth=0):
        """Return (module, ClassDef) where class `name`, as `module` sees it, is defined (following imports)."""
        if depth > 8 or not self.path_of(module):
            return None
        stars = []
        for node in _top_level(self.parse(module)):
            if isinstance(node, ast.ClassDef) and node.name == name:
                return module, node
            if isinstance(node, ast.ImportFrom):
                source = self.absolute(node, module)
                for alias in node.names:
                    if alias.name == "*":
                        stars.append(source)
                    elif (alias.asname or alias.name) == name:
                        return self.find_class(source, alias.name, depth + 1)
        return next((hit for source in stars if (hit := self.find_class(source, name, depth + 1))), None)


def _top_level(tree):
    """Yield the module's top-level statements, those inside top-level if/try blocks included."""
    pending = list(tree.body)
    while pending:
        node = pending.pop(0)
        if isinstance(node, ast.If):
            checking = isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
            pending[:0] = node.orelse if checking else node.body + node.orelse
        elif isinstance(node, ast.Try):
            pending[:0] = node.body + node.orelse + [s for h in node.handlers for s in h.body] + node.finalbody
        else:
            yield node


def _target_names(target):
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _target_names(element)]
    return []


def _dunder_all(tree):
    """Return the module's __all__ (assignments, ``+=`` and ``.extend`` of literal lists), or None without one."""
    names = None
    for node in _top_level(tree):
        value = None
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            names, value = [], node.value
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == "__all__":
            value = node.value
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
              and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "extend"
              and isinstance(node.value.func.value, ast.Name) and node.value.func.value.id == "__all__"):
            value = node.value.args[0]
        if value is not None:
            names = (names or []) + _literal_strings(value)
    return names


def _literal_strings(node):
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _literal_strings(node.left) + _literal_strings(node.right)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def census(repo, library):
    """Return {list name: sorted public names} of `library`'s MODULES at its pinned commit."""
    tree = Tree(repo, library, PINNED[library][1])
    lists = {}
    for spec in MODULES[library]:
        names = tree.names(spec, star=False) if isinstance(spec, str) else tree.class_attributes(spec[1], spec[2])
        lists[list_name(spec)] = sorted(names)
    return lists


# ---- classifying the names ---------------------------------------------------------------------------------

def read_todo(path=TODO):
    """Return {dotted name: the todo section it is listed under}."""
    todo, section = {}, None
    for line in (path.read_text() if path.exists() else "").splitlines():
        line = line.strip()
        if line in TODO_SECTIONS:
            section = line
        elif line and not line.startswith("#"):
            if section is None:
                raise ValueError(f"{path.name}: {line!r} comes before a section heading ({TODO_SECTIONS[0]!r})")
            todo[line] = section
    return todo


def load_census(path=CENSUS):
    return json.loads(path.read_text())


def dotted_names(data):
    """Yield (library, list name, dotted name) for every name of the census."""
    for library in PINNED:
        for list_, names in data[library]["lists"].items():
            for name in names:
                yield library, list_, f"{list_}.{name}"


def lookup(dotted):
    """Return the object of an upstream dotted name, as an attribute of its list's place through opkit.compat.

    ``pytensor.tensor.sort`` is the namespace's function, not the submodule; a class's attribute is looked
    for on the class, then on an instance (``owner``, ``name`` are set by ``__init__``). LookupError if none.
    """
    place, _, name = dotted.rpartition(".")
    holder = compat.resolve(place)
    if hasattr(holder, name):
        return getattr(holder, name)
    if isinstance(holder, types.ModuleType):  # a submodule not imported yet (pytensor.tensor.blas)
        try:
            return compat.resolve(dotted)
        except LookupError:
            pass
    if isinstance(holder, type) and issubclass(holder, _tensor_variable()):
        instance = holder(_tensor_type()("float64", (None,)))
        if hasattr(instance, name):
            return getattr(instance, name)
    raise LookupError(f"{dotted}: {compat.compat_name(place)} has no attribute {name!r}")


def _tensor_variable():
    from opkit.tensor import TensorVariable

    return TensorVariable


def _tensor_type():
    from opkit.tensor import TensorType

    return TensorType


def classify_all(data, rules):
    """Return {list name: {'present'|'absent'|'missing': [dotted names]}} (census_compat.classify per list)."""
    return {list_: compat.classify([f"{list_}.{name}" for name in names], rules, lookup)
            for library in PINNED for list_, names in data[library]["lists"].items()}


def figures(found, todo):
    """Return the report's lines: present / absent / missing (of them listed to build) / total, per list."""
    lines = []
    for list_, kinds in found.items():
        total = sum(map(len, kinds.values()))
        listed = sum(name in todo for name in kinds["missing"])
        lines.append(f"{list_}: {len(kinds['present'])} present, {len(kinds['absent'])} absent, "
                     f"{len(kinds['missing'])} missing ({listed} in the todo list), {total} in all")
    return lines


def write_todo(found, todo, path=TODO):
    """Rewrite the todo file: its header, then each section with the names still missing (new ones to build)."""
    missing = sorted({name for kinds in found.values() for name in kinds["missing"]})
    lines = path.read_text().splitlines() if path.exists() else []
    header = lines[: next((i for i, line in enumerate(lines) if line.strip() in TODO_SECTIONS), len(lines))]
    text = "\n".join(header).rstrip() + "\n"
    for section in TODO_SECTIONS:
        names = [n for n in missing if todo.get(n, TODO_SECTIONS[0]) == section]
        text += f"\n{section}\n" + "".join(f"{n}\n" for n in names)
    path.write_text(text)


def main(argv=None):
    parser = compat.refresh_parser(__doc__.splitlines()[0])
    parser.add_argument("--write-todo", action="store_true", help="rewrite census_tensor_todo.txt's name lists")
    args = parser.parse_args(argv)
    if args.refresh:
        return compat.refresh(parser, args, "lists", census, PINNED, CENSUS)
    found, todo = classify_all(load_census(), compat.read_absences(ABSENCES)), read_todo()
    if args.write_todo:
        write_todo(found, todo)
        todo = read_todo()
    print("\n".join(figures(found, todo)))
    for kinds in found.values():
        for name in kinds["missing"]:
            if name not in todo:
                print(f"  missing, not in the todo list: {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
