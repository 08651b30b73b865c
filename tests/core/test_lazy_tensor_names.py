"""A fresh process's warm path stays light (issue 37 item 3), and what was made lazy or plain still behaves.

opkit.tensor resolves some names on first use (PEP 562); ScalarOp and Backend are plain immutable
classes, no longer dataclasses. Each check here is about behaviour, never about time.
"""

import json
import pickle
import subprocess
import sys

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.tensor.scalars.scalar_ops import ScalarOp
from opkit.link.backend import COMPILE, PYTHON, Backend

# (opkit.core.gradient_types, a few classes and grad_not_implemented, is imported at the top of the scalar functions'
# module since imports sit at module level, issue 46: under a millisecond.)
LAZY_MODULES = ("opkit.core.gradient", "opkit.core.tensor.shapes.subtensor",
                "opkit.core.tensor.shapes.inc_subtensor", "opkit.core.tensor.shapes.join",
                "opkit.core.tensor.shapes.creation", "opkit.core.tensor.elementwise.logic")


def _modules_after(code):
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=300)
    return set(json.loads(result.stdout.splitlines()[-1]))


def test_a_first_function_of_x_times_y_leaves_the_lazy_modules_and_dataclasses_unimported():
    code = ("import opkit, opkit.tensor as ot, numpy as np\nx, y = ot.dvector('x'), ot.dvector('y')\n"
            "f = opkit.function([x, y], x * y)\nassert list(f(np.ones(2), np.full(2, 3.0))) == [3.0, 3.0]")
    _modules_after(code)  # the first run may compile (the test's cache starts empty): the second is the warm path
    modules = _modules_after(code)
    assert sorted(modules & set(LAZY_MODULES)) == []
    assert "dataclasses" not in modules


def test_every_public_name_of_opkit_tensor_resolves_and_is_listed_by_dir():
    missing = [name for name in ot.__all__ if getattr(ot, name, None) is None]
    assert missing == []
    assert set(ot.__all__) <= set(dir(ot))
    namespace = {}
    exec("from opkit.tensor import *", namespace)
    assert {"grad", "stack", "Subtensor", "switch", "arange", "specify_shape"} <= set(namespace)
    with pytest.raises(AttributeError, match="module 'opkit.tensor' has no attribute 'no_such_name'"):
        ot.no_such_name  # noqa: B018


def test_lazy_names_are_the_objects_of_their_home_modules():
    from opkit.core.gradient import grad
    from opkit.core.tensor.shapes.subtensor import Subtensor

    assert ot.grad is grad and ot.Subtensor is Subtensor
    x = ot.dvector("x")
    f = opkit.function([x], ot.grad(ot.sum(ot.switch(ot.lt(x, 0.0), -x, x)), x))
    np.testing.assert_array_equal(f(np.array([-2.0, 0.5])), [-1.0, 1.0])


def test_scalar_op_equality_hash_repr_immutability_and_pickling_are_the_dataclasses():
    a = ScalarOp("twice", 1, np.add, c_expr="{0} + {0}")
    b = ScalarOp("twice", 1, np.multiply)  # only name and nin are compared, as the dataclass did
    assert a == b and hash(a) == hash(b)
    assert a != ScalarOp("twice", 2, np.add) and a != ScalarOp("thrice", 1, np.add)

    class Other(ScalarOp):
        pass

    assert a != Other("twice", 1, np.add)  # another class is never equal
    assert repr(a).startswith("ScalarOp(name='twice', nin=1, ufunc=<ufunc 'add'>, c_expr='{0} + {0}'")
    with pytest.raises(AttributeError, match="immutable: cannot assign to field 'name'"):
        a.name = "other"
    with pytest.raises(AttributeError, match="immutable: cannot delete field 'nin'"):
        del a.nin
    copy = pickle.loads(pickle.dumps(a))
    assert copy == a and copy.c_expr == a.c_expr and copy.c_kinds == "fiub"


def test_backend_is_an_immutable_value():
    assert Backend(COMPILE) == Backend(COMPILE) and hash(Backend(COMPILE)) == hash(Backend(COMPILE))
    assert Backend(COMPILE) != Backend(PYTHON)
    assert repr(Backend(COMPILE)) == "Backend(kind='compile', error=None)"
    with pytest.raises(AttributeError, match="immutable: cannot set 'kind'"):
        Backend(COMPILE).kind = PYTHON
    assert pickle.loads(pickle.dumps(Backend(PYTHON))) == Backend(PYTHON)
    from opkit.gpu.device import target_for

    on_gpu = Backend(COMPILE, target=target_for("cuda-interpret"))  # the device's target travels with it, by name
    assert repr(on_gpu) == "Backend(kind='compile', error=None, target=Target('cuda-interpret'))"
    assert pickle.loads(pickle.dumps(on_gpu)).target is on_gpu.target and on_gpu != Backend(COMPILE)
