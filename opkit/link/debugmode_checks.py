"""DebugMode's checks as pure functions: each returns None or a Problem saying what went wrong.

They compare values (perform against C, an input before and after a call), look
for outputs that share memory with inputs, and watch reference counts and
traced memory over repeated calls of one thunk.
"""

from __future__ import annotations

import array
import copy
import sys
import tracemalloc
from dataclasses import dataclass, field

import numpy as np

_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, tuple, frozenset, np.generic)


@dataclass
class Problem:
    """What a check found: its kind, one line per fact, and the facts as a dict."""

    kind: str
    summary: str
    lines: list = field(default_factory=list)
    details: dict = field(default_factory=dict)


def copy_value(value):
    """Return a private copy of a value, keeping an array's dtype and memory layout."""
    if isinstance(value, np.ndarray):
        return value.copy(order="K")
    return copy.deepcopy(value)


def on_host(value):
    """Return a GPU array (a CuPy array: __cuda_array_interface__ and .get()) as a numpy array, to compare it;
    any other value as it is."""
    if hasattr(value, "__cuda_array_interface__") and callable(getattr(value, "get", None)):
        return value.get()
    return value


def _values_identical(before, after):
    """Return True if two values are exactly equal (NaN equal to NaN, a numpy scalar's too; GPU arrays on the host)."""
    before, after = on_host(before), on_host(after)
    if isinstance(before, (np.ndarray, np.generic)) or isinstance(after, (np.ndarray, np.generic)):
        before, after = np.asarray(before), np.asarray(after)
        if before.shape != after.shape or before.dtype != after.dtype:
            return False
        try:
            return bool(np.array_equal(before, after, equal_nan=True))
        except TypeError:  # equal_nan needs a numeric dtype
            return bool(np.array_equal(before, after))
    try:
        return bool(before == after)
    except Exception:  # an uncomparable value: only identity counts as unchanged
        return before is after


def first_difference(a, b, equal):
    """Return the first flat-order index where `equal(a_prefix, b_prefix)` fails, or None.

    `equal` judges whole arrays (a type's values_eq_approx); failing on a prefix
    is monotonic in its length, so a bisection finds the first bad element with
    the type's own tolerance.
    """
    flat_a, flat_b = np.asarray(a).ravel(), np.asarray(b).ravel()
    if flat_a.size == 0 or equal(flat_a, flat_b):
        return None
    low, high = 0, flat_a.size - 1  # the prefix [0, high] is known to differ
    while low < high:
        middle = (low + high) // 2
        if equal(flat_a[:middle + 1], flat_b[:middle + 1]):
            low = middle + 1
        else:
            high = middle
    return np.unravel_index(low, np.asarray(a).shape)


def _position_line(index, a, b, keys, labels):
    """Describe the values at `index`: both values, absolute and relative difference."""
    va, vb = np.asarray(a)[index], np.asarray(b)[index]
    text = f"{labels[0]}={va.item()!r}, {labels[1]}={vb.item()!r}"
    details = {"index": tuple(int(i) for i in index), keys[0]: va.item(), keys[1]: vb.item()}
    if np.asarray(va).dtype.kind in "biufc" and np.asarray(vb).dtype.kind in "biufc":
        with np.errstate(all="ignore"):
            abs_diff = abs(complex(va) - complex(vb))
            scale = max(abs(complex(va)), abs(complex(vb)))
            rel_diff = abs_diff / scale if scale else float("inf") if abs_diff else 0.0
        text += f", abs diff={abs_diff:.6g}, rel diff={rel_diff:.6g}"
        details.update(abs_diff=abs_diff, rel_diff=rel_diff)
    return f"at index {details['index']}: {text}", details


def compare_outputs(outputs, perform_values, c_values, perform_label="perform", other=("C code", "C")):
    """Return a 'mismatch' Problem for the first output where perform and C disagree.

    `other` names what perform is compared with: a phrase and a short label
    (perform with preallocated outputs is compared with perform the same way).
    """
    for position, (variable, expected, got) in enumerate(zip(outputs, perform_values, c_values)):
        problem = _compare_one(position, variable, expected, got, perform_label, other)
        if problem is not None:
            return problem
    return None


