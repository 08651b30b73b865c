"""Trust 3, API items: shape= on every typed constructor, eval/givens on intermediates, grad wrt constants,
0-d known gradients."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.tensor.constructors import plural_constructors
from opkit.core.tensor.type import named_types

# ---------------------------------------------------------------- T6: shape= on every typed constructor

_GENERIC = {"scalar": 0, "vector": 1, "matrix": 2, "tensor3": 3, "tensor4": 4}


def _ndim_of(name):
    """Return the ndim a constructor name stands for (dvector -> 1, fmatrices -> 2)."""
    for kind, ndim in _GENERIC.items():
        if kind in name or (kind == "matrix" and "matrices" in name):
            return ndim
    raise AssertionError(name)


TYPED = sorted(named_types())
PLURALS = sorted(plural_constructors(named_types()))


def test_every_constructor_is_enumerated():
    """The lists below cover every public constructor name of opkit.tensor (a new one must be added)."""
    public = {name for name in ot.__all__ if any(kind in name for kind in (*_GENERIC, "matrices"))
              and callable(getattr(ot, name))}
    assert public == set(TYPED) | set(PLURALS) | set(_GENERIC)
    assert len(TYPED) == 20 and len(PLURALS) == 25


@pytest.mark.parametrize("name", TYPED)
def test_typed_constructor_takes_shape(name):
    make, ndim = getattr(ot, name), _ndim_of(name)
    shape = tuple(range(2, 2 + ndim))
    v = make("v", shape=shape)
    assert v.name == "v" and v.type.shape == shape and v.dtype == make.dtype
    assert make.shape == (None,) * ndim  # the module-level type itself is unchanged
    partial = make(shape=(None,) * ndim)
    assert partial.type == make and partial.name is None
    article = "an" if name[0] in "aeiou" else "a"
    with pytest.raises(ValueError, match=rf"^{name}: shape \(1, 2, 3, 4, 5\) has 5 entries but {article} {name} "
                                         rf"has {ndim} dimensions?\.\nHint: pass one entry per dimension"):
        make("v", shape=(1, 2, 3, 4, 5))
    with pytest.raises(TypeError, match=rf"^{name}: shape must be a tuple of ints and None"):
        make("v", shape=3)
    if ndim:
        with pytest.raises(ValueError, match=rf"^{name}: shape entry 0 is -1; lengths cannot be negative"):
            make(shape=(-1,) + (None,) * (ndim - 1))
        with pytest.raises(ValueError, match=rf"^{name}: shape \({', '.join(['None'] * (ndim + 1))},?\) has "
                                             rf"{ndim + 1} entries"):
            make(shape=(None,) * (ndim + 1))


@pytest.mark.parametrize("name", PLURALS)
def test_plural_constructor_takes_shape(name):
    make, ndim = getattr(ot, name), _ndim_of(name)
    shape = (3,) * ndim
    a, b = make("a", "b", shape=shape)
    assert (a.name, b.name) == ("a", "b") and a.type.shape == b.type.shape == shape
    assert make("c", shape=shape).type.shape == shape
    assert [v.type.shape for v in make(2, shape=shape)] == [shape, shape]
    with pytest.raises(ValueError, match=r"has 5 entries but an? \w+ has"):
        make("a", "b", shape=(1, 2, 3, 4, 5))


def test_shape_on_a_type_with_static_lengths():
    typ = ot.TensorType("float64", (3, None))
    assert typ("m", shape=(None, 4)).type.shape == (3, 4)
    assert typ("m", shape=(3, 4)).type.shape == (3, 4)
    with pytest.raises(ValueError, match=r"^TensorType\(float64, shape=\(3, None\)\): shape entry 0 is 4 but "
                                         r"TensorType\(float64, shape=\(3, None\)\) has length 3 on axis 0$"):
        typ("m", shape=(4, 4))
    with pytest.raises(ValueError, match=r"shape \(1,\) has 1 entry but a TensorType\(float64, shape=\(3, None\)\) "
                                         r"has 2 dimensions"):
        typ("m", shape=(1,))


def test_the_readme_line_runs_and_checks_the_length():
    v = ot.dvector("v", shape=(3,))
    f = opkit.function([v], v * 2)
    np.testing.assert_array_equal(f([1.0, 2.0, 3.0]), [2.0, 4.0, 6.0])
    with pytest.raises(TypeError, match=r"axis 0 must be 3"):
        f([1.0, 2.0])
