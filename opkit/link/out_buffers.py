"""`f(..., out=buf)`: a compiled function's outputs written into arrays the caller gives.

A graph compiled into one module takes the arrays itself (``runner(*inputs, *outs)``,
see templates/module.cpp.j2): the node computing an output writes into its array when
it has the output's shape, so no output is allocated. Any other runner (several regions,
Python nodes, DebugMode) computes as usual and its result is copied into the array.
Either way the call returns the given arrays in place of fresh ones.
"""

from __future__ import annotations

import numpy as np


def split_out(kwargs, names):
    """Return (out, kwargs without it); an input named ``out`` keeps the keyword (out stays None)."""
    if "out" not in kwargs or "out" in names:
        return None, kwargs
    rest = dict(kwargs)
    return rest.pop("out"), rest


def call_with_out(function, runner, args, out):
    """Run `runner` on `args` writing into `out`; return its result (an output or a list of them)."""
    outputs = function.maker.outputs
    buffers = _buffers(function, outputs, out)
    _check_overlaps(function, buffers, args)
    if getattr(runner, "n_outs", 0) == len(outputs):
        result = runner(*args, *buffers)
    else:
        result = runner(*args)
    values = [result] if len(outputs) == 1 else list(result)
    for position, (value, buffer) in enumerate(zip(values, buffers)):
        if buffer is None or value is buffer:
            continue
        value = np.asarray(value)
        if value.shape != buffer.shape:
            raise ValueError(f"{function._label()}: out[{position}] has shape {buffer.shape}, but output "
                             f"{position} has shape {value.shape} in this call.\nHint: pass an array of shape "
                             f"{value.shape}, or None in its place to get a new array.")
        np.copyto(buffer, value, casting="no")
        values[position] = buffer
    return values[0] if len(outputs) == 1 else values


def _buffers(function, outputs, out):
    """Return one array or None per output, checked against the output types (TypeError/ValueError)."""
    label = function._label()
    if isinstance(out, (tuple, list)):
        buffers = list(out)
        if len(buffers) != len(outputs):
            raise ValueError(f"{label} has {len(outputs)} output(s), but out= gives {len(buffers)} array(s).\n"
                             "Hint: pass one array (or None) per output, in the order of the outputs.")
    elif len(outputs) == 1:
        buffers = [out]
    else:
        arrays = ", ".join(f"array_{k}" for k in range(len(outputs)))
        raise TypeError(f"{label} has {len(outputs)} outputs: pass out=({arrays}), None where a new array "
                        "is wanted.")
    for position, (buffer, variable) in enumerate(zip(buffers, outputs)):
        if buffer is not None:
            _check_buffer(label, position, buffer, variable.type)
    return buffers


def _check_buffer(label, position, buffer, vtype):
    dtype, ndim = getattr(vtype, "dtype", None), getattr(vtype, "ndim", None)
    where = f"{label}: out[{position}]"
    if dtype is None or ndim is None:
        raise TypeError(f"{where}: output {position} is a {vtype}, not an array; pass None in its place.")
    if not isinstance(buffer, np.ndarray):
        raise TypeError(f"{where} is a {type(buffer).__name__}, not a numpy array (output {position} is "
                        f"{vtype}).")
    if buffer.dtype != np.dtype(dtype):
        raise TypeError(f"{where} has dtype {buffer.dtype}, but output {position} is {dtype} ({vtype}).\n"
                        f"Hint: pass an array of dtype {dtype}, e.g. np.empty(shape, dtype={str(dtype)!r}).")
    if buffer.ndim != ndim:
        raise ValueError(f"{where} has {buffer.ndim} dimension(s), but output {position} has {ndim} ({vtype}).")
    if not buffer.flags.c_contiguous:
        raise ValueError(f"{where} is not C-contiguous (strides {buffer.strides}); the output is written "
                         "whole into one contiguous array.\nHint: pass np.empty(shape) or an ascontiguousarray.")
    if not buffer.flags.writeable:
        raise ValueError(f"{where} is read-only.")


def _check_overlaps(function, buffers, args):
    """Refuse an out array that may share memory with an input, a shared value or another out array."""
    given = [(k, b) for k, b in enumerate(buffers) if b is not None]
    if not given:
        return
    read = [(f"input {k}", value) for k, value in enumerate(args)]
    read += [(f"shared variable {v}", cell[0] if cell else None)
             for v, cell in zip(function.maker.plan.shared, function.maker.plan.cells())]
    for position, buffer in given:
        for what, value in read:
            if isinstance(value, np.ndarray) and np.may_share_memory(buffer, value):
                raise ValueError(f"{function._label()}: out[{position}] may share memory with {what}; "
                                 "an output written while inputs are read would change them.\n"
                                 "Hint: pass a separate array.")
        for other, second in given:
            if other > position and np.may_share_memory(buffer, second):
                raise ValueError(f"{function._label()}: out[{position}] and out[{other}] may share memory.\n"
                                 "Hint: pass a separate array for each output.")
