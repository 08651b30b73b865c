"""Build the `#define`/`#undef` text around a `#section` body, one small pure function per macro.

Every function returns `(define, undef)`: zero or more complete lines each,
every line ending in a newline, every defined macro undefined again.
"""

from __future__ import annotations

import functools
import re

from opkit.cop.source.sections import TAGS, Section, line_directive

FAMILIES = ("APPLY_SPECIFIC", "DTYPE", "FAIL", "IO_NAMES", "PARAMS", "CONTEXT")

_NO_MACRO_TAGS = frozenset({"init_code", "support_code"})
_FAIL_TAGS = frozenset({"init_code_struct", "code", "code_cleanup"})
_IO_NAME_TAGS = frozenset({"code", "code_cleanup"})
_KERNEL_TAGS = frozenset({"kernels"})  # device code: node-specific names and dtypes, nothing of the host's

_FAMILY_PATTERNS = (
    ("APPLY_SPECIFIC", re.compile(r"APPLY_SPECIFIC\Z")),
    ("DTYPE", re.compile(r"(?:DTYPE|TYPENUM|ITEMSIZE)_(?:INPUT|OUTPUT)_\d+\Z")),
    ("FAIL", re.compile(r"FAIL\Z")),
    ("IO_NAMES", re.compile(r"(?:INPUT|OUTPUT)_\d+\Z")),
    ("PARAMS", re.compile(r"PARAMS\Z")),
    ("CONTEXT", re.compile(r"CONTEXT\Z")),
)
_DTYPE = re.compile(r"(u?int|float|complex)(\d+)\Z")
_BITS = {
    "int": (8, 16, 32, 64),
    "uint": (8, 16, 32, 64),
    "float": (16, 32, 64, 128),
    "complex": (64, 128, 256),
}
_NODE_NAME = re.compile(r"\w+\Z", re.ASCII)


def defined_macros(tag: str) -> frozenset[str]:
    """Return the macro families a section with this tag sees (PARAMS/CONTEXT if the op has them)."""
    if tag not in TAGS:
        raise ValueError(f"unknown section tag {tag!r}; valid tags: {', '.join(TAGS)}")
    if tag in _NO_MACRO_TAGS:
        return frozenset()
    if tag in _KERNEL_TAGS:
        return frozenset({"APPLY_SPECIFIC", "DTYPE"})
    families = {"APPLY_SPECIFIC", "DTYPE", "PARAMS", "CONTEXT"}
    if tag in _FAIL_TAGS:
        families.add("FAIL")
    if tag in _IO_NAME_TAGS:
        families.add("IO_NAMES")
    return frozenset(families)


def macro_family(identifier: str) -> str | None:
    """Return the family of an opkit macro name such as 'DTYPE_INPUT_0', or None."""
    for family, pattern in _FAMILY_PATTERNS:
        if pattern.match(identifier):
            return family
    return None


def dtype_info(dtype) -> tuple[str, str, int]:
    """Return the C type, NumPy typenum constant and item size of a dtype name like 'float64'."""
    name = str(dtype)
    if name == "bool":
        return "npy_bool", "NPY_BOOL", 1
    match = _DTYPE.match(name)
    if not match or int(match[2]) not in _BITS[match[1]]:
        raise ValueError(f"unsupported dtype {name!r}; expected bool, int8-int64, uint8-uint64, "
                         "float16-float128 or complex64-complex256")
    return f"npy_{name}", f"NPY_{name.upper()}", int(match[2]) // 8


def _define_all(pairs) -> tuple[str, str]:
    """Define each (macro, value) pair; undefine them in reverse order."""
    define = "".join(f"#define {macro} {value}\n" for macro, value in pairs)
    undef = "".join(f"#undef {macro.split('(')[0]}\n" for macro, _ in reversed(pairs))
    return define, undef


def apply_specific(name: str) -> tuple[str, str]:
    """Define APPLY_SPECIFIC(str) to append the apply node's unique name to `str`."""
    if not _NODE_NAME.match(name):
        raise ValueError(f"node name {name!r} must be letters, digits and underscores")
    return _define_all([("APPLY_SPECIFIC(str)", f"str##_{name}")])


def dtype_macros(inputs, outputs) -> tuple[str, str]:
    """Define DTYPE_, TYPENUM_ and ITEMSIZE_ INPUT_i/OUTPUT_i; a None dtype gets none."""
    return _dtype_macros(tuple(map(_dtype_name, inputs)), tuple(map(_dtype_name, outputs)))


def _dtype_name(dtype):
    return None if dtype is None else str(dtype)


