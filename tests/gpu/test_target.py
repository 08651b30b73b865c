"""The device as a target (opkit.cop.generate.target): chosen once per function with its backend (opkit.decision),
carried by the backend to the regions the linker cuts, and read there by code generation, which asks it what a
GPU node's module holds; the GPU versions come through a plugin hook; cop imports nothing of opkit.gpu."""

import ast
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.cop.generate.codegen import collect_module
from opkit.cop.generate.node_code import Collector
from opkit.cop.generate.region import Region
from opkit.cop.generate.target import Target, current_target, using_target
from opkit.errors import PluginError
from opkit.gpu import GpuArrayType, to_gpu, to_host
from opkit.gpu.device import TARGETS, current_device, target_for, using_device
from opkit.gpu.ops import GPU_VERSIONS, GpuElemwise
from opkit.gpu.placement import ask_plugins, registered_gpu_versions
from opkit.link.partition import partition

COP = pathlib.Path(opkit.__file__).parent / "cop"


def _gpu_node():
    x = opkit.gpu.vector("x", dtype="float64")
    return GpuElemwise(((ot.exp(ot.dscalar()).owner.op.scalar_op, (0,), "float64"),), 1)(x).owner


class _Hooks:
    """A target's kernel hooks that say what was asked."""

    @staticmethod
    def render_kernels(node, name):
        return f"/* rendered {name} */"

    @staticmethod
    def load_kernels(node, name):
        return f"key-of-{name}"


def test_each_device_has_one_target_and_the_thread_reads_it():
    assert [TARGETS[d].name for d in ("cpu", "cuda", "cuda-interpret")] == ["cpu", "cuda", "cuda-interpret"]
    assert [t.interprets for t in TARGETS.values()] == [False, False, True]
    assert target_for("cuda-interpret").compile_args == ("-DOPKIT_CUDA_INTERPRET",)
    with using_device("cuda-interpret") as target:
        assert target is TARGETS["cuda-interpret"] and current_target() is target
        assert current_device() == "cuda-interpret"
    with opkit.config.change_flags(device="cuda-interpret"):
        assert current_target() is TARGETS["cuda-interpret"]  # no function being made: config.device's
    with pytest.raises(ValueError, match="device='tpu' is not one of"):
        target_for("tpu")


def test_a_function_chooses_its_target_once_and_keeps_it():
    x = ot.dvector("x")
    f = opkit.function([x], to_host(to_gpu(x) * 2), mode=opkit.Mode(device="cuda-interpret"))
    assert f.maker.target is TARGETS["cuda-interpret"] and f.maker.device == "cuda-interpret"
    assert f(np.arange(3.0)).tolist() == [0.0, 2.0, 4.0]
    g = opkit.function([x], x * 2)
    assert g.maker.target is TARGETS[opkit.config.device]


def test_the_backend_carries_the_target_to_every_region_and_generation_reads_only_that():
    """A cuda-interpret function's regions are generated for its target whatever the thread's target is; a region
    holding GPU values and naming no target is an error, never a module for a guessed device."""
    x = ot.dvector("x")
    f = opkit.function([x], to_host(to_gpu(x) * 2) + x, mode=opkit.Mode(device="cuda-interpret"))
    assert f.maker.backend.target is f.maker.target is TARGETS["cuda-interpret"]
    regions = [step for step in partition(f.maker.fgraph, f.maker.backend.target) if isinstance(step, Region)]
    assert regions and all(region.target is TARGETS["cuda-interpret"] for region in regions)
    gpu_region = next(r for r in regions if any(callable(getattr(v.type, "host_type", None))
                                                for n in r.nodes for v in n.outputs))
    made = {}
    for thread in ("cpu", "cuda", "cuda-interpret"):
        with using_device(thread):
            parts = collect_module(gpu_region)
            made[thread] = (parts.compile_args, parts.context["support_code"])
    assert made["cpu"] == made["cuda"] == made["cuda-interpret"]
    assert "-DOPKIT_CUDA_INTERPRET" in made["cpu"][0]  # the target's flags, added with the first GPU value
    host = Region.from_nodes([ot.exp(ot.dvector()).owner], lambda v: True)  # no GPU value: no target needed
    assert "-DOPKIT_CUDA_INTERPRET" not in collect_module(host).compile_args
    gpu_region.target = None
    with pytest.raises(LookupError, match="holds GPU values, and its region names no target: the linker gives "
                                          r"each region the target its backend carries \(opkit.decision"):
        collect_module(gpu_region)
    np.testing.assert_array_equal(f(np.arange(3.0)), np.arange(3.0) * 3)


