"""jacobian, hessian, hessian_vector_product: whole derivatives built from grad.

A Jacobian has one row per element of the expression. Where the expression's type states its size (up
to STATIC_ROWS_MAX elements), the rows are a grad per element, stacked: an ordinary graph. Otherwise the
number is known only when the graph runs: Theano and PyTensor loop over the rows with scan; opkit has no
loop op, so a ``JacobianRows`` node holds the row's graph (the gradient of element i) compiled as an inner
function, and its perform calls it for each i (which is why this module is in link/: the node compiles a
function). A scalar expression (or one of a single element) needs no loop: its gradient is the Jacobian.
"""

from __future__ import annotations

import numpy as np

from opkit.core.gradient import _as_list, _restore, grad
from opkit.core.graph import Apply, Constant, Variable, ancestors, io_toposort
from opkit.core.op import Op
from opkit.core.shared import SharedVariable
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.shapes.join import stack
from opkit.link.function import function
from opkit.link.mode import Mode


def jacobian(expression, wrt, consider_constant=None, disconnected_inputs="raise", vectorize=False):
    """Return the Jacobian of `expression` with respect to `wrt` (a variable, list or tuple of them).

    Each result has the expression's shape followed by the shape of its `wrt`. `vectorize` (PyTensor's
    choice between scan and vectorized graphs) is accepted; both give the same values here.
    """
    if not isinstance(expression, Variable):
        raise TypeError(f"jacobian expects a Variable as `expression`, got {expression!r}")
    variables, kind = _as_list(wrt, "wrt")
    options = {"consider_constant": consider_constant, "disconnected_inputs": disconnected_inputs}
    size = _static_size(expression)
    if all(expression.type.broadcastable):  # one element: its gradient, reshaped to the expression's axes
        rows = grad(expression.reshape(()) if expression.ndim else expression, variables, **options)
        results = [row.reshape((*expression.shape, *v.shape)) if expression.ndim else row
                   for row, v in zip(rows, variables)]
    elif size is not None and size <= STATIC_ROWS_MAX:
        results = _jacobian_stacked(expression, size, variables, options)
    else:
        results = _jacobian_rows(expression, variables, options)
    return _restore(kind, results)


# A Jacobian whose expression has a static number of elements up to this is a graph of one grad per element,
# stacked (C code, differentiable again, rewritten with the rest); beyond it, or of a size known only at run
# time, a JacobianRows node (a Python loop over an inner function) computes the rows. specify_shape on the
# expression (or its inputs) gives it a static size.
STATIC_ROWS_MAX = 256


def _static_size(expression):
    """The expression's number of elements if its type states every length, else None."""
    shape = getattr(expression.type, "shape", None)
    if shape is None or None in shape:
        return None
    return int(np.prod(shape, dtype=np.int64))


def _jacobian_stacked(expression, size, variables, options):
    """The Jacobian of an expression of `size` (static) elements: grad of each element, stacked in C order."""
    flat = expression.flatten() if expression.ndim != 1 else expression
    rows = [grad(flat[k], variables, **options) for k in range(size)]
    return [stack([row[position] for row in rows]).reshape((*expression.type.shape, *v.shape))
            for position, v in enumerate(variables)]


def _jacobian_rows(expression, variables, options):
    """Return the Jacobian of a many-element `expression` as the outputs of one JacobianRows node."""
    index = TensorType("int64", ())("row")
    flat = expression.flatten()
    rows = grad(flat[index], variables, **options)
    inputs = _free_inputs(rows, [index, *variables])
    node = JacobianRows(index, inputs, rows).make_node(flat.shape[0], *inputs)
    return [out.reshape((*expression.shape, *v.shape)) for out, v in zip(node.outputs, variables)]


def _free_inputs(outputs, first):
    """Return `first` (minus the row index) and then the other inputs the outputs need, in order.

    Constants live in the inner graph; shared variables are read by the inner function itself.
    """
    wanted = list(first[1:])
    seen = set(map(id, first))
    for variable in ancestors(outputs, blockers=first):
        if variable.owner is None and id(variable) not in seen and not isinstance(variable, (Constant,
                                                                                            SharedVariable)):
            seen.add(id(variable))
            wanted.append(variable)
    return wanted


