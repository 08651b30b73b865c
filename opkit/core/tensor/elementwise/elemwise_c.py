"""C code for Elemwise nodes: broadcast, reuse or allocate the output, then one loop.

The C is written by macros of opkit/templates/elemwise.c.j2 (the node, each step)
and opkit/templates/scalar_ops.c.j2 (each scalar function's expression); the fixed
helpers they call are the support code of elemwise.c. This module decides what
goes in: names, ranks, C types, which inputs are scalars, the program's steps.
"""

from __future__ import annotations

from opkit.core.c_source import render
from opkit.core.tensor.types.c_interface import c_dtype, c_typenum
from opkit.core.tensor.scalars.scalar_ops import program_operand_dtypes
from opkit.core.tensor.scalars.user_scalar import is_user_scalar_op

TEMPLATE = "elemwise.c.j2"
STEP_MARK = "@@opkit-step@@"  # the program macro's STEP_MARK


# The built-in functions that pick numpy's loop by whether operands are one number at run time (a zero
# stride): clip (its two loops are a few compares each) and float power (a call of pow per element
# either way: the loop-invariant choice is a predicted branch).
RUN_TIME_UNIFORM = frozenset(["clip", "pow"])


def program_statements(program, input_dtypes, scalar_inputs=(), name="opkit", one=None):
    """Return the C statements of each step of `program` (one string per step) computing t0, t1, ...

    `program` is a sequence of (scalar_op, refs, out_dtype); a ref below
    len(input_dtypes) names input value v<ref>, others the step t<ref - n_inputs>.
    Each step casts its operands to its loop dtypes first (usually its own
    dtype), as numpy does, and rounds its result to its dtype (a `const` of that
    C type), as numpy does after every operation. Raises MethodNotDefined for a
    step without C code. `scalar_inputs` flags the inputs that are scalars by
    type: a step computed from those alone is one number too, which numpy's
    float power treats apart (see scalar_ops.pow, _uniform_tail). `one` tells,
    per input, whether numpy's loop sees it as one number (True, or a C condition
    known at run time, see elemwise_c_code): the functions in RUN_TIME_UNIFORM
    (clip, pow) choose their loop by it, as numpy's do.
    """
    n_inputs = len(input_dtypes)
    uniform = [bool(f) for f in scalar_inputs] + [False] * (n_inputs - len(scalar_inputs))
    one = list(uniform) if one is None else list(one)
    steps = []
    operand_dtypes = program_operand_dtypes(program, input_dtypes)
    for (scalar_op, refs, out_dtype), loop in zip(program, operand_dtypes):
        if is_user_scalar_op(scalar_op):  # statement-style c_code of a user's op, on its operands' names
            names = [f"v{r}" if r < n_inputs else f"t{r - n_inputs}" for r in refs]
            code = scalar_op.c_step(loop, out_dtype, names, f"t{len(steps)}", scalar_step_name(name, len(steps)))
            steps.append({"ctype": c_dtype(out_dtype), "statements": code})
            uniform.append(all(uniform[r] for r in refs))
            one.append(_all_uniform([one[r] for r in refs]))
            continue
        operands = [(c_dtype(d), f"v{r}" if r < n_inputs else f"t{r - n_inputs}") for r, d in zip(refs, loop)]
        if scalar_op.c_macro in RUN_TIME_UNIFORM:
            tail = _beside_first(one[refs[0]], _uniform_tail(refs, one))
        else:
            tail = _uniform_tail(refs, uniform)
        scalar = scalar_op.c_values(out_dtype, uniform_last=tail is True)
        step = {"ctype": c_dtype(out_dtype), "operands": operands, "scalar": scalar}
        if isinstance(tail, str):  # known at run time: both expressions where they differ
            when = scalar_op.c_values(out_dtype, uniform_last=True)
            if when != scalar:
                step.update(uniform_when=tail, uniform_scalar=when)
        steps.append(step)
        uniform.append(all(uniform[r] for r in refs))
        one.append(_all_uniform([one[r] for r in refs]))
    if not steps:
        return []
    pieces = render(TEMPLATE, "program", steps=steps).split(STEP_MARK)[1:]
    return [piece.strip("\n") for piece in pieces]  # one per step (see the template's STEP_MARK)


def _uniform_tail(refs, uniform):
    """True when the operands numpy's loops treat apart are each one number for the whole loop.

    That is the last operand (power's exponent), and for a three-operand function the last two
    (clip's bounds: numpy's constant-bounds loop keeps x on a tie, see scalar_math.c).
    """
    tail = refs[1:] if len(refs) == 3 else refs[-1:]
    return _all_uniform([uniform[r] for r in tail]) if tail else False


def _beside_first(first, tail):
    """Whether numpy's loop sees the tail as one number beside a first operand whose flag is `first`.

    0-d operands always are. An operand of one element broadcast to the node's output is only where
    the function's own result is longer: not beside a first operand of one element too (in numpy, a
    step of a fused program is a call of its own, on its own operands' broadcast shape).
    """
    if not isinstance(tail, str) or first is False:
        return tail
    return False if first is True else f"{tail} && !({first})"


def _all_uniform(flags):
    """True, False or a C condition: whether every one of `flags` (each of those three) holds."""
    if any(f is False for f in flags):
        return False
    conditions = sorted({f for f in flags if isinstance(f, str)})
    return " && ".join(conditions) if conditions else True


def scalar_step_name(name, k):
    """The `name` a user scalar op's C methods get for step `k` of node `name` (c_code, c_support_code_apply)."""
    return f"{name}_scalar{k}"


def elemwise_c_code(node, name, inputs, outputs, sub, program):
    """Return the C code of an elementwise node computing `program` (see program_statements)."""
    out, = outputs
    out_var = node.outputs[0]
    # Inputs that are scalars by type (constants, 0-d, all lengths 1) are read once, before the loop.
    scalar = [all(s == 1 for s in v.type.shape) for v in node.inputs]
    # One number for the whole loop as numpy's loops see it (a zero stride): a 0-d input always, any other
    # when it has one element broadcast to a longer output (opkit_one<k>, set by the node at run time).
    one = [True if v.type.ndim == 0 else f"opkit_one{k}" for k, v in enumerate(node.inputs)]
    return render(TEMPLATE, "node", inputs=list(inputs), out=out, in_types=[c_dtype(v.dtype) for v in node.inputs],
                  out_type=c_dtype(out_var.dtype), nd=out_var.ndim, typenum=c_typenum(out_var.dtype), scalar=scalar,
                  one=[flag is not True for flag in one],
                  steps=program_statements(program, [v.dtype for v in node.inputs], scalar, name, one),
                  what=f"the inputs of {node.op}", fail=sub["fail"])
