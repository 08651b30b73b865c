"""One function owns what a compiled artifact is made of (opkit.cop.toolchain.identity.made_of, of a CompileRequest):
a part added there reaches every key, the module cache's (region_key, module_key), an incremental chunk's, a
shipped module's, a precompiled header's, a node's kernels' and a shipped kernel's, and a node's code identity
(pickle and Dask tokens), so that adding a part (headers found through a new flag, say) is one edit."""

import opkit.tensor as ot
from opkit.cop import kernels
from opkit.cop.toolchain import identity
from opkit.cop.toolchain.compiler import find_compiler, python_include_dirs
from opkit.cop.toolchain.flags import build_flags
from opkit.cop.toolchain.pch import pch_key
from opkit.cop.generate.codegen import collect_module, render_parts
from opkit.cop.generate.region import Region
from opkit.cop.incremental import make_chunk, node_piece
from opkit.cop.store.shipped import shipped_key
from opkit.gpu.shipped_kernels import shipped_kernel_key
from opkit.link.code_identity import c_identity
from tests.gpu.ops.kernel_ops import axpy_node


def _keys(node, kernel_node):
    parts = collect_module(Region.from_nodes([node], lambda variable: True))
    piece = node_piece(node)
    assert piece is not None  # a node an incremental build renders on its own
    kernel = kernels.kernel_request(kernel_node, "sm_80", nvrtc="nvrtc 12.9")  # NVRTC need not be installed
    return {"region_key": identity.region_key(parts), "module_key": identity.module_key(render_parts(parts)),
            "chunk": make_chunk([piece]).key, "shipped_key": shipped_key(parts), "c_identity": c_identity(node),
            "pch": pch_key(find_compiler(), build_flags()[0], python_include_dirs()),
            "kernel": identity.request_key(kernel, kernels.KERNEL_FORMAT),
            "shipped_kernel": shipped_kernel_key(kernel_node, "sm_80")}


def _nodes():
    x, y = ot.dvector("x"), ot.dvector("y")
    return (x * y).owner, axpy_node("float32", "float32")


def test_a_part_added_to_made_of_reaches_every_key(monkeypatch):
    nodes = _nodes()
    before = _keys(*nodes)
    assert _keys(*nodes) == before and len(set(before.values())) == len(before)
    made_of = identity.made_of
    monkeypatch.setattr(identity, "made_of", lambda request: [*made_of(request), "a new part"])
    after = _keys(*nodes)
    assert [name for name in before if before[name] == after[name]] == []
    monkeypatch.setattr(identity, "made_of", made_of)
    assert _keys(*nodes) == before


def test_a_toolchain_part_reaches_the_cache_keys_and_not_a_nodes_code_identity(monkeypatch):
    """The host's toolchain is one function too (host_toolchain): a node's code identity and a shipped module's key
    leave it out, as they should (a function pickled on one machine runs the same code with another compiler; a
    shipped module is found by a machine without one)."""
    nodes = _nodes()
    before = _keys(*nodes)
    system_parts = identity.system_parts
    monkeypatch.setattr(identity, "system_parts", lambda dirs=None: (*system_parts(dirs), "another numpy"))
    after = _keys(*nodes)
    changed = sorted(name for name in before if before[name] != after[name])
    assert changed == ["chunk", "module_key", "pch", "region_key"]


def test_keys_differ_in_their_parts_not_in_how_they_are_listed():
    """made_of's parts are strings, digested with their lengths: ("ab", "c") is not ("a", "bc"), and the
    toolchain's flags, its link flags and the op's arguments are told apart."""
    parts = identity.made_of(identity.CompileRequest(("content",), toolchain=identity.Toolchain(tool="g++")))
    assert all(isinstance(part, str) for part in parts)
    assert identity.cache_key("ab", "c") != identity.cache_key("a", "bc")
    moved = [identity.Toolchain(compile_args=("-DX",)), identity.Toolchain(link_args=("-DX",))]
    keys = {identity.request_key(identity.CompileRequest(("content",), toolchain=t)) for t in moved}
    keys.add(identity.request_key(identity.CompileRequest(("content",), compile_args=("-DX",))))
    assert len(keys) == 3