def _compare_one(position, variable, expected, got, label, other=("C code", "C")):
    head = f"{label} and {other[0]} disagree on output {position} ({variable}, {variable.type})"
    details = {"output": position}
    if isinstance(expected, np.ndarray) and isinstance(got, np.ndarray):
        if expected.shape != got.shape or expected.dtype != got.dtype:
            line = (f"{label} gave shape {expected.shape}, dtype {expected.dtype}; "
                    f"{other[1]} gave shape {got.shape}, dtype {got.dtype}")
            details.update(perform_shape=expected.shape, c_shape=got.shape,
                           perform_dtype=str(expected.dtype), c_dtype=str(got.dtype))
            return Problem("mismatch", head, [line], details)
    equal = _equality(variable)
    if equal(expected, got):
        return None
    expected, got = on_host(expected), on_host(got)  # a GPU array's first mismatch is found on the host
    if not (isinstance(expected, np.ndarray) and isinstance(got, np.ndarray)):
        details.update(perform=expected, c=got)
        return Problem("mismatch", head, [f"{label}={expected!r:.200}", f"{other[1]}={got!r:.200}"], details)
    index = first_difference(expected, got, equal) or (0,) * expected.ndim
    text, found = _position_line(index, expected, got, ("perform", "c"), (label, other[1]))
    details.update(found, shape=expected.shape, dtype=str(expected.dtype))
    lines = [f"First mismatch {text}", f"Output shape {expected.shape}, dtype {expected.dtype}"]
    return Problem("mismatch", head, lines, details)


def _equality(variable):
    """Return the comparison for an output: its type's, at float32 tolerance if any input is float32.

    A float32 input may go through float32 maths (exp, log...) whose last bits differ between
    numpy and the C++ library, even when the output is float64.
    """
    node = variable.owner
    low = node is not None and any(str(getattr(v.type, "dtype", "")) in ("float32", "float16")
                                   for v in node.inputs)
    if low and hasattr(variable.type, "numpy_dtype"):
        return lambda a, b: variable.type.values_eq_approx(a, b, rtol=1e-4, atol=1e-5)
    return variable.type.values_eq_approx


def check_inputs_unchanged(node, implementation, given, originals):
    """Return an 'input_modified' Problem if an input changed that destroy_map does not allow."""
    destroyed = {i for inputs in (node.op.destroy_map or {}).values() for i in inputs}
    for position, (variable, before, after) in enumerate(zip(node.inputs, originals, given)):
        if position in destroyed or _values_identical(before, after):
            continue
        head = f"{implementation} modified input {position} ({variable}) in place, and the op has no destroy_map"
        details = {"input": position, "implementation": implementation}
        lines = []
        if isinstance(before, np.ndarray) and isinstance(after, np.ndarray) and before.shape == after.shape:
            index = first_difference(before, after, _values_identical)
            if index is not None:
                text, found = _position_line(index, before, after, ("before", "after"), ("before", "after"))
                lines.append(f"First change {text}")
                details.update(found)
        lines.append(f"Hint: copy the input before writing to it, or declare destroy_map = {{0: [{position}]}}")
        return Problem("input_modified", head, lines, details)
    return None


def _shares(output, value):
    if isinstance(output, np.ndarray) and isinstance(value, np.ndarray):
        return np.may_share_memory(output, value) and np.shares_memory(output, value)
    return output is value and not isinstance(value, _IMMUTABLE)


def check_outputs_do_not_alias(node, implementation, given, results):
    """Return an 'output_aliases_input' Problem for an output sharing memory with an input."""
    view_map, destroy_map = node.op.view_map or {}, node.op.destroy_map or {}
    for out_position, output in enumerate(results):
        allowed = set(view_map.get(out_position, ())) | set(destroy_map.get(out_position, ()))
        for in_position, value in enumerate(given):
            if in_position in allowed or not _shares(output, value):
                continue
            if any(node.inputs[in_position] is node.inputs[a] for a in allowed if a < len(node.inputs)):
                continue  # the same variable is also a declared input: Op(x, x) viewing input 0
            head = (f"output {out_position} of {implementation} aliases input {in_position} "
                    f"({node.inputs[in_position]}), and the op's view_map does not say so")
            hint = (f"Hint: return a copy, or declare view_map = {{{out_position}: [{in_position}]}} "
                    "(destroy_map if the input is overwritten)")
            return Problem("output_aliases_input", head, [hint],
                           {"output": out_position, "input": in_position, "implementation": implementation})
    return None


