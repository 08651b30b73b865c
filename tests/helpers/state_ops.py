"""Counter: an op whose nodes each keep state of their own in the struct (tests/cop: big graphs, incremental)."""

import opkit.scalar as os_
from opkit import Apply, Op


class Counter(Op):
    """z = x + count, then count += 1: each node keeps its own count in the struct (not shareable)."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [os_.as_scalar(x)], [os_.float64()])

    def c_support_code_struct(self, node, name):
        return f"double count_{name};"

    def c_init_code_struct(self, node, name, sub):
        return f"count_{name} = 0;"

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]} + count_{name};\ncount_{name} += 1;"

    def c_code_cache_version(self):
        return (1,)
