"""One function owns what a module is made of (opkit.cop.build.identity.made_of): a part added there reaches
every key of a module, the module cache's (region_key, module_key), an incremental chunk's, a shipped module's
and a node's code identity, so that adding a part (headers found through a new flag, say) is one edit."""

import opkit.tensor as ot
from opkit.cop.build import identity
from opkit.cop.generate.codegen import collect_module, render_parts
from opkit.cop.generate.region import Region
from opkit.cop.incremental import make_chunk, node_piece
from opkit.cop.store.shipped import shipped_key
from opkit.link.code_identity import c_identity


def _keys(node):
    parts = collect_module(Region.from_nodes([node], lambda variable: True))
    piece = node_piece(node)
    assert piece is not None  # a node an incremental build renders on its own
    return {"region_key": identity.region_key(parts), "module_key": identity.module_key(render_parts(parts)),
            "chunk": make_chunk([piece]).key, "shipped_key": shipped_key(parts), "c_identity": c_identity(node)}


def _node():
    x, y = ot.dvector("x"), ot.dvector("y")
    return (x * y).owner


def test_a_part_added_to_made_of_reaches_every_key(monkeypatch):
    node = _node()
    before = _keys(node)
    assert _keys(node) == before and len(set(before.values())) == len(before)
    made_of = identity.made_of
    monkeypatch.setattr(identity, "made_of", lambda *args, **kwargs: [*made_of(*args, **kwargs), "a new part"])
    after = _keys(node)
    assert [name for name in before if before[name] == after[name]] == []
    monkeypatch.setattr(identity, "made_of", made_of)
    assert _keys(node) == before


def test_a_toolchain_part_reaches_the_cache_keys_and_not_a_nodes_code_identity(monkeypatch):
    """The toolchain is one function too (toolchain_parts): a node's code identity leaves it out, as it should
    (a function pickled on one machine runs the same code with another compiler)."""
    node = _node()
    before = _keys(node)
    parts = identity.toolchain_parts
    monkeypatch.setattr(identity, "toolchain_parts", lambda: (*parts(), "-DANOTHER_COMPILER"))
    after = _keys(node)
    changed = sorted(name for name in before if before[name] != after[name])
    assert changed == ["chunk", "module_key", "region_key"]


def test_keys_differ_in_their_parts_not_in_how_they_are_listed():
    """made_of's parts are strings and bytes, digested with their lengths: ("ab", "c") is not ("a", "bc")."""
    parts = identity.made_of("content", lambda: "", (), (), (), (), ("g++",))
    assert all(isinstance(part, (str, bytes)) for part in parts)
    assert identity.cache_key("ab", "c") != identity.cache_key("a", "bc")
