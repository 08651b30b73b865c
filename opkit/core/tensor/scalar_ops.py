"""The scalar functions behind the elementwise ops: numpy ufunc and C expression."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class ScalarOp:
    """One elementwise scalar function.

    `c_expr` is a C++ expression over `{0}`, `{1}`, ... whose operands have
    already been converted to the output's C type (numpy casts inputs to the
    loop dtype the same way).
    """

    name: str
    nin: int
    ufunc: np.ufunc = field(compare=False)
    c_expr: str = field(compare=False)
    int_c_expr: str | None = field(default=None, compare=False)

    def output_dtype(self, operands):
        """Return numpy's result dtype for `operands` (dtype names or weak Python scalars)."""
        samples = [np.empty(0, dtype=o) if isinstance(o, str) else o for o in operands]
        with np.errstate(all="ignore"):
            return str(self.ufunc(*samples).dtype) if self.nin else None

    def c_expression(self, args, out_dtype):
        expr = self.c_expr
        if self.int_c_expr is not None and np.dtype(out_dtype).kind in "iub":
            expr = self.int_c_expr
        return "(" + expr.format(*args) + ")"

    def __str__(self):
        return self.name


add = ScalarOp("add", 2, np.add, "{0} + {1}")
sub = ScalarOp("sub", 2, np.subtract, "{0} - {1}")
mul = ScalarOp("mul", 2, np.multiply, "{0} * {1}")
true_div = ScalarOp("true_div", 2, np.true_divide, "{0} / {1}")
neg = ScalarOp("neg", 1, np.negative, "-{0}")
exp = ScalarOp("exp", 1, np.exp, "std::exp({0})")
log = ScalarOp("log", 1, np.log, "std::log({0})")
sqr = ScalarOp("sqr", 1, np.square, "{0} * {0}")
sqrt = ScalarOp("sqrt", 1, np.sqrt, "std::sqrt({0})")
maximum = ScalarOp("maximum", 2, np.maximum, "(({0} >= {1} || {0} != {0}) ? {0} : {1})",
                   int_c_expr="(({0} >= {1}) ? {0} : {1})")
pow = ScalarOp("pow", 2, np.power, "std::pow({0}, {1})", int_c_expr="opkit_ipow({0}, {1})")

ALL = {op.name: op for op in (add, sub, mul, true_div, neg, exp, log, sqr, sqrt, maximum, pow)}
