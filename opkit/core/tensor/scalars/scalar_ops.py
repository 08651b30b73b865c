"""The scalar functions behind the elementwise ops: numpy ufunc and C expressions.

C code exists only where it computes exactly what numpy computes, except the
transcendental functions: C calls libm, where numpy runs its own SIMD loops for
some (float32 exp, log, tanh, sin, cos and float64 tanh on AVX2; more on AVX-512),
1 to 3 ulps apart (measured by benchmarks/ulp_table.py, checked by tests/tensor/test_trust3_ulp_bounds.py):

- float16 (numpy rounds to half after every operation) and complex (numpy's own
  algorithms) have no C here: those nodes run ``perform``, i.e. numpy itself.
- Integer add/sub/mul/neg/sqr/pow wrap modulo 2**bits like numpy: they are
  computed in ``npy_uint64`` (signed overflow is undefined behaviour in C) and
  truncated to the result type.
- bool add is logical or, mul logical and, maximum logical or, as in numpy.
"""

from __future__ import annotations

import functools

import numpy as np
from opkit.core.references import load_reference
from opkit.core.type import MethodNotDefined
from opkit.core.c_source import render

C_DTYPES = frozenset(["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                      "float32", "float64"])
"""The dtypes whose elementwise C code matches numpy; others run through perform."""


@functools.lru_cache(maxsize=None)
def has_c_dtype(dtype):
    """Return True if elementwise C code handles `dtype` exactly as numpy does."""
    return str(np.dtype(dtype)) in C_DTYPES


_FIELDS = ("name", "nin", "ufunc", "c_expr", "int_c_expr", "bool_c_expr", "c_kinds", "loop", "weak",
           "uniform_c_expr", "c_macro")
"""ScalarOp's fields in the order its constructor takes them."""


class ScalarOp:
    """One elementwise scalar function.

    `c_macro` names the macro of opkit/templates/scalar_ops.c.j2 that writes
    its C expression (opkit's built-ins). A function made elsewhere may give
    `c_expr` instead: a C++ expression over `{0}`, `{1}`, ... whose operands have
    already been converted to the output's C type (numpy casts inputs to the
    loop dtype the same way); `int_c_expr` and `bool_c_expr` replace it for
    integer and bool outputs. `c_kinds` lists the numpy dtype kinds ('f', 'i',
    'u', 'b') of the outputs the C code is valid for: the others run perform.

    Immutable; two are equal when of the same class with the same `name` and `nin`. (A plain class
    written as the frozen dataclass it was: making a dataclass execs generated code at import, on the
    path of every fresh process.)
    """

    name: str
    nin: int
    ufunc: np.ufunc
    c_expr: str | None
    int_c_expr: str | None
    bool_c_expr: str | None
    c_kinds: str
    loop: object
    weak: object
    uniform_c_expr: str | None
    c_macro: str | None

    def __init__(self, name, nin, ufunc, c_expr=None, int_c_expr=None, bool_c_expr=None, c_kinds="fiub",
                 loop=None, weak=None, uniform_c_expr=None, c_macro=None):
        values = (name, nin, ufunc, c_expr, int_c_expr, bool_c_expr, c_kinds, loop, weak, uniform_c_expr, c_macro)
        for field_name, value in zip(_FIELDS, values):
            object.__setattr__(self, field_name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"a ScalarOp is immutable: cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"a ScalarOp is immutable: cannot delete field {name!r}")

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.name, self.nin) == (other.name, other.nin)

    def __hash__(self):
        return hash((self.name, self.nin))

    def __repr__(self):
        fields_text = ", ".join(f"{name}={getattr(self, name)!r}" for name in _FIELDS)
        return f"{type(self).__qualname__}({fields_text})"

    def weak_operands(self, operands):
        """Return `operands` (dtype names or weak Python numbers) as this function sees them.

        Most functions take them as they are (numpy converts a weak number to the
        loop dtype, or raises). `weak(operands)` overrides that where numpy keeps an
        out-of-range integer's meaning: comparisons, clip.
        """
        return list(operands) if self.weak is None else list(self.weak(list(operands)))

    def operand_dtypes(self, operands, out_dtype):
        """Return the dtype each operand is converted to before the computation (numpy's loop dtypes).

        `operands` are dtype names or weak Python scalars. Most functions compute in
        their output dtype; `loop(operands, out_dtype)` overrides that (comparisons
        compare in the inputs' common dtype, switch tests its condition as it is).
        """
        if self.loop is None:
            return [out_dtype] * self.nin
        return [str(np.dtype(d)) for d in self.loop(operands, out_dtype)]

    def output_dtype(self, operands):
        """Return numpy's result dtype for `operands` (dtype names or weak Python scalars).

        Raises TypeError (with numpy's reason) where numpy refuses the dtypes, and
        OverflowError where numpy refuses a Python int (or would compute on Python objects).
        """
        samples = [np.empty(0, dtype=o) if isinstance(o, str) else o for o in operands]
        described = ", ".join(o if isinstance(o, str) else f"Python {type(o).__name__} {o!r}" for o in operands)
        try:
            with np.errstate(all="ignore"):
                dtype = np.asarray(self.ufunc(*samples)).dtype if self.nin else None
        except TypeError as exc:
            raise TypeError(f"{self.name} is not defined for inputs of dtype {described}, as in numpy: {exc}") from None
        if dtype is not None and dtype.kind not in "biufc":  # numpy's object loop: Python ints beyond 64 bits
            raise OverflowError(f"{self.name} of {described}: numpy computes this on Python objects (an int "
                                f"beyond 64 bits); opkit's tensors hold int64 or uint64 at most")
        return None if dtype is None else str(dtype)

    def has_c(self, out_dtype, operand_dtypes=()):
        """Return True if this function has C code computing numpy's result in `out_dtype`.

        `operand_dtypes` (see operand_dtypes) must have C code too: a float16 comparison does not.
        """
        return ((self.c_macro is not None or self.c_expr is not None)
                and has_c_dtype(out_dtype) and np.dtype(out_dtype).kind in self.c_kinds
                and all(has_c_dtype(d) for d in operand_dtypes))

    def c_values(self, out_dtype, uniform_last=False):
        """Return what scalar_ops.c.j2 needs to write this function's C expression for `out_dtype`.

        A dict: `op` (the c_macro of a built-in) or `c_expr` (the format string of one made
        elsewhere, chosen for the dtype kind), `kind` (numpy's dtype kind of the result) and
        `uniform` (`uniform_last`: the last operand, and for a three-operand function the last two, are
        each one number for the whole loop, scalars by type; numpy's float power has a fast path there,
        and its clip a constant-bounds loop). Raises MethodNotDefined without C code.
        """
        if not self.has_c(out_dtype):
            raise MethodNotDefined("c_code", f"{self.name} has no C code for dtype {out_dtype}")
        kind = np.dtype(out_dtype).kind
        if self.c_macro is not None:
            return {"op": self.c_macro, "kind": kind, "uniform": bool(uniform_last)}
        expr = self.c_expr
        if kind == "b" and self.bool_c_expr is not None:
            expr = self.bool_c_expr
        elif kind in "iu" and self.int_c_expr is not None:
            expr = self.int_c_expr
        elif kind == "f" and uniform_last and self.uniform_c_expr is not None:
            expr = self.uniform_c_expr
        return {"c_expr": expr, "kind": kind, "uniform": bool(uniform_last)}

    def c_expression(self, args, out_dtype, uniform_last=False):
        """Return the C expression for operands `args` (C expressions of type `out_dtype`); see c_values."""
        return render("scalar_ops.c.j2", "expression", args=list(args), **self.c_values(out_dtype, uniform_last))

    def __str__(self):
        return self.name

    def __reduce__(self):
        """Pickle a built-in scalar function by reference (its module and name), any other by its fields.

        Some built-ins hold local functions (a comparison's loop, a cast's conversion)
        that plain pickle cannot send; by reference they need not travel.
        """
        location = builtin_location(self)
        if location is not None:
            return (load_builtin, location)
        return (type(self), tuple(getattr(self, name) for name in _FIELDS))


_builtin_locations: dict = {}  # id(op) -> (module, name); the list below keeps the ops alive
_builtin_ops: list = []


def mark_builtins(namespace):
    """Record the module-level ScalarOps of `namespace` (a built-in module's globals()) as built-ins: they
    pickle by reference. Each module of built-in scalar functions calls it last; the first name of an op wins."""
    module = namespace["__name__"]
    for name, value in list(namespace.items()):
        if isinstance(value, ScalarOp) and id(value) not in _builtin_locations:
            _builtin_locations[id(value)] = (module, name)
            _builtin_ops.append(value)


def builtin_location(op):
    """Return (module, name) of a built-in scalar function, or None for one made elsewhere."""
    return _builtin_locations.get(id(op))


def load_builtin(module, name):
    """Return the built-in scalar function `name` of `module` (what a pickled one refers to)."""
    op = load_reference(module, name)
    if not isinstance(op, ScalarOp):
        raise AttributeError(f"cannot unpickle the scalar function {module}.{name}: that name is now {op!r}")
    return op


# The C expression of each is a macro of opkit/templates/scalar_ops.c.j2 (c_macro): integers wrap
# modulo 2**bits as in numpy (computed in npy_uint64), maximum keeps NaN as numpy's does, integer pow
# raises numpy's ValueError on a negative exponent and float pow takes numpy's fast path for an
# exponent that is one number (stride 0: a Python number, a 0-d array) of -1, 0, 0.5, 1 or 2.
add = ScalarOp("add", 2, np.add, c_macro="add")
sub = ScalarOp("sub", 2, np.subtract, c_kinds="fiu", c_macro="sub")
mul = ScalarOp("mul", 2, np.multiply, c_macro="mul")
true_div = ScalarOp("true_div", 2, np.true_divide, c_kinds="f", c_macro="true_div")
neg = ScalarOp("neg", 1, np.negative, c_kinds="fiu", c_macro="neg")
exp = ScalarOp("exp", 1, np.exp, c_kinds="f", c_macro="exp")
log = ScalarOp("log", 1, np.log, c_kinds="f", c_macro="log")
sqr = ScalarOp("sqr", 1, np.square, c_kinds="fiu", c_macro="sqr")
sqrt = ScalarOp("sqrt", 1, np.sqrt, c_kinds="f", c_macro="sqrt")
maximum = ScalarOp("maximum", 2, np.maximum, c_macro="maximum")
pow = ScalarOp("pow", 2, np.power, c_kinds="fiu", c_macro="pow")


def program_operand_dtypes(program, input_dtypes):
    """Return, for each step (scalar_op, refs, out_dtype) of a program, the dtypes its operands compute in.

    A ref below len(input_dtypes) names an input, the others earlier steps (see fusion).
    """
    dtypes = [str(np.dtype(d)) for d in input_dtypes]
    result = []
    for scalar_op, refs, out_dtype in program:
        result.append(scalar_op.operand_dtypes([dtypes[r] for r in refs], out_dtype))
        dtypes.append(out_dtype)
    return result


ALL = {op.name: op for op in (add, sub, mul, true_div, neg, exp, log, sqr, sqrt, maximum, pow)}

mark_builtins(globals())
