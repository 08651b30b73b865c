"""One row of the tensor language's table: a public function and its whole contract.

The table (opkit.core.tensor.language.rows) is the one place where a function's contract is
written. tests/tensor/test_language_table.py draws inputs from each row and compares opkit's
FAST_RUN, FAST_COMPILE and `op.compute` results with the row's reference; docs/tensor_functions.md
is rendered from it (`python -m opkit.core.tensor.language --markdown`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

ALL_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64")
FLOAT_DTYPES = ("float16", "float32", "float64")
COMPLEX_DTYPES = ("complex64", "complex128")


@dataclass(frozen=True)
class Row:
    """A tensor function's contract.

    - `name`: its name in opkit.tensor (and in pytensor.tensor / theano.tensor where `aliases` adds none).
    - `reference`: the numpy/scipy function that defines its values and result dtype, called with
      numpy arrays in place of the tensors and the same other arguments.
    - `dtype_rule`: one line for the docs (numpy's result dtype for bool, ints, uints, floats, complex).
    - `gradient`: one line: the gradient as PyTensor defines it, or why there is none.
    - `c`: where its C lives (a section file, a template's macro), or "perform: <reference>" when it has none.
    - `family`: "elementwise" (a scalar op of Elemwise, fused with the others), "special",
      "reduction", "product", "shape", "indexing", "sort", "creation", "logic", "gradient".
    - `nin`: the number of tensor inputs (elementwise rows: the scalar op's arity).
    - `dtypes`: the input dtypes the differential test draws.
    - `domain`: (low, high) of the values drawn for elementwise rows (None: the whole range of each dtype,
      special values included).
    - `examples`: for rows that are not elementwise, a function of a numpy random Generator returning a
      list of (args, kwargs) cases: numpy arrays stand for the tensor inputs, other values are passed as is.
    - `differentiable`: verify_grad runs on float64 inputs drawn from `grad_domain` (or the examples).
    - `aliases`: other names of the same function (theano.tensor's or pytensor.tensor's spellings).
    """

    name: str
    reference: Callable
    dtype_rule: str
    gradient: str
    c: str
    family: str = "elementwise"
    nin: int = 1
    dtypes: tuple = ALL_DTYPES
    domain: tuple | None = None
    examples: Callable | None = None
    differentiable: bool = False
    grad_domain: tuple = (-3.0, 3.0)
    aliases: tuple = ()
    notes: str = ""
    extra: dict = field(default_factory=dict, compare=False, hash=False)
