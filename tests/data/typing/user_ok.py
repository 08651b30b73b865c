"""A user's file: mypy must accept it, seeing opkit's real types (tests/test_typing.py)."""

import numpy as np

import opkit
import opkit.tensor as ot


class Double(opkit.Op):
    __props__ = ()

    def make_node(self, *inputs: opkit.Variable) -> opkit.Apply:
        x = ot.as_tensor_variable(inputs[0])
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node: opkit.Apply, inputs: list[np.ndarray], output_storage: list[list[object]]) -> None:
        output_storage[0][0] = inputs[0] * 2


class Mul(opkit.Op):  # Theano's style: make_node names its inputs
    __props__ = ()

    def make_node(self, x: opkit.Variable, y: opkit.Variable) -> opkit.Apply:
        return opkit.Apply(self, [x, y], [x.type()])


class Scaled(opkit.COp):
    def __init__(self) -> None:
        super().__init__("scaled.c", func_name=None)


class Anything(opkit.Type):
    def filter(self, value: object, strict: bool = False, allow_downcast: bool | None = None) -> object:
        return value


def build() -> str:
    x = ot.dvector("x")
    y = Double()(x)
    f = opkit.function([x], [y, Mul()(x, x)], mode="FAST_RUN", name="f", profile=True)
    f(np.ones(3))
    cost = (x * 2).sum()
    g: opkit.Variable = opkit.grad(cost, x)
    gs: list[opkit.Variable] = opkit.grad(cost, [x])
    floatx: str = opkit.config.floatX
    timeout: float = opkit.config.compile_lock_timeout
    add = opkit.ops.add
    text = opkit.debugprint([g, *gs, add(x, x)], file="str")
    summary: str = f.profile.summary() if f.profile is not None else ""
    return f"{floatx} {timeout} {text} {summary}"
