"""Where each node's apply-level support code (c_support_code_apply) goes in a graph's module.

Theano compiled a graph's support code once per distinct text, and its default linker built each
node in a module of its own, so ops in the wild define fixed C names (``im2col``) in
c_support_code_apply with bodies that depend on the node (its dtype). A whole-graph module
holds every node, so:

- each distinct text is emitted once (equal texts of many nodes: once);
- when the module has two or more distinct texts, each goes in a C++ namespace of its own,
  ``opkit_apply_<k>``, and the node's code, code_cleanup, init_code_apply and struct init/cleanup
  get ``using namespace opkit_apply_<k>;``. A node with support_code_struct or params keeps its
  struct members (and params) in a base struct of OpkitGraph defined in that namespace, so their
  member functions find the namespace's names too. A top-level ``#include <...>`` in the text is
  emitted outside the namespace (closed and reopened around it); a quoted ``#include "..."`` stays
  inside (a header written to be included once per node). The text
  follows a ``#line`` naming its nodes, so a compiler error in it (two ``extern "C"``
  definitions of one name, which no namespace separates) names the nodes and their support code.

One distinct text (or none) keeps the module as it was: global support code.
"""

from __future__ import annotations

import functools
import os
import re

from opkit.cop.generate.node_code import RESTORE_LINE_PRAGMA, unique
from opkit.errors import CompileError

# A system header (<...>) is included at global scope, and so is a quoted one found in the header directories
# with an include guard; any other quoted one stays in place: it may be written to be included once per node
# (no include guard, the section's macros expanded in it).
_INCLUDE = r"^\s*#\s*include\s*(<|\"([^\"]+)\")"
_GUARD = (r"\A\s*#\s*(?:pragma\s+once\b|ifndef\s+(\w+)\s*\n\s*#\s*define\s+(\w+)\b|"
          r"if\s+!\s*defined\s*\(?\s*(\w+)\s*\)?\s*\n\s*#\s*define\s+(\w+)\b)")
# Comments, string and character literals: their braces are not the code's.
_NOT_CODE = r'(?s)//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''


def describe(node, names):
    """Return how a message names the nodes `names` of one text: ``node_3, node_5 (CorrMM on float32, float32)``.

    The op's class and the inputs' dtypes only: no user names or values reach the source.
    """
    dtypes = ", ".join(str(getattr(v.type, "dtype", type(v.type).__name__)) for v in node.inputs)
    return f"{', '.join(names)} ({type(node.op).__name__} on {dtypes or 'no inputs'})"


@functools.lru_cache(maxsize=256)
def _guarded(path, mtime_ns):
    """Return True if the header at `path` starts with an include guard (or #pragma once)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            head = re.sub(_NOT_CODE, lambda m: "\n" * m.group(0).count("\n"), handle.read(1 << 16))
    except OSError:
        return False
    match = re.match(_GUARD, head)
    return bool(match) and (match.group(1) == match.group(2) and match.group(3) == match.group(4))


def global_include(line, header_dirs=()):
    """Return True if the #include `line` belongs at global scope: a system header, or a guarded quoted one."""
    match = re.match(_INCLUDE, line)
    if match is None:
        return False
    if match.group(1) == "<":
        return True
    for directory in header_dirs:
        path = os.path.join(directory, match.group(2))
        if os.path.isfile(path):
            return _guarded(path, os.stat(path).st_mtime_ns)
    return False


def lift_includes(text, namespace, line_name=None, close=None, reopen=None, header_dirs=()):
    """Return `text` with its system #includes out of `namespace`, and the lines to emit before the namespace.

    An ``#include <...>`` at the top level is emitted where it is, the namespace closed and reopened around
    it; one in a top-level ``extern "C" { }`` block is also emitted before the namespace in such a block
    (its copy in place is then a no-op, the header being guarded), so its declarations are global too.
    With `line_name`, a ``#line`` after each reopening keeps the text's own line numbers under that name.
    `close` and `reopen` replace the namespace's closing and opening lines (nested namespaces). A quoted
    ``#include "..."`` found in `header_dirs` with an include guard is treated as a system one.
    """
    close = f"}} // namespace {namespace}" if close is None else close
    reopen = f"namespace {namespace} {{" if reopen is None else reopen
    # The code without comments and literals, line for line (a comment over several lines keeps its newlines).
    code = re.sub(_NOT_CODE, lambda m: "\n" * m.group(0).count("\n"), re.sub(_EXTERN_C, "extern_C ", text))
    braces, out, before = [], [], []
    for number, (line, code_line) in enumerate(zip(text.split("\n"), code.split("\n")), start=1):
        if not braces and global_include(line, header_dirs):
            line = f"{close}\n{line}\n{reopen}"
            if line_name is not None:
                line += f'\n#line {number + 1} "{line_name}"'
        elif braces == ["C"] and global_include(line, header_dirs):
            before.append(f'extern "C" {{\n{line.strip()}\n}}')
        out.append(line)
        for match in re.finditer(r"(\bextern_C\s*)?\{|\}", code_line):
            if match.group(0) == "}":
                braces = braces[:-1]
            else:
                braces.append("C" if match.group(1) else "x")
    return "\n".join(out), before


