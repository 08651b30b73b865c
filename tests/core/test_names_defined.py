"""Every global name a module of opkit reads is defined in it: an import moved or removed in a refactor leaves no
NameError waiting in a function that only some tests call (Linker.accept's `decide` was one, caught only by the
ported Theano linker tests).

The check reads each module's symbol table (symtable, no import): the names a function or class body reads as
globals must be bound at the module's top level (assigned, imported, defined) or be builtins. A module with a
star import, or whose globals are filled by its code (`globals()[...]`, a PEP 562 `__getattr__`), can define
names the table does not show: such a module is left out (about 50 of 420: the compat namespaces, the lazy
packages), and the tests that import it call its names.
"""

import builtins
import pathlib
import symtable

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "opkit"
BUILTINS = set(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__", "__path__", "__package__",
                                 "__loader__", "__builtins__", "__annotations__", "__dict__", "__class__",
                                 "__qualname__", "__module__"}


def _global_reads(table):
    """Yield (line-less) names that the functions and classes under `table` read as module globals."""
    for child in table.get_children():
        for symbol in child.get_symbols():
            if symbol.is_referenced() and (symbol.is_global() or (child.get_type() == "class" and symbol.is_free()))\
                    and not symbol.is_assigned() and not symbol.is_imported():
                yield symbol.get_name()
        yield from _global_reads(child)


def undefined_names(path):
    """Return the sorted names a module reads as globals and never binds (empty where it can bind any name)."""
    text = path.read_text(encoding="utf-8")
    if "import *" in text or "globals()" in text or "def __getattr__" in text:
        return []  # its globals are not all in its text
    table = symtable.symtable(text, str(path), "exec")
    bound = {symbol.get_name() for symbol in table.get_symbols()
             if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace()}
    return sorted({name for name in _global_reads(table) if name not in bound and name not in BUILTINS})


def test_every_global_a_module_reads_is_defined():
    found = {str(path.relative_to(PACKAGE.parent)): names for path in sorted(PACKAGE.rglob("*.py"))
             if (names := undefined_names(path))}
    assert found == {}, f"names read and never defined (a lost import?): {found}"


def test_the_check_sees_a_lost_import(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from os import path\n\n\nclass Linker:\n    def accept(self):\n        return decide(path)\n")
    assert undefined_names(module) == ["decide"]
    module.write_text("from os import path\nfrom x import decide\n\n\ndef f():\n    return decide(path, len)\n")
    assert undefined_names(module) == []