class JacobianRows(Op):
    """The rows of a Jacobian: inputs (number of rows, *inner inputs); row i is the inner function of i.

    The inner function runs through perform (Mode(linker="py")): a row is a small graph called once
    per element, where a compiled module per Jacobian would cost more than it saves.
    """

    _not_identity = frozenset({"_function"})  # the inner function, compiled on first use

    def __init__(self, index, inputs, rows):
        self.index, self.inner_inputs, self.rows = index, list(inputs), list(rows)
        self._function = None

    def _structure(self):
        """The inner graph by position: each node's op and where its inputs come from, the rows, the types.

        Two JacobianRows compute the same when their structures are equal (a pickled copy, say): the
        structure compares ops and types by equality and constants by value, never variables by identity."""
        place = {id(v): ("in", k) for k, v in enumerate([self.index, *self.inner_inputs])}
        nodes = []
        for node in io_toposort([self.index, *self.inner_inputs], self.rows):
            refs = []
            for v in node.inputs:
                if id(v) not in place and isinstance(v, Constant):
                    data = np.asarray(v.data)
                    place[id(v)] = ("const", v.type, data.dtype.str, data.shape, data.tobytes())
                refs.append(place.get(id(v), ("free", id(v))))  # shared: by identity
            for k, out in enumerate(node.outputs):
                place[id(out)] = ("node", len(nodes), k)
            nodes.append((node.op, tuple(refs)))
        types = tuple(v.type for v in [self.index, *self.inner_inputs])
        return types, tuple(nodes), tuple(place.get(id(r), ("free", id(r))) for r in self.rows)

    def __eq__(self, other):
        return type(other) is type(self) and (other is self or other._structure() == self._structure())

    def __hash__(self):
        return hash((type(self), len(self.rows), tuple(r.type for r in self.rows)))

    def make_node(self, size, *inputs):
        outputs = [TensorType(row.type.dtype, (None, *row.type.shape))() for row in self.rows]
        return Apply(self, [size, *inputs], outputs)

    def perform(self, node, inputs, output_storage):
        size, *values = inputs
        row_of = self._compiled()
        for position, cell in enumerate(output_storage):  # the rows have the shape of their wrt: values[position]
            cell[0] = np.empty((int(size), *np.shape(values[position])), dtype=self.rows[position].type.dtype)
        for i in range(int(size)):
            for cell, row in zip(output_storage, row_of(i, *values)):
                cell[0][i] = row

    def _compiled(self):
        if self._function is None:
            # A variable computed in the outer graph (wrt may be one) is a free input here: a given.
            fresh = [v.type() if v.owner is not None else v for v in self.inner_inputs]
            givens = {v: f for v, f in zip(self.inner_inputs, fresh) if v is not f}
            self._function = function([self.index, *fresh], self.rows, on_unused_input="ignore", givens=givens,
                                      mode=Mode(linker="py"))
        return self._function

    def __getstate__(self):
        return {**self.__dict__, "_function": None}

    def __str__(self):
        return "JacobianRows"


def hessian(cost, wrt, consider_constant=None, disconnected_inputs="raise"):
    """Return the Hessian of the scalar `cost` with respect to each vector of `wrt` (a variable, list or tuple)."""
    if not isinstance(cost, Variable):
        raise TypeError(f"hessian expects a Variable as `cost`, got {cost!r}")
    if cost.ndim != 0:
        raise ValueError(f"hessian expects a 0-dimensional `cost`; {cost} has {cost.ndim} dimensions")
    variables, kind = _as_list(wrt, "wrt")
    results = []
    for variable in variables:
        if variable.ndim != 1:
            raise ValueError(f"hessian expects vectors as `wrt`; {variable} has {variable.ndim} dimensions")
        gradient = grad(cost, variable, consider_constant=consider_constant, disconnected_inputs=disconnected_inputs)
        results.append(jacobian(gradient, variable, consider_constant, disconnected_inputs="ignore"))
    return _restore(kind, results)


def hessian_vector_product(cost, wrt, p, **grad_kwargs):
    """Return the Hessian of `cost` times `p` (one vector per variable of `wrt`), by grad applied twice."""
    single = isinstance(wrt, Variable)
    variables = [wrt] if single else list(wrt)
    vectors = [p] if isinstance(p, Variable) else list(p)
    if len(vectors) != len(variables):
        raise ValueError(f"hessian_vector_product: {len(variables)} variable(s) in wrt but {len(vectors)} in p")
    gradients = grad(cost, variables, **grad_kwargs)
    products = [(g * v).sum() for g, v in zip(gradients, vectors)]
    total = products[0]
    for product in products[1:]:
        total = total + product
    results = grad(total, variables, **grad_kwargs)
    return results[0] if single else results


__all__ = ["JacobianRows", "hessian", "hessian_vector_product", "jacobian"]