_DIRECTIVE = r"(?m)^[ \t]*#[ \t]*(define|undef)[ \t]+(\w+)(.*)$"
_EXTERN_C = r'\bextern\s*"C"'
_EXTERN_C_BLOCK = r"\bextern_C\s*\{"
_EXTERN_C_ONE = r"\bextern_C\s+([^;{}()=]*?)\b(\w+)\s*(?:\[[^\]]*\]\s*)*(\([^;{}]*\)\s*\{|=)"
_DEFINITION = r"(?:^|[;}])\s*[A-Za-z_][\w\s\*&:<>,]*?\b(\w+)\s*(?:\[[^\]]*\]\s*)*(?:\([^;{}]*\)\s*\{|=)"


def macros_left_defined(text):
    """Return {macro: its definition} for the macros `text` defines and does not #undef after."""
    macros = {}
    for kind, name, rest in re.findall(_DIRECTIVE, text.replace("\\\n", " ")):
        if kind == "define":
            macros[name] = rest.strip()
        else:
            macros.pop(name, None)
    return macros


_APPLY_SPECIFIC_DEFINE = r"(?m)^[ \t]*#[ \t]*define[ \t]+APPLY_SPECIFIC\(\s*(\w+)\s*\)[ \t]+\1[ \t]*##[ \t]*(\w+)"
_APPLY_SPECIFIC_USE = r"\bAPPLY_SPECIFIC\s*\(\s*(\w+)\s*\)"


def _expand_apply_specific(text):
    """Return `text` with APPLY_SPECIFIC(x) spelled out as its own `#define` says (x_node_0): two nodes'
    `extern "C" ... APPLY_SPECIFIC(kernel)` (a GPU node's kernels under the interpreter) are two names."""
    found = re.search(_APPLY_SPECIFIC_DEFINE, text)
    if found is None:
        return text
    return re.sub(_APPLY_SPECIFIC_USE, lambda m: m.group(1) + found.group(2), text)


def extern_c_definitions(text):
    """Return the names `text` defines with C linkage (no namespace separates them), as far as a regex sees."""
    code = re.sub(_NOT_CODE, " ", re.sub(_EXTERN_C, "extern_C ", _expand_apply_specific(text)))
    names = {m.group(2) for m in re.finditer(_EXTERN_C_ONE, code)}
    for start in re.finditer(_EXTERN_C_BLOCK, code):
        depth, k = 1, start.end()
        while k < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[k], 0)
            k += 1
        body, flat = code[start.end():k - 1], []
        depth = 0
        for char in body:  # the block's top level: function bodies dropped
            depth += char == "{"
            if depth == 0 or (depth == 1 and char == "{"):
                flat.append(char)
            depth -= char == "}"
        names |= set(re.findall(_DEFINITION, "".join(flat).replace("{", "{ }")))
    return names


def check_clashes(groups):
    """Raise CompileError if two texts leave one macro defined differently, or define one extern "C" name.

    `groups` is [(where, text)]. A namespace does not scope either: the macro's last definition would
    silently serve every node's code after it, and the linker would see one symbol twice.
    """
    seen_macros, seen_externs = {}, {}
    for where, text in groups:
        for name, body in macros_left_defined(text).items():
            first = seen_macros.setdefault(name, (where, body))
            if first[1] != body:
                raise CompileError(
                    f"the c_support_code_apply of two nodes define the macro {name} differently, and a macro "
                    f"is not scoped by the namespace each node's support code gets:\n  {first[0]}: "
                    f"#define {name} {first[1]}\n  {where}: #define {name} {body}\nThe later definition would "
                    f"serve both nodes' code.\nHint: #undef {name} at the end of the support code (or name it "
                    f"after the node: the `name` argument of c_support_code_apply, APPLY_SPECIFIC in a section file).")
        for name in extern_c_definitions(text):
            first = seen_externs.setdefault(name, where)
            if first != where:
                raise CompileError(
                    f"the c_support_code_apply of two nodes define {name} with C linkage (extern \"C\"), which no "
                    f"namespace separates:\n  {first}\n  {where}\nHint: drop extern \"C\", or name it after the "
                    f"node (the `name` argument of c_support_code_apply, APPLY_SPECIFIC in a section file).")


