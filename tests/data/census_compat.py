"""The census of Theano's and PyTensor's names that op code imports, and whether opkit.compat has each.

`python tests/data/census_compat.py --refresh --theano REPO --pytensor REPO` reads the two
upstream git repositories (at the commits the ported corpus comes from, PINNED below) and
writes census_compat.json beside this file: every ``theano.*`` / ``pytensor.*`` dotted name
that is imported or referenced (``import``, ``from ... import``, attribute chains on an imported
name such as ``theano.tensor.basic.as_tensor_variable`` or ``T.nnet.softmax``) by

- the modules that define an op with C (a ``def c_code(`` or a ``COp`` base), tests left out;
- the tests of the op-extension API (TEST_PATHS),

each with the files that use it. CI has no network, so that JSON is committed, and
tests/ported/test_compat_census.py imports every name through ``opkit.compat.theano`` or
``opkit.compat.pytensor``. Without ``--refresh`` the script prints the figures: present,
absent (recorded in census_absences.txt with a reason) and missing (neither), per library.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
CENSUS = HERE / "census_compat.json"
ABSENCES = HERE / "census_absences.txt"

PINNED = {  # the commits of tests/ported/PORTING.md
    "theano": ("Theano/Theano", "7505f23edd66fcdbbe04953f53c650b4d7cec4dd"),
    "pytensor": ("pymc-devs/pytensor", "f857e69611b9e36be2443f8e1905f5aa484aa455"),
}
OP_ROOTS = {"theano": "theano/", "pytensor": "pytensor/"}
TEST_PATHS = {
    "theano": ("theano/gof/tests/", "theano/compile/tests/"),
    "pytensor": ("tests/link/c/", "tests/link/test_link.py", "tests/graph/", "tests/compile/",
                 "tests/test_gradient.py"),
}
DEFINES_C_OP = re.compile(r"def c_code\(|\bCOp\s*[,)]")
COMPAT = {"theano": "opkit.compat.theano", "pytensor": "opkit.compat.pytensor"}


# ---- reading the upstream trees ----------------------------------------------------------------

def _git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def selected_files(repo, library):
    """Return {path: source} of the op modules and the op-extension tests of `library` at its pinned commit."""
    commit = PINNED[library][1]
    paths = [p for p in _git(repo, "ls-tree", "-r", "--name-only", commit).splitlines() if p.endswith(".py")]
    chosen = {}
    for path in paths:
        is_test = "/tests/" in path or path.startswith("tests/")
        wanted_test = path.startswith(TEST_PATHS[library])
        if not wanted_test and (is_test or not path.startswith(OP_ROOTS[library])):
            continue
        source = _git(repo, "show", f"{commit}:{path}")
        if wanted_test or DEFINES_C_OP.search(source):
            chosen[path] = source
    return chosen


# ---- the names one file uses ---------------------------------------------------------------------

def _package_of(path):
    """Return the dotted package of a file path ('theano/tensor/basic.py' -> 'theano.tensor')."""
    return ".".join(pathlib.PurePosixPath(path).parent.parts)


def _absolute(module, level, package):
    if not level:
        return module or ""
    parts = package.split(".")
    base = parts[: len(parts) - level + 1] if level > 1 else parts
    return ".".join(base + ([module] if module else []))


def _chain(node):
    """Return ['name', 'attr', ...] for a pure Name.attr.attr chain, else None."""
    attrs = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(attrs)]


def names_used(source, path, library):
    """Return the set of `library` dotted names that one file's source imports or references."""
    tree = ast.parse(source, path)
    package, bound, found = _package_of(path), {}, set()
    root = library + "."
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == library or alias.name.startswith(root):
                    found.add(alias.name)
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node.module, node.level, package)
            if not (module == library or module.startswith(root)):
                continue
            for alias in node.names:
                if alias.name == "*":
                    found.add(module)
                    continue
                found.add(f"{module}.{alias.name}")
                bound[alias.asname or alias.name] = f"{module}.{alias.name}"
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or isinstance(parents.get(node), ast.Attribute):
            continue
        chain = _chain(node)
        if chain and chain[0] in bound:
            found.add(".".join([bound[chain[0]], *chain[1:]]))
    return {name for name in found if name != library}