@functools.lru_cache(maxsize=1024)  # a graph of many nodes asks for the same few, node after node
def _dtype_macros(inputs, outputs) -> tuple[str, str]:
    pairs = []
    for role, dtypes in (("INPUT", inputs), ("OUTPUT", outputs)):
        for index, dtype in enumerate(dtypes):
            if dtype is None:
                continue
            ctype, typenum, itemsize = dtype_info(dtype)
            pairs += [(f"DTYPE_{role}_{index}", ctype),
                      (f"TYPENUM_{role}_{index}", typenum),
                      (f"ITEMSIZE_{role}_{index}", itemsize)]
    return _define_all(pairs)


def io_name_macros(input_names, output_names) -> tuple[str, str]:
    """Define INPUT_i and OUTPUT_i as the C variable names of the node's inputs and outputs."""
    pairs = [(f"INPUT_{i}", name) for i, name in enumerate(input_names)]
    pairs += [(f"OUTPUT_{i}", name) for i, name in enumerate(output_names)]
    return _define_all(pairs)


def fail_macro(fail_code: str) -> tuple[str, str]:
    """Define FAIL as the fail code in braces, so `FAIL` and `FAIL;` are both one statement.

    Multi-line fail code is joined by backslash continuations, so it must not
    contain `//` comments.
    """
    lines = [line.rstrip() for line in str(fail_code).strip().splitlines()]
    if not lines:
        raise ValueError("fail code for the FAIL macro is empty")
    body = " \\\n".join(lines)
    return _define_all([("FAIL", f"{{ {body} }}")])


def params_macro(name: str) -> tuple[str, str]:
    """Define PARAMS as the C name of the op's params variable."""
    return _define_all([("PARAMS", name)])


def params_type_macros(struct_name, field_dtypes) -> tuple[str, str]:
    """Define PARAMS_TYPE (the params struct) and DTYPE_PARAM_<field> for fields with a dtype (PyTensor's)."""
    pairs = [("PARAMS_TYPE", struct_name)] if struct_name else []
    pairs += [(f"DTYPE_PARAM_{field}", dtype_info(dtype)[0]) for field, dtype in field_dtypes.items()
              if dtype is not None]
    return _define_all(pairs)


def context_macro(name: str) -> tuple[str, str]:
    """Define CONTEXT as the C name of the node's context variable."""
    return _define_all([("CONTEXT", name)])


def _required(value, what: str, tag: str):
    """Return value, or raise if a section with this tag needs it."""
    if value is None:
        raise ValueError(f"section {tag!r} needs {what}= to define its macros")
    return value


def section_macros(tag, *, name, input_dtypes, output_dtypes, input_names=None,
                   output_names=None, fail=None, check_input=True, params=None,
                   context=None, params_struct=None, param_dtypes=None) -> tuple[str, str]:
    """Return the (define, undef) text for a section with this tag (SPEC section 5's table).

    Values a tag does not use are ignored, so one set of arguments serves every tag;
    `fail` is required for init_code_struct/code/code_cleanup, names for code/code_cleanup.
    """
    def frozen(values):
        return None if values is None else tuple(values)

    return _section_macros(tag, name, frozen(input_dtypes), frozen(output_dtypes), frozen(input_names),
                           frozen(output_names), fail, check_input, params, context, params_struct,
                           None if param_dtypes is None else tuple(param_dtypes.items()))


@functools.lru_cache(maxsize=4096)
def _section_macros(tag, name, input_dtypes, output_dtypes, input_names, output_names, fail, check_input, params,
                    context, params_struct, param_dtypes):
    """section_macros on hashable arguments, memoized: a big graph asks the same question for every node."""
    families = defined_macros(tag)
    parts = []
    if "APPLY_SPECIFIC" in families:
        parts.append(apply_specific(name))
    if "DTYPE" in families and check_input:
        parts.append(dtype_macros(input_dtypes, output_dtypes))
    if "FAIL" in families:
        parts.append(fail_macro(_required(fail, "fail", tag)))
    if "IO_NAMES" in families:
        parts.append(io_name_macros(_required(input_names, "input_names", tag),
                                    _required(output_names, "output_names", tag)))
    if "PARAMS" in families and (params_struct or param_dtypes):
        parts.append(params_type_macros(params_struct, dict(param_dtypes or ())))
    if "PARAMS" in families and params is not None:
        parts.append(params_macro(params))
    if "CONTEXT" in families and context is not None:
        parts.append(context_macro(context))
    return "".join(d for d, _ in parts), "".join(u for _, u in reversed(parts))


def _ending_in_newline(text: str) -> str:
    """Return text with a final newline added unless it is empty or already has one."""
    return text if not text or text.endswith("\n") else text + "\n"


def wrap_section(section: Section, define: str, undef: str) -> str:
    """Return a section's text between its macros, after a `#line` pointing at its file."""
    return (_ending_in_newline(define) + line_directive(section) + "\n"
            + _ending_in_newline(section.text) + _ending_in_newline(undef))
