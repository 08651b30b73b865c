"""Ask ops and types for their C code, whatever signature their methods were written with.

Tutorial code writes ``c_extract(name, sub)`` without ``check_input`` and
``c_headers()`` without ``c_compiler``; methods may also be assigned on an
instance without ``self``. These helpers call each the way it accepts.
"""

from __future__ import annotations

import functools
import inspect

from opkit.core.clinker import takes_compiler_positionally
from opkit.core.op import Op
from opkit.core.type import CType, MethodNotDefined

_TYPE_METHODS = ("c_declare", "c_extract", "c_sync", "c_cleanup")


def accepts(method, name):
    """Return True if `method` takes a parameter called `name` (or **kwargs)."""
    names = _keywords(method)
    return names is _ANY or name in names


_ANY = object()  # a method with **kwargs takes any keyword


def _keywords(method):
    """Return the names of `method`'s parameters (_ANY if it takes **kwargs; none if it has no signature)."""
    function = getattr(method, "__func__", method)  # a bound method's parameters are its function's
    try:
        return _function_keywords(function)
    except TypeError:  # unhashable callable
        return _function_keywords.__wrapped__(function)


@functools.lru_cache(maxsize=4096)
def _function_keywords(function):
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return frozenset()
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return _ANY
    return frozenset(p.name for p in parameters)


def call(obj, method_name, *args, default=None, **optional):
    """Call obj.method_name(*args), passing only the keyword arguments it accepts.

    Return `default` when the method is missing or raises MethodNotDefined.
    """
    method = getattr(obj, method_name, None)
    if method is None:
        return default
    kwargs = {}
    if optional:
        names = _keywords(method)
        kwargs = optional if names is _ANY else {k: v for k, v in optional.items() if k in names}
        if "c_compiler" in optional and "c_compiler" not in kwargs and takes_compiler_positionally(method, len(args)):
            # Theano 1.0 passes the compiler positionally, to a parameter of any name: c_headers(self, compiler)
            args = (*args, optional["c_compiler"])
    try:
        return method(*args, **kwargs)
    except MethodNotDefined:
        return default


def provides(obj, method_name, base):
    """Return True if `obj` defines `method_name` itself, not just inherits `base`'s stub."""
    if method_name in getattr(obj, "__dict__", {}):
        return True
    method = getattr(type(obj), method_name, None)
    return method is not None and method is not getattr(base, method_name, None)


def type_has_c(ctype):
    """Return True if a Type has a C interface (declare/extract/sync/cleanup)."""
    return all(provides(ctype, name, CType) for name in _TYPE_METHODS)


def op_has_c(node):
    """Return True if node's op has C code for this node and all its types have C."""
    op = node.op
    has = getattr(op, "has_c_code", None)
    if has is not None:
        if not has(node):
            return False
    elif not provides(op, "c_code", Op):
        return False
    return all(type_has_c(v.type) for v in node.inputs + node.outputs) and _c_code_given(node)


def _c_code_given(node):
    """Return True if the op's c_code gives this node C; False if it raises MethodNotDefined.

    Theano and PyTensor ops raise MethodNotDefined from c_code when they have no C
    for a case (no BLAS, a dtype): the node then runs its perform, the rest of the
    graph stays in C. MethodNotDefined from the other methods (c_support_code, ...)
    means "none", as in Theano's CLinker.
    """
    method = getattr(node.op, "c_code")
    if getattr(getattr(method, "__func__", method), "__module__", "").startswith("opkit."):
        return True  # opkit's own c_code: its op's has_c_code answered (and rendering it twice costs ~0.1 ms)
    sub = {"fail": "{ __failure = 1; goto __label_1; }", "id": 1}
    if getattr(node.op, "params_type", None) is not None:
        sub["params"] = "params"
    try:
        node_c_code(node.op, node, "opkit_probe", [f"I{k}" for k in range(len(node.inputs))],
                    [f"O{k}" for k in range(len(node.outputs))], sub)
    except MethodNotDefined:
        return False
    return True


def node_c_code(op, node, name, inputs, outputs, sub):
    """Return op.c_code(node, name, inputs, outputs, sub); it must be a string (MethodNotDefined propagates)."""
    code = op.c_code(node, name, inputs, outputs, sub)
    if not isinstance(code, str):
        raise TypeError(f"{type(op).__module__}.{type(op).__qualname__}.c_code returned {type(code).__name__} "
                        f"for {node}, not a string of C code.\nHint: return the C text, or raise "
                        "opkit.core.type.MethodNotDefined to run the op's perform for this node.")
    return code


def as_list(value):
    """Return a C-method result (None, a string, or a sequence) as a list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    return list(value)


def include_line(header):
    """Return the #include line for a header name ('x.h', '<x.h>' or '"x.h"')."""
    header = header.strip()
    if header.startswith(("<", '"')):
        return f"#include {header}"
    return f"#include <{header}>"
