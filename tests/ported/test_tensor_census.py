"""The tensor census: every public name of PyTensor's and Theano's tensor namespaces is in opkit, or accounted for.

tests/data/census_tensor.json lists the public names of ``pytensor.tensor`` and its math, basic, extra_ops,
sort, shape, subtensor and special modules, of ``theano.tensor``, and the attributes of both peers'
``TensorVariable`` (tests/data/census_tensor.py --refresh writes it from the two git trees). Each name
resolves through opkit.compat at its upstream place, or is a deliberate absence with a reason
(census_tensor_absences.txt), or is missing and listed to be built (census_tensor_todo.txt). The figures
print with ``-s`` (and from ``python tests/data/census_tensor.py``).
"""

import importlib.util
import pathlib

import pytest

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"


def _load_census():
    spec = importlib.util.spec_from_file_location("census_tensor", DATA / "census_tensor.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


census = _load_census()
DATA_JSON = census.load_census()
RULES = census.compat.read_absences(census.ABSENCES)
TODO = census.read_todo()


@pytest.fixture(scope="module")
def found():
    return census.classify_all(DATA_JSON, RULES)


def test_every_name_is_present_absent_with_a_reason_or_listed_to_build(found):
    print("\n" + "\n".join(census.figures(found, TODO)))
    missing = [name for kinds in found.values() for name in kinds["missing"]]
    unlisted = [name for name in missing if name not in TODO]
    assert not unlisted, (f"{len(unlisted)} name(s) neither in opkit nor in census_tensor_absences.txt nor in "
                          "census_tensor_todo.txt (build it, or list it to build; an absence needs a fair "
                          "reason):\n" + "\n".join(unlisted))
    for list_, kinds in found.items():
        assert sum(map(len, kinds.values())) == len(DATA_JSON[list_.split(".")[0]]["lists"][list_])


def test_a_name_listed_to_build_is_still_missing(found):
    missing = {name for kinds in found.values() for name in kinds["missing"]}
    built = sorted(name for name in TODO if name not in missing)
    assert not built, ("census_tensor_todo.txt lists names that are present now (or absent by a rule, or not in "
                       "the census): remove them:\n" + "\n".join(built))


def test_every_absence_rule_covers_a_name(found):
    absent = [name for kinds in found.values() for name in kinds["absent"]]
    used = {census.compat.absence_for(name, RULES)[2] for name in absent}
    stale = sorted({(line, pattern) for pattern, _, line in RULES if line not in used})
    assert not stale, ("census_tensor_absences.txt rules that cover no missing name (the name is present now, or "
                       "not in the census): remove them:\n" + "\n".join(f"line {n}: {p}" for n, p in stale))


def test_the_census_was_made_at_the_pinned_commits():
    for library, (repository, commit) in census.PINNED.items():
        assert DATA_JSON[library]["repository"] == repository and DATA_JSON[library]["commit"] == commit
        assert set(DATA_JSON[library]["lists"]) == {census.list_name(spec) for spec in census.MODULES[library]}
    lists = {**DATA_JSON["pytensor"]["lists"], **DATA_JSON["theano"]["lists"]}
    assert {"logsumexp", "matmul", "cumsum", "sort", "diag", "e", "linalg"} <= set(lists["pytensor.tensor"])
    assert {"ArrayLike", "TYPE_CHECKING", "np", "warnings"}.isdisjoint(lists["pytensor.tensor"])  # typing, modules
    assert "sort" in lists["pytensor.tensor.sort"] and "Apply" not in lists["pytensor.tensor.sort"]
    assert {"abs_", "sgn", "batched_dot", "TensorType"} <= set(lists["theano.tensor"])
    assert {"std", "T", "owner", "dimshuffle", "eval"} <= set(lists["pytensor.tensor.variable.TensorVariable"])
    assert {"std", "T", "dimshuffle"} <= set(lists["theano.tensor.var.TensorVariable"])


def test_names_follow_all_star_imports_and_the_package_rule():
    import ast

    class FakeTree(census.Tree):
        def __init__(self, sources):
            self.library, self._names, self._parsed = "lib", {}, {m: ast.parse(s) for m, s in sources.items()}
            self.paths = {m.replace(".", "/") + ("/__init__.py" if m.count(".") == 0 else ".py") for m in sources}

    tree = FakeTree({
        "lib": "from lib.a import *\nfrom lib.b import *\nfrom lib.c import f as g\nfrom lib import c\n"
               "from typing import Union\nfrom numpy import pi\nif TYPE_CHECKING:\n    from lib.c import h\n",
        "lib.a": "__all__ = ['x']\n__all__ += ['y']\nx = y = z = 1\n",
        "lib.b": "import numpy as np\nfrom lib.c import f\nfrom os import path\ndef u(): pass\nclass _V: pass\n",
        "lib.c": "def f(): pass\ndef h(): pass\n",
    })
    assert set(tree.names("lib", star=False)) == {"x", "y", "u", "f", "g", "c", "pi"}
    assert set(tree.names("lib.b", star=False)) == {"u"}  # its own API: what it defines
    assert tree.names("lib.b")["f"] == "lib.c"  # a star-import also carries what it imports from its library


def test_lookup_finds_functions_not_submodules_and_instance_attributes():
    import opkit.tensor as ot

    assert census.lookup("pytensor.tensor.shape") is ot.shape  # the function, not pytensor.tensor.shape the module
    assert census.lookup("pytensor.tensor.variable.TensorVariable.owner") is None  # set by __init__
    assert census.lookup("theano.tensor.var.TensorVariable.dimshuffle") is ot.TensorVariable.dimshuffle
    with pytest.raises(LookupError, match="has no attribute 'no_such_name'"):
        census.lookup("pytensor.tensor.math.no_such_name")