def census(repo, library):
    """Return {dotted name: [files using it]} for `library`'s selected files."""
    names = {}
    for path, source in sorted(selected_files(repo, library).items()):
        for name in names_used(source, path, library):
            names.setdefault(name, []).append(path)
    return dict(sorted(names.items()))


# ---- resolving a name through opkit.compat -----------------------------------------------------------

def compat_name(name):
    """Return the opkit.compat spelling of an upstream name (theano.X -> opkit.compat.theano.X)."""
    library, _, rest = name.partition(".")
    return f"{COMPAT[library]}.{rest}" if rest else COMPAT[library]


def resolve(name):
    """Return the object `name` (upstream spelling) names through opkit.compat; raise LookupError if none."""
    parts = compat_name(name).split(".")
    error = None
    for cut in range(len(parts), 2, -1):
        module_name = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and not module_name.startswith(exc.name):
                raise  # the module exists and failed to import something else: a defect, not an absence
            error = exc
            continue
        for attr in parts[cut:]:
            try:
                obj = getattr(obj, attr)
            except AttributeError as exc:
                raise LookupError(f"{name}: {exc}") from None
        return obj
    raise LookupError(f"{name}: {error}")


def read_absences(path=ABSENCES):
    """Return [(pattern, reason, line)]: a dotted name, or a prefix ending in '.*' for a subtree.

    One ``{a,b,c}`` group in a line stands for a line per alternative (``theano.scalar.{Add,Mul}``).
    """
    rules = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pattern, sep, reason = line.partition(" : ")
        if not sep or not reason.strip() or " " in pattern.strip():
            raise ValueError(f"{path.name}:{number}: expected 'name : reason', got {line!r}")
        group = re.search(r"\{([^{}]*)\}", pattern)
        names = ([pattern[:group.start()] + choice.strip() + pattern[group.end():] for choice in group[1].split(",")]
                 if group else [pattern])
        rules += [(name.strip(), reason.strip(), number) for name in names]
    return rules


def absence_for(name, rules):
    """Return the rule (pattern, reason, line) that records `name` as absent, or None."""
    for rule in rules:
        pattern = rule[0]
        if name == pattern or (pattern.endswith(".*") and (name + ".").startswith(pattern[:-1])):
            return rule
    return None


def classify(names, rules, lookup=None):
    """Return {'present': [...], 'absent': [...], 'missing': [...]} for upstream dotted names.

    `lookup(name)` finds a name's object, raising LookupError when there is none (default: resolve).
    """
    result = {"present": [], "absent": [], "missing": []}
    for name in names:
        try:
            (lookup or resolve)(name)
        except LookupError:
            result["absent" if absence_for(name, rules) else "missing"].append(name)
        else:
            result["present"].append(name)
    return result


def load_census(path=CENSUS):
    return json.loads(path.read_text())


def refresh_parser(description):
    """Return a census script's argument parser: ``--refresh`` with ``--theano`` and ``--pytensor`` git clones."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--refresh", action="store_true", help="read the upstream repositories, rewrite the JSON")
    parser.add_argument("--theano", help="a git clone of Theano/Theano (with the pinned commit)")
    parser.add_argument("--pytensor", help="a git clone of pymc-devs/pytensor (with the pinned commit)")
    return parser


def refresh(parser, args, key, read, pinned, path):
    """Write {library: {repository, commit, key: read(clone, library)}} to `path` as JSON; return 0."""
    if not (args.theano and args.pytensor):
        parser.error("--refresh needs --theano and --pytensor (git clones of the two repositories)")
    if sys.version_info < (3, 12):
        parser.error("--refresh needs Python 3.12 or later to parse PyTensor (its `type` and generic syntax)")
    data = {library: {"repository": pinned[library][0], "commit": pinned[library][1],
                      key: read(getattr(args, library), library)} for library in pinned}
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")
    return 0


def main(argv=None):
    parser = refresh_parser(__doc__.splitlines()[0])
    args = parser.parse_args(argv)
    if args.refresh:
        return refresh(parser, args, "names", census, PINNED, CENSUS)
    data, rules = load_census(), read_absences()
    for library in PINNED:
        found = classify(data[library]["names"], rules)
        total = len(data[library]["names"])
        print(f"{library}: {len(found['present'])} present, {len(found['absent'])} absent (with a reason), "
              f"{len(found['missing'])} missing, {total} in all")
        for name in found["missing"]:
            print(f"  missing: {name}  (used by {data[library]['names'][name][0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
