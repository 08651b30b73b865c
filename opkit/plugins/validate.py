"""The callbacks hooks receive: each call is validated, and errors name the plugin and its distribution."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from opkit.core import builtin_ops
from opkit.core.op import Op
from opkit.core.type import Type
from opkit.errors import PluginError

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def snake_case(class_name: str) -> str:
    """Return `class_name` in snake_case: VectorTimesVector -> vector_times_vector, HTTPOp -> http_op."""
    return _CAMEL_BOUNDARY.sub("_", class_name).lower()


def default_name(obj) -> str:
    """Return a registered object's name: its `name` attribute if a str, else its class name in snake_case."""
    name = getattr(obj, "name", None)
    return name if isinstance(name, str) and name else snake_case(type(obj).__name__)


def qualified_name(cls) -> str:
    """Return `module.QualName` of a class, as `opkit info` shows it."""
    return f"{cls.__module__}.{cls.__qualname__}"


@dataclass
class PluginRecord:
    """One entry point of the `opkit` group: where it comes from and whether it loaded."""

    name: str
    distribution: str
    version: str
    value: str = ""
    status: str = "loaded"  # "loaded", "broken" or "disabled"
    error: str = ""  # "Type: message (raised at file:line)" of a broken plugin
    location: str = ""  # the file:line of `error`
    exception: BaseException | None = field(default=None, repr=False)
    warnings: list[str] = field(default_factory=list)  # e.g. a hook function without @opkit.hookimpl

    def describe(self) -> str:
        """Return "plugin 'x' (distribution d 1.0)", the way every plugin error names its source."""
        return f"plugin {self.name!r} (distribution {self.distribution} {self.version})"

    def error_for(self, message: str, name=None) -> PluginError:
        """Return a PluginError whose first line names this plugin and its distribution."""
        return PluginError(f"{self.describe()}: {message}", name=name, distributions=(self.distribution,))


class Register:
    """The `register(obj, name=None)` callback of register_ops / register_types."""

    def __init__(self, record: PluginRecord, kind: str, base_class: type):
        self.record = record
        self.kind = kind
        self.base_class = base_class
        self.registered: dict[str, object] = {}

    def __call__(self, obj, name=None):
        """Validate and stage one registration; raise PluginError naming the plugin if it is wrong."""
        obj = self._instance(obj)
        if name is None:
            name = default_name(obj)
        if not isinstance(name, str) or not name.isidentifier():
            raise self.record.error_for(
                f"{self.kind} name {name!r} (for {qualified_name(type(obj))}) is not a Python identifier\n"
                f"pass register(obj, name=\"some_name\") with letters, digits and underscores", name=name)
        if name in self.registered:
            raise self.record.error_for(f"registers the {self.kind} name {name!r} twice\n"
                                        f"give one of them another name: register(obj, name=...)", name=name)
        self.registered[name] = obj
        return obj

    def _instance(self, obj):
        base = self.base_class
        if isinstance(obj, type):
            if not issubclass(obj, base):
                raise self.record.error_for(f"registered the class {qualified_name(obj)}, which is not a "
                                            f"subclass of {qualified_name(base)}")
            try:
                return obj()
            except TypeError as exc:
                raise self.record.error_for(
                    f"registered the class {qualified_name(obj)}, which cannot be instantiated without "
                    f"arguments ({exc})\nregister an instance instead: register({obj.__name__}(...))") from exc
        if not isinstance(obj, base):
            raise self.record.error_for(f"registered {obj!r} ({qualified_name(type(obj))}), which is neither "
                                        f"an instance nor a subclass of {qualified_name(base)}")
        return obj


class GpuVersionRegister:
    """The `register(op_class, make_gpu_node)` callback of register_gpu_versions (opkit.gpu.placement reads them).

    `make_gpu_node(node, gpu_inputs)` gets a host node of `op_class` and its inputs already on the GPU, and
    returns a GPU Apply node (or None to keep the node on the host).
    """

    def __init__(self, record: PluginRecord):
        self.record = record
        self.registered: list[tuple[type, object]] = []

    def __call__(self, op_class, make_gpu_node):
        """Validate and stage one GPU version; raise PluginError naming the plugin if it is wrong."""
        if not isinstance(op_class, type) or not issubclass(op_class, Op):
            raise self.record.error_for(f"register_gpu_versions: op_class must be a subclass of opkit.Op (the host "
                                        f"op's class), got {op_class!r}")
        if not callable(make_gpu_node):
            raise self.record.error_for(f"register_gpu_versions: make_gpu_node of {qualified_name(op_class)} must "
                                        f"be callable (node, gpu_inputs) -> GPU Apply node, got {make_gpu_node!r}")
        self.registered.append((op_class, make_gpu_node))


_C_CODE_FUNCTIONS = ("register_deep_copy_op_c_code", "register_view_op_c_code",
                     "register_shape_c_code", "register_shape_i_c_code")


class CCodeRegistry:
    """The `registry` argument of register_c_code: stages C code for the built-in ops, per Type class."""

    def __init__(self, record: PluginRecord):
        self.record = record
        self.calls: list[tuple[str, tuple, dict]] = []

    def register_deep_copy_op_c_code(self, type_class, code, version=()):
        """Give DeepCopyOp C code for inputs of `type_class` (%(iname)s, %(oname)s, %(fail)s)."""
        self._stage("register_deep_copy_op_c_code", type_class, code, version=version)

    def register_view_op_c_code(self, type_class, code, version=()):
        """Give ViewOp C code for inputs of `type_class` (%(iname)s, %(oname)s, %(fail)s)."""
        self._stage("register_view_op_c_code", type_class, code, version=version)

    def register_shape_c_code(self, type_class, code, version=()):
        """Give Shape C code for inputs of `type_class` (%(iname)s, %(oname)s, %(fail)s)."""
        self._stage("register_shape_c_code", type_class, code, version=version)

    def register_shape_i_c_code(self, type_class, code, check_input, version=()):
        """Give Shape_i C code for `type_class`; `check_input` guards that dimension %(i)s exists."""
        if not isinstance(check_input, (str, os.PathLike)):
            raise self.record.error_for(f"register_shape_i_c_code: check_input must be C code (a str), "
                                        f"got {type(check_input).__name__}")
        self._stage("register_shape_i_c_code", type_class, code, check_input, version=version)

    def _stage(self, function, type_class, code, *extra, version=()):
        if not isinstance(type_class, type) or not issubclass(type_class, Type):
            raise self.record.error_for(f"{function}: expected a subclass of opkit.Type, got {type_class!r}")
        if not isinstance(code, (str, os.PathLike)):  # C, or a section file
            raise self.record.error_for(f"{function}: code must be a str of C, got {type(code).__name__}")
        try:
            version = tuple(version)
        except TypeError:
            raise self.record.error_for(f"{function}: version must be a tuple, got {version!r}") from None
        self.calls.append((function, (type_class, code, *extra), {"version": version}))

    def apply(self):
        """Hand the staged C code to opkit.core.builtin_ops (after the plugin's hooks all succeeded)."""
        for function, args, kwargs in self.calls:
            getattr(builtin_ops, function)(*args, **kwargs)