def test_code_generation_asks_the_target_it_is_given():
    """The Collector's target, not the thread's, says what a GPU node's module holds (node_glue)."""
    node = _gpu_node()
    interpreting, compiling = Target("test-interpret", interprets=True, hooks=lambda: _Hooks), \
        Target("test-cuda", hooks=lambda: _Hooks)
    with using_target(TARGETS["cpu"]):
        support = Collector.apply_texts(node.op, node, "node_3", target=interpreting)[0]
        assert support[-1].endswith("/* rendered node_3 */")
        collected = Collector(target=compiling)
        collected.add_op(node.op, node, "node_4")
        assert 'opkit_kernel_module_key_node_4 = "key-of-node_4"' in collected.support_code_apply[-1]
    host = ot.exp(ot.dvector()).owner  # a CPU node asks nothing: its module's text is unchanged
    assert Collector.apply_texts(host.op, host, "node_0", target=Target("none"))[0] == \
        Collector.apply_texts(host.op, host, "node_0")[0]


def test_the_interpreters_target_renders_the_kernels_into_the_host_module():
    node = _gpu_node()
    support = Collector.apply_texts(node.op, node, "node_0", target=TARGETS["cuda-interpret"])[0][-1]
    assert "run on the CPU by opkit's CUDA interpreter" in support and "APPLY_SPECIFIC(ew)" in support


def test_hook_register_gpu_versions():
    """opkit's own GPU versions come through its built-in plugin's register_gpu_versions hook, as an op package's
    would; placement takes them when a function is first placed on a GPU device. A wrong registration is a
    PluginError naming the plugin."""
    from opkit.plugins.manager import load_plugins
    from opkit.plugins.validate import GpuVersionRegister, PluginRecord

    assert [pair for pair in load_plugins().gpu_versions if pair in GPU_VERSIONS] == list(GPU_VERSIONS)
    ask_plugins()
    versions = registered_gpu_versions()
    assert all(versions[op_class] is make for op_class, make in GPU_VERSIONS)
    register = GpuVersionRegister(PluginRecord("gpu_pkg", "gpu-pkg", "1.0"))
    with pytest.raises(PluginError, match=r"plugin 'gpu_pkg' \(distribution gpu-pkg 1.0\): register_gpu_versions: "
                                          r".*GpuArrayType"):
        register(GpuArrayType, lambda node, inputs: None)
    with pytest.raises(PluginError, match="register_gpu_versions: make_gpu_node .*callable"):
        register(GpuElemwise, 3)
    assert register.registered == []


def test_a_cpu_function_loads_no_gpu_version_no_plugin_and_no_kernel_toolchain():
    code = ("import json, sys, opkit, opkit.tensor as ot\nx = ot.dvector('x')\nopkit.function([x], x * 2)\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('opkit.gpu.ops', 'opkit.plugins', "
            "'opkit.gpu.kernel_hooks', 'opkit.gpu.interpret.refusals', 'opkit.cop.kernels', 'cupy')))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600)
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_no_cop_module_imports_opkit_gpu():
    """cop gives the target's hooks a place (generate/target.py); opkit.gpu fills them: never the other way."""
    found = []
    for path in sorted(COP.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            found += [f"{path.relative_to(COP.parent)}:{node.lineno}" for m in modules if m.startswith("opkit.gpu")]
    assert found == []
