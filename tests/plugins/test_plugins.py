"""The plugin registry in-process, with fake entry points (the venv tests install real packages)."""

import pathlib
import re
import types as pytypes
import warnings

import pytest
from conftest import FakeEntryPoint, installed_opkit_distribution

import opkit
from opkit import PluginError, hookimpl
from opkit.core.builtin_ops import _DEEP_COPY_C
from opkit.core.op import Op
from opkit.core.type import Type
from opkit.plugins import manager
from opkit.plugins.manager import PluginLoadWarning, load_plugins
from opkit.plugins.registry import ops, types
from opkit.plugins.validate import default_name, snake_case

TESTS = pathlib.Path(__file__).parents[1]


def plugin(**hooks):
    """Return a plugin object whose hooks are the given functions."""
    return pytypes.SimpleNamespace(**{name: hookimpl(function) for name, function in hooks.items()})


class Twice(Op):
    __props__ = ()

    def make_node(self, x):
        return opkit.Apply(self, [x], [x.type()])


class NeedsArgument(Op):
    def __init__(self, factor):
        self.factor = factor


def register_ops_of(*objects, **named):
    def register_ops(register):
        for obj in objects:
            register(obj)
        for name, obj in named.items():
            register(obj, name=name)
    return plugin(register_ops=register_ops)


def broken_by(installed, bad_plugin):
    """Install `bad_plugin` next to a good one; return the broken record and the warning message."""
    installed(FakeEntryPoint("good", register_ops_of(Twice), "good-dist"),
              FakeEntryPoint("bad", bad_plugin, "bad-dist", "0.2"))
    with pytest.warns(PluginLoadWarning) as caught:
        assert list(ops) == ["twice"]
    [record] = load_plugins().broken
    message = str(caught[0].message)
    assert "'bad'" in message and "bad-dist 0.2" in message
    return record, message


def test_names_are_the_name_attribute_or_the_snake_case_class_name():
    assert snake_case("VectorTimesVector") == "vector_times_vector"
    assert snake_case("HTTPRequestOp") == "http_request_op"
    assert snake_case("Shape_i") == "shape_i"
    assert default_name(Twice()) == "twice"
    named = Twice()
    named.name = "double_it"
    assert default_name(named) == "double_it"


def test_hook_register_ops_instances_and_classes(installed):
    instance = Twice()
    installed(FakeEntryPoint("mine", register_ops_of(NeedsArgument(3), Twice, doubled=instance), "my-ops", "2.1"))
    assert list(ops) == ["doubled", "needs_argument", "twice"]
    assert isinstance(ops.twice, Twice) and ops["doubled"] is instance
    assert "twice" in ops and "my-ops:twice" in ops and "nothing" not in ops
    assert ops.info("doubled") == {"name": "doubled", "plugin": "mine", "distribution": "my-ops", "version": "2.1",
                                   "op_class": "test_plugins.Twice", "c_files": []}


def test_loading_is_lazy_and_happens_once(installed):
    calls = installed(FakeEntryPoint("mine", register_ops_of(Twice), "my-ops"))
    assert calls == []
    assert list(ops) == ["twice"] and ops.twice is ops["twice"]
    assert len(ops) == 1
    assert calls == ["opkit"]


@pytest.mark.parametrize("bad, expected", [
    (register_ops_of(42), r"registered 42 \(builtins.int\), which is neither an instance nor a subclass of "
                          r"opkit.core.op.Op"),
    (register_ops_of(NeedsArgument), r"cannot be instantiated without arguments"),
    (register_ops_of(**{"not-an-identifier": Twice()}), r"op name 'not-an-identifier' .* is not a Python identifier"),
    (register_ops_of(Twice, Twice), r"registers the op name 'twice' twice"),
])
def test_hook_register_ops_validates_every_call_and_names_the_plugin(installed, bad, expected):
    record, message = broken_by(installed, bad)
    assert isinstance(record.exception, PluginError)
    assert record.exception.distributions == ("bad-dist",)
    assert re.search(expected, message)
    assert str(record.exception).startswith("plugin 'bad' (distribution bad-dist 0.2): ")


def test_a_plugin_that_fails_to_import_warns_and_the_rest_load(installed):
    record, message = broken_by(installed, ImportError("needs libfoo"))
    assert "failed to load" in message and "ImportError: needs libfoo" in message
    assert "OPKIT_DISABLE_PLUGINS=bad-dist" in message
    # the error says where it was raised: here, the fake entry point's load()
    assert record.status == "broken" and record.error.startswith("ImportError: needs libfoo (raised at ")
    load = FakeEntryPoint.load.__code__  # in conftest.py
    assert record.error.endswith(f"{load.co_filename}:{load.co_firstlineno + 2})")
    assert f"(raised at {record.location})" in message


def test_a_hook_that_raises_keeps_nothing_it_registered(installed):
    def register_ops(register):
        register(NeedsArgument(1))
        raise RuntimeError("boom")

    record, message = broken_by(installed, plugin(register_ops=register_ops))
    assert "raised in a hook" in message and "RuntimeError: boom" in message
    assert "needs_argument" not in ops


@pytest.mark.parametrize("bad, expected", [
    (plugin(register_ops=lambda registry: None), "PluginValidationError: Plugin 'bad' for hook 'register_ops'"),
    (plugin(register_op=lambda register: None), "implements 'register_op', which is not an opkit hook; "
                                                "did you mean 'register_ops'?"),
])
def test_hook_implementations_must_match_the_hookspecs(installed, bad, expected):
    record, message = broken_by(installed, bad)
    assert expected in message


