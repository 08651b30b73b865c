"""Registers the op name 'duplicated', which another test distribution registers too."""

import numpy as np

import opkit


class DuplicatedA(opkit.Op):
    """Add 1 to a tensor."""

    __props__ = ()
    name = "duplicated"

    def make_node(self, x):
        import opkit.tensor as ot

        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(inputs[0] + 1, dtype=inputs[0].dtype)


@opkit.hookimpl
def register_ops(register):
    register(DuplicatedA)
