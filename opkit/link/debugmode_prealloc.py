"""Preallocated outputs for DebugMode: what perform or C code may find in its output cells.

``perform`` may reuse ``output_storage[i][0]`` when it holds an array, and C code the
array in its output (a compiled graph keeps an intermediate for the next call); DebugMode's
``check_preallocated_output`` runs it again with each kind of array there (Theano's
names) and checks that the results do not change: garbage of the right shape in
C or Fortran order, a strided view, the wrong size, the previous call's result.
"""

from __future__ import annotations

import numpy as np

PREALLOCATED_KINDS = ("initial", "previous", "c_contiguous", "f_contiguous", "strided", "wrong_size")
"""The kinds `check_preallocated_output` accepts (``"ALL"`` means every one)."""


def preallocated_kinds(spec):
    """Return the kinds named by `spec` (a sequence of names, or a comma-separated string) as a tuple.

    Raise ValueError naming the valid kinds for an unknown one.
    """
    if spec is None:
        return ()
    names = [n.strip() for n in spec.split(",")] if isinstance(spec, str) else list(spec)
    names = [n for n in names if n]
    kinds = []
    for name in names:
        if name == "ALL":
            kinds.extend(k for k in PREALLOCATED_KINDS if k not in kinds)
        elif name in PREALLOCATED_KINDS:
            if name not in kinds:
                kinds.append(name)
        else:
            raise ValueError(f"check_preallocated_output: unknown kind {name!r}; valid: "
                             f"{', '.join(PREALLOCATED_KINDS)} or 'ALL'")
    return tuple(kinds)


def _garbage(shape, dtype, order="C"):
    """Return an array of `shape` filled with a value no correct op leaves in its result by accident."""
    dtype = np.dtype(dtype)
    if dtype.kind in "fc":
        fill = np.nan
    elif dtype.kind in "iu":
        fill = np.iinfo(dtype).max
    elif dtype.kind == "b":
        fill = True
    else:
        return None
    return np.full(shape, fill, dtype=dtype, order=order)


def _strided(shape, dtype):
    base = _garbage(tuple(2 * n for n in shape), dtype)
    if base is None:
        return None
    return base[tuple(slice(None, None, 2) for _ in shape)]


def preallocated_outputs(kind, reference):
    """Return what each output cell holds for `kind`, given the values of a run without preallocation."""
    cells = []
    for value in reference:
        if kind == "initial" or not isinstance(value, np.ndarray):
            cells.append(None)
        elif kind == "previous":
            cells.append(value.copy(order="K"))
        elif kind == "c_contiguous":
            cells.append(_garbage(value.shape, value.dtype, "C"))
        elif kind == "f_contiguous":
            cells.append(_garbage(value.shape, value.dtype, "F"))
        elif kind == "strided":
            cells.append(_strided(value.shape, value.dtype))
        else:  # wrong_size
            cells.append(_garbage(tuple(n + 1 for n in value.shape), value.dtype) if value.ndim else None)
    return cells
