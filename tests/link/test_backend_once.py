"""The backend and the device are decided once, by opkit.decision.decide at the entry that makes a callable, and
passed down; under "shipped" no code path asks for a compiler (issue 46).

- The static check reads opkit/link and opkit/cop (ast): no module there decides (none defines or calls
  `decide_backend`, no module of link probes `find_compiler`); `decide`, which lives outside both, is called only at the
  entries listed in ENTRIES; no function of link takes a `backend` it could default and decide again; no
  module of cop reads a device from the thread or from config (code generation reads the region's target).
- The run check ships a real module (`opkit build --into`, tests/helpers/shipped.py), then, in a process
  without a compiler, replaces `find_compiler` by a spy: the shipped module loads and gives numpy's
  numbers, a signature nobody ships says what is missing, and the spy saw no call but the one decision's.
"""

import ast
import pathlib
import subprocess
import sys
import textwrap

from conftest import ROOT
from helpers.shipped import make_package

# The entries that make a callable from a graph, each asking opkit.decision.decide once for what it makes.
ENTRIES = {
    ("opkit/link/function.py", "FunctionMaker.__init__"),  # opkit.function: one decision per function
    ("opkit/link/theano_linkers.py", "Linker.accept"),  # Theano's CLinker().accept(fgraph).make_thunk()
    ("opkit/link/node_runner.py", "_preallocated_runner"),  # the bridges' node module, called with no function
    ("opkit/link/entry.py", "c_thunk"),  # Op.make_thunk (Theano's protocol), outside any function
}


def _calls(path, name):
    """Return the qualified names of the functions of `path` that call `name` (a plain or dotted call)."""
    found = []

    def visit(node, scope):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, scope + [child.name])
                continue
            if isinstance(child, ast.Call):
                func = child.func
                called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if called == name:
                    found.append(".".join(scope) or "<module>")
            visit(child, scope)

    visit(ast.parse(path.read_text(encoding="utf-8")), [])
    return found


def _sources():
    for package in ("opkit/link", "opkit/cop"):
        yield from sorted((ROOT / package).rglob("*.py"))


def _names(path, names):
    """Return 'path:line name' for each use (a name, an attribute, a definition) of `names` in `path`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        name = getattr(node, "id", None) or getattr(node, "attr", None) or \
            (node.name if isinstance(node, (ast.FunctionDef, ast.alias)) else None)
        if name in names:
            found.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')} {name}")
    return found


def test_no_module_of_link_or_cop_decides_the_backend_or_the_device():
    deciding = [use for path in _sources() for use in _names(path, {"decide_backend"})]
    deciding += [use for path in sorted((ROOT / "opkit/link").rglob("*.py")) for use in _names(path, {"find_compiler"})]
    assert deciding == []  # (cop's build side locates the compiler it builds with: the spy below shows it unused)
    assert _names(ROOT / "opkit/decision.py", {"decide"}), "the one decision lives in opkit/decision.py"
    calls = {(str(path.relative_to(ROOT)), scope) for path in _sources() for scope in _calls(path, "decide")}
    assert calls == ENTRIES, f"decide called outside the entries: {sorted(calls - ENTRIES)}"
    cop = [use for path in sorted((ROOT / "opkit/cop").rglob("*.py")) for use in _names(path, {"decide", "Backend"})]
    assert cop == []  # cop does not know the backend: link chooses its door (load_region or build_region)


def test_code_generation_reads_no_device_of_the_thread_or_of_config():
    """Generate is given the target (Region.target); the thread's target is the graph's and the run's."""
    generate = sorted((ROOT / "opkit/cop").rglob("*.py"))
    ambient = [use for path in generate for use in _names(path, {"current_target", "using_target", "set_target",
                                                                 "current_device", "interpreting"})
               if not use.startswith("opkit/cop/generate/target.py")]  # where the thread's target is kept
    assert ambient == []
    reads = [f"{path.relative_to(ROOT)}:{node.lineno}" for path in generate
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Attribute) and node.attr == "device"
             and isinstance(node.value, ast.Name) and node.value.id == "config"
             and not str(path).endswith("generate/target.py")]
    assert reads == []


def test_no_function_of_link_defaults_its_backend():
    defaulted = []
    for path in sorted((ROOT / "opkit/link").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                arguments = node.args
                positional = arguments.posonlyargs + arguments.args
                with_default = positional[len(positional) - len(arguments.defaults):] if arguments.defaults else []
                with_default += [a for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None]
                if any(a.arg == "backend" for a in with_default):
                    defaulted.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert defaulted == []  # a default would be decided again below the entry


SPY = textwrap.dedent("""
    import sys
    import traceback

    import numpy as np

    import opkit
    import opkit.tensor as ot
    from opkit.cop.toolchain import compiler
    from opkit.link.backend import SHIPPED

    real, calls = compiler.find_compiler, []

    def spy():
        caller = sys._getframe(1)
        if caller.f_code.co_name == "decide" and caller.f_globals["__name__"] == "opkit.decision":
            return real()  # the one decision probes for a compiler (config.cxx names none: it raises)
        calls.append("".join(traceback.format_stack(limit=12)))
        raise RuntimeError("find_compiler called under the shipped backend")

    for module in list(sys.modules.values()):  # the modules that bound the name; later imports get the spy
        if module is not None and module.__name__.startswith("opkit") and getattr(module, "find_compiler", None) is real:
            module.find_compiler = spy

    op = opkit.ops.vector_times_vector
    a, b = np.arange(5.0), np.linspace(0, 1, 5)
    np.testing.assert_array_equal(op.compute(a, b), a * b)
    x, y = ot.dvector("x"), ot.dvector("y")
    for mode in ("FAST_RUN", opkit.Mode(linker="cop")):
        f = opkit.function([x, y], op(x, y), mode=mode)
        assert f.maker.backend.kind == SHIPPED, f.maker.backend
        np.testing.assert_array_equal(f(a, b), a * b)
    try:
        op.compute(np.arange(3, dtype="int16"), np.arange(3, dtype="int16"))
    except opkit.MissingModuleError as exc:
        print("missing:", exc.signature)
    print("find_compiler calls:", len(calls))
    print("\\n".join(calls))
""")


def test_under_the_shipped_backend_no_code_path_asks_for_a_compiler(tmp_path):
    _, env = make_package(tmp_path)  # a real module, built by `opkit build --into`
    result = subprocess.run([sys.executable, "-c", SPY], env=dict(env, OPKIT_FLAGS="cxx=/nonexistent/bin/c++"),
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr + result.stdout
    lines = result.stdout.splitlines()
    assert "missing: TensorType(int16, vector), TensorType(int16, vector)" in lines, result.stdout
    assert "find_compiler calls: 0" in lines, result.stdout