class ApplyPlacement:
    """The module's apply-level code, placed: what the template and the nodes' code receive."""

    def __init__(self, collected, params_declares=None):
        """`params_declares`: each params member's name -> its C declaration (moved into a base when namespaced)."""
        self.params_declares = params_declares or {}
        self.header_dirs = tuple(unique(collected.header_dirs))
        self.namespace_of = {}  # owner node name -> namespace
        self.support_code, self.struct_support, self.struct_bases = [], [], []
        self.params_in_base = set()
        self.init_code_apply = []
        applies = [a for a in collected.applies if "support" in a]
        texts = unique("\n".join(a["support"]) for a in applies if any(t.strip() for t in a["support"]))
        if len(texts) < 2:
            self.support_code = unique(t for a in applies for t in a["support"])
            self.struct_support = list(collected.struct_support)
            self.init_code_apply = [t for a in applies for t in a["init_apply"]]
            return
        self._namespaced(applies, texts)

    def _namespaced(self, applies, texts):
        index = {text: k for k, text in enumerate(texts)}
        owners = {}
        for apply in applies:
            text = "\n".join(apply["support"])
            if text in index:
                owners.setdefault(text, []).append(apply)
                self.namespace_of[apply["owner"]] = f"opkit_apply_{index[text]}"
        check_clashes([(describe(owners[t][0]["node"], [a["owner"] for a in owners[t]]), t) for t in texts])
        for text in texts:
            group = owners[text]
            namespace = self.namespace_of[group[0]["owner"]]
            where = describe(group[0]["node"], [a["owner"] for a in group])
            bases = [self._base(a, namespace) for a in group if a["struct_support"] or a["params"]]
            literal = ("c_support_code_apply of " + where).replace("\\", "/").replace('"', "'")
            body, before = lift_includes(text, namespace, literal, header_dirs=self.header_dirs)
            self.support_code.append(
                "".join(line + "\n" for line in before)
                + f"// ---- c_support_code_apply of {where} ----\nnamespace {namespace} {{\n#line 1 \"{literal}\"\n"
                f"{body}\n{RESTORE_LINE_PRAGMA}\n{''.join(bases)}}} // namespace {namespace}")
        for apply in applies:
            using = self.using(apply["owner"])
            if not (apply["struct_support"] or apply["params"]) or apply["owner"] not in self.namespace_of:
                self.struct_support.extend(apply["struct_support"])
            self.init_code_apply.extend(using + t for t in apply["init_apply"])

    def _base(self, apply, namespace):
        """Return the definition of the base struct holding a namespaced node's params and struct members."""
        name = f"opkit_members_{apply['owner']}"
        self.struct_bases.append(f"{namespace}::{name}")
        params = ""
        if apply["params"]:
            params = f"    PyObject* py_{apply['params']};\n{self.params_declares[apply['params']]}\n"
            self.params_in_base.add(apply["params"])
        members = "\n".join(apply["struct_support"])
        return f"struct {name} {{\n{params}{members}\n}};\n"

    def using(self, owner):
        """Return the ``using namespace ...;`` line the code of a node whose apply code is `owner`'s needs, or ''."""
        namespace = self.namespace_of.get(owner)
        return f"using namespace {namespace};\n" if namespace else ""


def place_apply_code(collected, collected_nodes, params):
    """Return the ApplyPlacement of a module's nodes; give namespaced nodes' code (blocks and struct code) its `using`.

    `collected_nodes`: (node block, its record in collected.applies); `params`: the params blocks.
    """
    placement = ApplyPlacement(collected, {p["name"]: p["declare"] for p in params})
    for p in params:
        if p["name"] in placement.params_in_base:
            p["in_base"] = True
    for block, record in collected_nodes:
        using = placement.using(record["owner"])
        if not using:
            continue
        block["code"] = using + block["code"]
        if block["cleanup"].strip():
            block["cleanup"] = f"{{\n{using}{block['cleanup']}\n}}"
        k = record["struct_index"]
        for texts in (collected.struct_init, collected.struct_cleanup):
            if texts[k].strip():
                texts[k] = using + texts[k]
    return placement


def chunk_apply_support(texts, name, header_dirs=()):
    """Return a node's apply support texts for its namespace in an incremental chunk (templates/node.cpp.j2),
    where `name` is nested in an anonymous namespace, and the lines to emit before the chunk's namespaces.

    There each node's support code is its own (no clash with another node's in the chunk) and has
    internal linkage (no other chunk's definition of one name can stand in for it at link time).
    """
    close, reopen = f"}}  // namespace {name}\n}}  // namespace", f"namespace {{\nnamespace {name} {{"
    bodies, before = [], []
    for text in texts:
        body, hoisted = lift_includes(text, name, close=close, reopen=reopen, header_dirs=tuple(header_dirs))
        bodies.append(body)
        before += hoisted
    return bodies, before
