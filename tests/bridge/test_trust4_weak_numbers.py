"""Python numbers passed to a bridged op are weak, as opkit's own ops take them (Trust 4, item 8).

``as_jax_op(mul)(float32_array, 2.0)`` is float32 as JAX's ``x * 2.0``, numpy and
``mul.compute(x, 2.0)`` are, with jax_enable_x64 on or off (a global flag: each
setting runs in its own process), eagerly, under ``jit`` with the number closed over,
and under ``jit`` with the number traced (JAX's weak-typed value); an int32 array times
2 stays int32. The torch bridge takes Python numbers by the same rules. Where opkit's
rules refuse a number (``int8 * 1000``), both bridges raise opkit's OverflowError,
naming the op and the call.
"""

import json
import subprocess
import sys

import pytest

pytest.importorskip("jax", reason="the JAX bridge needs JAX")
pytest.importorskip("torch", reason="the torch bridge needs torch")

# (op, array dtype, Python number) whose result JAX's own operator defines by the same weak rules.
SAME_KIND = [(op, dtype, number) for op in ("mul", "maximum", "lt")
             for dtype, number in (("float32", 2.0), ("float32", 2), ("float32", True), ("float16", 2.0),
                                   ("int32", 2), ("int32", True), ("int8", 5), ("uint8", 3), ("bool", True))]
# numbers of another kind than the array: opkit's (numpy's) rules, compared with op.compute only (x64 on).
OTHER_KIND = [("mul", "int32", 2.5), ("add", "int8", 2.5), ("lt", "int8", 1000), ("mul", "bool", 2)]

PROGRAM = r"""
import json, sys
import jax
jax.config.update("jax_enable_x64", X64)
import jax.numpy as jnp
import numpy as np
import torch
import opkit.tensor as ot
from opkit.bridge.jax import as_jax_op
from opkit.bridge.torch import as_torch_op

OPS = {"mul": (ot.mul, lambda a, b: a * b), "add": (ot.add, lambda a, b: a + b), "sub": (ot.sub, lambda a, b: a - b),
       "maximum": (ot.maximum, jnp.maximum), "lt": (ot.lt, lambda a, b: a < b)}


def outcome(call):
    try:
        return str(np.dtype(call().dtype)).replace("torch.", "")
    except Exception as exc:
        return "raises " + type(exc).__name__ + ": " + str(exc)


def torch_dtype(t):
    return str(t.dtype).replace("torch.", "")


results = []
for name, dtype, number in json.loads(sys.argv[1]):
    build, jax_own = OPS[name]
    op = build(ot.dvector(), ot.dvector()).owner.op
    values = np.array([1, 0, 1], dtype=dtype)
    x = jnp.asarray(values)
    bridged = as_jax_op(op)
    row = {
        "compute": outcome(lambda: op.compute(values, number)),
        "eager": outcome(lambda: bridged(x, number)),
        "jit": outcome(lambda: jax.jit(lambda a: bridged(a, number))(x)),
        "jit_traced": outcome(lambda: jax.jit(bridged)(x, number)),
        "jax_own": outcome(lambda: jax_own(x, number)),
        "torch": outcome(lambda: np.empty(0, torch_dtype(as_torch_op(op, n_inputs=2)(torch.from_numpy(values),
                                                                                         number)))),
    }
    results.append(row)
print(json.dumps(results))
"""


def _kind(outcome):
    """A dtype, or 'raises <exception class>' (the bridges add the op and the call to opkit's message)."""
    return outcome.split(":")[0]


def _run(cases, x64):
    code = PROGRAM.replace("X64", str(x64))
    result = subprocess.run([sys.executable, "-c", code, json.dumps(cases)], capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("x64", [True, False])
def test_python_numbers_keep_the_arrays_dtype_as_jax_and_opkit_do(x64):
    for (name, dtype, number), row in zip(SAME_KIND, _run(SAME_KIND, x64)):
        what = f"{name}({dtype} array, {number!r}) with x64 {'on' if x64 else 'off'}: {row}"
        assert _kind(row["compute"]) == _kind(row["jax_own"]), what  # the rules agree here: the test's premise
        for path in ("eager", "jit", "jit_traced", "torch"):
            assert _kind(row[path]) == _kind(row["compute"]), f"{path} differs: {what}"


def test_numbers_of_another_kind_follow_opkits_rules_in_both_bridges():
    for (name, dtype, number), row in zip(OTHER_KIND, _run(OTHER_KIND, True)):
        what = f"{name}({dtype} array, {number!r}): {row}"
        assert not row["compute"].startswith("raises"), what
        for path in ("eager", "jit", "torch"):
            assert row[path] == row["compute"], f"{path} differs: {what}"


def test_a_number_opkit_refuses_is_refused_naming_the_op_and_the_call():
    (row,) = _run([("mul", "int8", 1000)], True)
    assert row["compute"].startswith("raises OverflowError"), row
    for path, call in (("eager", "as_jax_op(mul)"), ("jit", "as_jax_op(mul)"), ("torch", "as_torch_op(mul)")):
        assert row[path].startswith("raises OverflowError"), (path, row)
        assert f"{call} called on (int8 of rank 1, Python int 1000)" in row[path], (path, row)
        assert "out of bounds for int8" in row[path], (path, row)


def test_torch_takes_python_numbers_eagerly_through_autograd_and_under_compile():
    torch = pytest.importorskip("torch")
    import numpy as np

    import opkit.tensor as ot
    from opkit.bridge.torch import as_torch_op

    mul = as_torch_op(ot.mul(ot.dvector(), ot.dvector()).owner.op, n_inputs=2)
    x = torch.arange(3, dtype=torch.float32, requires_grad=True)
    y = mul(x, 2.5)
    assert y.dtype == torch.float32 and torch.equal(y, x.detach() * 2.5)
    y.sum().backward()
    assert torch.equal(x.grad, torch.full((3,), 2.5))
    compiled = torch.compile(lambda a: mul(a, 3), fullgraph=True)
    ints = torch.arange(4, dtype=torch.int32)
    result = compiled(ints)
    assert result.dtype == torch.int32 and result.tolist() == [0, 3, 6, 9]
    np.testing.assert_array_equal(torch.compile(lambda a: mul(a, 0.5))(x.detach()).numpy(),
                                  np.arange(3, dtype=np.float32) * np.float32(0.5))
