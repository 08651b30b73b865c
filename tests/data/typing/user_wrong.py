"""A user's file with type errors mypy must find in opkit's API (tests/test_typing.py)."""

import opkit
import opkit.tensor as ot

x = ot.dvector("x")
f = opkit.function([x], x * 2, mode=3)
n: int = opkit.config.floatX
opkit.grad(x.sum())
opkit.COp(func_name="f")
s: str = f.profile
