"""The code identity of an op in Python: a digest of the code its class and its attributes run.

Two ops that are equal by their props may still compute different things: a
class redefined in a notebook cell, an ``as_op`` function edited, a scalar
function's loop. `python_identity(op)` digests the bytecode (and constants) of
every function of the op's class and bases, and of the functions and opkit
objects the op holds, so another code gives another digest. It is stable
across processes and hash seeds (no addresses, no set order, no file names or
line numbers), so it can be part of a token Dask compares between processes.

The C an op generates is the link layer's part of the identity (opkit.link.code_identity).
"""

from __future__ import annotations

import _thread
import functools
import types
import weakref

from opkit.core.digest import sha256

_SIMPLE = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis))
_class_digests: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # class -> (its dict values, digest)
# threading.local(), without importing threading (a warm process does not)
_local = _thread._local()  # .in_progress: the classes this thread is digesting (an attribute may hold an instance)
_DEPTH = 4  # how deep held objects are followed (an op's scalar function's loop's closure)
_SKIPPED = frozenset(["__doc__", "__dict__", "__weakref__", "__module__", "__qualname__", "__annotations__",
                      "__firstlineno__", "__static_attributes__", "__slotnames__", "__abstractmethods__",
                      "_abc_impl", "__parameters__", "__orig_bases__", "__hash__",
                      # a registered op's table type -> C code (Shape, DeepCopyOp, ...): it grows as types
                      # register (opkit.gpu.ops, a plugin), which must not change the identity of the ops of
                      # other types; a node's own entry is in its C identity (opkit.link.code_identity)
                      "_registry"])


_stand_ins: dict = {}  # id(object) -> (object, the Python function it stands in for)


def describe_as(stand_in, function) -> None:
    """Describe `stand_in`, a C object installed in place of the Python `function`, as `function`.

    Op.compute's C dispatcher (opkit.core.op.install_compute_dispatcher) is one: an
    identity must not depend on whether this process has installed it.
    """
    _stand_ins[id(stand_in)] = (stand_in, function)


def python_identity(value) -> str:
    """Return a hex digest of the code `value` (an op, usually) runs: its class's and what it holds."""
    return sha256(_describe(value, _DEPTH, set()).encode("utf-8", "surrogatepass")).hexdigest()


def class_identity(cls) -> str:
    """Return a hex digest of the code of `cls` and its bases (opkit's and the user's; not builtins)."""
    return sha256("\0".join(_class_digest(k) for k in cls.__mro__
                            if k.__module__ != "builtins").encode()).hexdigest()


def _class_digest(klass) -> str:
    in_progress = _local.__dict__.setdefault("in_progress", set())
    if klass in in_progress:  # a class attribute holding an instance of the class itself
        return f"class {klass.__module__}.{klass.__qualname__}"
    values = tuple(vars(klass).values())
    top = not in_progress  # digests made inside another class's depend on it: neither read nor kept
    try:
        cached = _class_digests.get(klass) if top else None
    except TypeError:
        cached = None
    # Valid while the class's attributes are the same objects (a method assigned later is seen).
    if cached is not None and len(cached[0]) == len(values) and all(a is b for a, b in zip(cached[0], values)):
        return cached[1]
    in_progress.add(klass)
    try:
        text = "\0".join(f"{name}={_describe(value, 2, set())}" for name, value in sorted(vars(klass).items())
                         if name not in _SKIPPED)
    finally:
        in_progress.discard(klass)
    digest = sha256(f"{klass.__module__}.{klass.__qualname__}\0{text}".encode("utf-8", "surrogatepass"))
    if top:
        try:
            _class_digests[klass] = (values, digest.hexdigest())
        except TypeError:
            pass
    return digest.hexdigest()


def _describe(value, depth, seen) -> str:
    stand_in = _stand_ins.get(id(value))
    if stand_in is not None and stand_in[0] is value:
        value = stand_in[1]
    if isinstance(value, _SIMPLE):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__}({','.join(_describe(v, depth, seen) for v in value)})"
    if isinstance(value, (set, frozenset)):
        return f"set({','.join(sorted(_describe(v, depth, seen) for v in value))})"
    if isinstance(value, dict):
        items = sorted(f"{_describe(k, depth, seen)}:{_describe(v, depth, seen)}" for k, v in value.items())
        return f"dict({','.join(items)})"
    if isinstance(value, types.CodeType):
        return _code(value)
    if isinstance(value, (staticmethod, classmethod)):
        return f"{type(value).__name__}({_describe(value.__func__, depth, seen)})"
    if isinstance(value, property):
        return f"property({','.join(_describe(f, depth, seen) for f in (value.fget, value.fset, value.fdel))})"
    if isinstance(value, types.MethodType):
        return f"method({_describe(value.__func__, depth, seen)})"
    if isinstance(value, type):
        return f"class {value.__module__}.{value.__qualname__}"
    if isinstance(value, (types.BuiltinFunctionType, types.BuiltinMethodType)) or type(value).__name__ == "ufunc":
        return f"builtin {getattr(value, '__module__', None)}.{getattr(value, '__name__', '?')}"
    if id(value) in seen or depth <= 0:
        return f"<{type(value).__module__}.{type(value).__qualname__}>"
    seen.add(id(value))
    if isinstance(value, types.FunctionType):
        return _function(value, depth, seen)
    if isinstance(value, functools.partial):
        return (f"partial({_describe(value.func, depth - 1, seen)},{_describe(value.args, depth - 1, seen)},"
                f"{_describe(value.keywords, depth - 1, seen)})")
    return _instance(value, depth, seen)


def _function(function, depth, seen):
    cells = []
    for cell in function.__closure__ or ():
        try:
            cells.append(_describe(cell.cell_contents, depth - 1, seen))
        except ValueError:  # an empty cell
            cells.append("<empty>")
    return (f"def {function.__qualname__}({_code(function.__code__)};"
            f"{_describe(function.__defaults__, depth - 1, seen)};"
            f"{_describe(function.__kwdefaults__, depth - 1, seen)};{','.join(cells)})")


def _instance(value, depth, seen):
    """An opkit object or a user's: its class's code and its attributes' (not for numpy arrays and the like)."""
    cls = type(value)
    state = getattr(value, "__dict__", None)
    if state is None and hasattr(cls, "__dataclass_fields__"):
        state = {name: getattr(value, name, None) for name in cls.__dataclass_fields__}
    if state is None or cls.__module__ in ("builtins", "numpy"):
        return f"<{cls.__module__}.{cls.__qualname__}>"
    skipped = getattr(cls, "_not_identity", ())  # what an instance holds that does not decide what it computes
    attributes = ",".join(f"{name}={_describe(item, depth - 1, seen)}" for name, item in sorted(state.items())
                          if isinstance(name, str) and name not in skipped)
    return f"{class_identity(cls)}({attributes})"


def _code(code) -> str:
    """Describe a code object by what it does: bytecode, constants, names (not its file or line numbers)."""
    consts = ",".join(_code(c) if isinstance(c, types.CodeType) else _describe(c, 1, set()) for c in code.co_consts)
    table = getattr(code, "co_exceptiontable", b"")
    return (f"code({code.co_code.hex()};{consts};{','.join(code.co_names)};{code.co_argcount};"
            f"{code.co_kwonlyargcount};{code.co_flags};{table.hex()})")