def test_using_opkit_ops_inside_a_hook_is_reported(installed):
    record, message = broken_by(installed, plugin(register_ops=lambda register: list(opkit.ops)))
    assert "used while the plugins were loading" in message


def test_two_distributions_registering_one_name(installed):
    first, second = Twice(), NeedsArgument(2)
    installed(FakeEntryPoint("a", register_ops_of(thing=first), "dist-a"),
              FakeEntryPoint("b", register_ops_of(thing=second), "dist-b"))
    with pytest.raises(PluginError) as excinfo:
        ops.thing
    assert excinfo.value.name == "thing"
    assert excinfo.value.distributions == ("dist-a", "dist-b")
    assert 'opkit.ops["dist-a:thing"] or opkit.ops["dist-b:thing"]' in str(excinfo.value)
    with pytest.raises(PluginError):
        ops["thing"]
    assert ops["dist-a:thing"] is first and ops["dist_b:thing"] is second
    assert ops["b:thing"] is second  # the entry point name picks too
    assert ops.info("dist-b:thing")["op_class"] == "test_plugins.NeedsArgument"
    with pytest.raises(KeyError, match="no installed distribution 'dist-c' .*\n'thing' is registered by: dist-a, dist-b"):
        ops["dist-c:thing"]


def test_unknown_names_suggest_close_matches(installed):
    installed(FakeEntryPoint("mine", register_ops_of(Twice), "my-ops"))
    with pytest.raises(AttributeError, match="no installed opkit plugin registers the op 'twise'\ndid you mean 'twice'"):
        ops.twise
    with pytest.raises(KeyError, match="did you mean 'twice'"):
        ops["twise"]


@pytest.mark.parametrize("setting, expected", [
    ("dist-b", ["from_a", "from_core"]),
    ("b", ["from_a", "from_core"]),
    (" Dist_A , b ", ["from_core"]),
    ("all", ["from_core"]),
    ("*", ["from_core"]),
    ("1", ["from_core"]),
    ("opkit", ["from_a"]),  # b is not disabled: it fails to import, with a warning
])
def test_opkit_disable_plugins(installed, monkeypatch, setting, expected):
    installed(FakeEntryPoint("opkit", register_ops_of(from_core=Twice()), "opkit-sdk"),
              FakeEntryPoint("a", register_ops_of(from_a=Twice()), "dist-a"),
              FakeEntryPoint("b", ImportError("never imported when disabled"), "dist-b"))
    monkeypatch.setenv("OPKIT_DISABLE_PLUGINS", setting)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore" if setting == "opkit" else "error")  # a disabled plugin is never imported
        assert list(ops) == expected
    assert "disabled" in {record.status for record in load_plugins().plugins}


def test_hook_register_types_validates_and_names_types(installed):
    class Double(Type):
        pass

    installed(FakeEntryPoint("t", plugin(register_types=lambda register: register(Double)), "types-dist"))
    assert isinstance(types.double, Double)
    assert types.info("double")["type_class"].endswith("Double")
    record, message = broken_by(installed, plugin(register_types=lambda register: register(Twice())))
    assert "neither an instance nor a subclass of opkit.core.type.Type" in message


def test_hook_register_c_code_reaches_the_builtin_ops(installed):
    class Cell(Type):
        pass

    def register_c_code(registry):
        registry.register_deep_copy_op_c_code(Cell, "%(oname)s = %(iname)s;", version=(3,))

    installed(FakeEntryPoint("c", plugin(register_c_code=register_c_code), "c-dist"))
    assert list(ops) == []
    assert _DEEP_COPY_C[Cell] == ("%(oname)s = %(iname)s;", (3,))
    bad = plugin(register_c_code=lambda registry: registry.register_view_op_c_code(Twice, "x"))
    record, message = broken_by(installed, bad)
    assert "register_view_op_c_code: expected a subclass of opkit.Type" in message


def test_opkit_registers_its_own_ops_through_its_entry_point():
    manager.reset_plugins()
    info = opkit.ops.info("add")
    assert (info["plugin"], info["distribution"]) == ("opkit", installed_opkit_distribution())
    assert [r.value for r in load_plugins().plugins if r.name == "opkit"] == ["opkit.plugins.builtin"]
    assert {"add", "sub", "mul", "true_div", "sum", "dot", "shape"} <= set(opkit.ops)
    assert opkit.ops.sum.axis is None and "dvector" in opkit.plugins.registry.types


def _hooks():
    from opkit import hookspecs

    return [name for name in vars(hookspecs) if name.startswith("register_")]


@pytest.mark.parametrize("hook", _hooks())
def test_every_hook_has_tests(hook):
    tested = any(f"def test_hook_{hook}" in path.read_text(encoding="utf-8") for path in TESTS.rglob("test_*.py"))
    assert tested, f"Plugin hook is missing tests: {hook}"


@pytest.mark.parametrize("hook", _hooks())
def test_every_hook_and_its_argument_are_documented(hook):
    import inspect

    from opkit import hookspecs

    argument = next(iter(inspect.signature(getattr(hookspecs, hook)).parameters))
    readme = (TESTS.parent / "README.md").read_text(encoding="utf-8")
    assert f"{hook}({argument})" in readme, f"README.md does not document the hook {hook}({argument})"