def check_output_values_valid(node, implementation, results):
    """Return an 'invalid_value' Problem for an output value its type does not accept as is."""
    for position, (variable, value) in enumerate(zip(node.outputs, results)):
        if variable.type.is_valid_value(value):
            continue
        try:
            variable.type.filter(value, strict=True)
            reason = "its type does not accept it"
        except (TypeError, ValueError) as exc:
            reason = str(exc).splitlines()[0]
        head = f"{implementation} returned an invalid value for output {position} ({variable}, {variable.type})"
        hint = "Hint: the value must be exactly of the output's type (dtype, number of dimensions, static shape)"
        return Problem("invalid_value", head, [reason, hint],
                       {"output": position, "implementation": implementation, "value": value})
    return None


def check_outputs_do_not_alias_each_other(node, implementation, results, used=None):
    """Return an 'outputs_alias' Problem for two outputs sharing memory, unless both view one input.

    `used` (default: all) flags the outputs later nodes of the graph read. Two outputs may share
    memory when one of them is read by no later node (a function's output, or one left unused, can
    never be overwritten through the other): Theano's and PyTensor's rule.
    """
    view_map, destroy_map = node.op.view_map or {}, node.op.destroy_map or {}
    used = [True] * len(results) if used is None else used

    def sources(position):
        return set(view_map.get(position, ())) | set(destroy_map.get(position, ()))

    for first, value in enumerate(results):
        for second in range(first + 1, len(results)):
            if not (used[first] and used[second]):
                continue
            if not _shares(value, results[second]) or sources(first) & sources(second):
                continue
            head = (f"outputs {first} and {second} of {implementation} share memory, and the op's view_map "
                    "does not say they view the same input")
            hint = "Hint: give each output its own memory (a copy), or declare in view_map the input both view"
            return Problem("outputs_alias", head, [hint],
                           {"outputs": (first, second), "implementation": implementation})
    return None


def _grows_every_call(samples):
    return all(later > earlier for earlier, later in zip(samples, samples[1:]))


def check_repeated_calls(node, implementation, run, clear, scratch, repeats, compiled):
    """Run `run(scratch)` 1 + `repeats` times; return a 'reference_leak' Problem if references pile up.

    After a warm-up call, each call must leave the inputs' reference counts and
    (for `compiled` C code) the traced memory where the previous one left them:
    an op that keeps one extra reference per call grows them on every call.
    """
    references = [array.array("q", bytes(8 * (repeats + 1))) for _ in scratch]
    memory = array.array("q", bytes(8 * (repeats + 1)))
    started = compiled and not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        for call in range(repeats + 1):
            run(scratch)
            clear()
            # Samples go into preallocated arrays: storing them allocates nothing traced.
            for position, value in enumerate(scratch):
                references[position][call] = sys.getrefcount(value)
            if compiled:
                memory[call] = tracemalloc.get_traced_memory()[0]
    finally:
        if started:
            tracemalloc.stop()
    for position, samples in enumerate(references):
        if _grows_every_call(samples):
            head = (f"{implementation} keeps a reference to input {position} ({node.inputs[position]}) "
                    "on every call")
            line = f"Reference counts over {repeats + 1} calls: {list(samples)}"
            hint = ("Hint: every Py_INCREF needs a matching Py_DECREF (or a stolen reference)" if compiled
                    else "Hint: perform stores its input somewhere (a list, a dict, an attribute) on every call")
            return Problem("reference_leak", head, [line, hint],
                           {"input": position, "implementation": implementation,
                            "refcounts": list(samples)})
    if compiled and _grows_every_call(memory):
        growth = (memory[-1] - memory[0]) // repeats
        head = f"{implementation} leaks about {growth} bytes of traced memory per call"
        line = f"Traced memory over {repeats + 1} calls: {list(memory)}"
        hint = "Hint: an output or temporary keeps an extra reference (Py_INCREF without Py_DECREF)"
        return Problem("reference_leak", head, [line, hint],
                       {"implementation": implementation, "bytes_per_call": growth, "memory": list(memory)})
    return None
