"""Signatures: find a region's compiled module without rendering its source.

A region whose every op and type declares a C cache version gets a cheap
structural signature (op classes and props, versions, types, wiring,
toolchain). ``<compiledir>/index/<signature>`` records the content key of the
module last built for it, so a warm process loads the module without
importing jinja2 or rendering anything. The content key stays the identity of
a cache entry; as with Theano's ``c_code_cache_version``, an op must bump its
version when its C code changes for any reason its props do not show.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pathlib

from opkit.cop.cinterface import call

SIGNATURE_FORMAT = "opkit-signature-1"


@functools.lru_cache(maxsize=None)
def _opkit_stamp():
    """Return a digest of opkit's own files (a changed template or generator invalidates signatures)."""
    root = pathlib.Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".j2", ".cpp") and "__pycache__" not in path.parts:
            stat = path.stat()
            digest.update(f"{path.relative_to(root)}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    return digest.hexdigest()


def _plain(value):
    """Return repr(value) if it is stable across processes, else None."""
    text = repr(value)
    return None if " at 0x" in text or "object at" in text else text


def _version(obj, *args, method="c_code_cache_version"):
    version = call(obj, method, *args, default=None) if args else None
    if version is None:
        version = call(obj, "c_code_cache_version", default=())
    return tuple(version) if version else None


def type_signature(ctype):
    """Return a stable description of a type with a versioned C interface, or None."""
    if any(callable(v) for v in vars(ctype).values()):
        return None  # methods assigned on the instance: nothing to go by
    version = _version(ctype)
    text = _plain(ctype)
    state = _plain(sorted((k, v) for k, v in vars(ctype).items() if not k.startswith("_")))
    if version is None or text is None or state is None:
        return None
    return f"{type(ctype).__module__}.{type(ctype).__qualname__}|{text}|{state}|{version}"


def op_signature(node):
    """Return a stable description of node's op (class, props, version), or None."""
    op = node.op
    props = getattr(type(op), "__props__", None)
    if props is None or any(name.startswith("c_") for name in vars(op)):
        return None
    values = _plain(op._props())
    version = _version(op, node, method="c_code_cache_version_apply")
    if values is None or version is None:
        return None
    return f"{type(op).__module__}.{type(op).__qualname__}|{values}|{version}"


def region_signature(region, toolchain):
    """Return a hex signature of `region` (structure, versions, toolchain), or None."""
    position = {}
    parts = [SIGNATURE_FORMAT, _opkit_stamp(), *toolchain]
    for kind, variables in (("in", region.inputs), ("const", region.constants)):
        for variable in variables:
            described = type_signature(variable.type)
            if described is None:
                return None
            position[id(variable)] = len(position)
            parts.append(f"{kind}:{described}")
    for node in region.nodes:
        described = op_signature(node)
        if described is None:
            return None
        refs = [position.get(id(v)) for v in node.inputs]
        if None in refs:
            return None
        for variable in node.outputs:
            out_type = type_signature(variable.type)
            if out_type is None:
                return None
            position[id(variable)] = len(position)
            parts.append(f"out:{out_type}")
        parts.append(f"node:{described}:{refs}")
    parts.append(f"outputs:{[position.get(id(v)) for v in region.outputs]}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


class SignatureIndex:
    """signature -> content key, in memory and as small files under `<root>/index/`."""

    def __init__(self):
        self._memory = {}

    def get(self, root, signature):
        key = self._memory.get((root, signature))
        if key is None:
            try:
                key = (pathlib.Path(root) / "index" / signature).read_text().strip() or None
            except OSError:
                return None
        return key

    def put(self, root, signature, key):
        self._memory[(root, signature)] = key
        directory = pathlib.Path(root) / "index"
        try:
            directory.mkdir(mode=0o700, exist_ok=True)
            tmp = directory / f".{signature}.{os.getpid()}"
            tmp.write_text(key)
            os.replace(tmp, directory / signature)
        except OSError:
            pass  # the index is only a shortcut


index = SignatureIndex()
