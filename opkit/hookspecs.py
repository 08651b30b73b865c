"""The hooks an op package implements; each receives a callback the host validates."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from opkit.plugins.validate import CCodeRegistry, GpuVersionRegister, Register

hookspec = pluggy.HookspecMarker("opkit")
hookimpl = pluggy.HookimplMarker("opkit")


@hookspec
def register_ops(register: Register) -> None:
    """Call ``register(op, name=None)`` for each Op (instance or no-argument class) the package provides."""


@hookspec
def register_types(register: Register) -> None:
    """Call ``register(type, name=None)`` for each Type (instance or no-argument class) the package provides."""


@hookspec
def register_c_code(registry: CCodeRegistry) -> None:
    """Give DeepCopyOp/ViewOp/Shape/Shape_i C code for the package's types via ``registry.register_*_c_code``."""


@hookspec
def register_gpu_versions(register: GpuVersionRegister) -> None:
    """Call ``register(op_class, make_gpu_node)`` for each host Op class the package moves to the GPU (opkit.gpu)."""
