"""opkit.core.record.Record: the classes that stopped being dataclasses (issue 26) compare, print and pickle as before."""

import pickle

import pytest

from opkit.cop.generate.codegen import GeneratedModule, ModuleParts
from opkit.cop.generate.region import Region
from opkit.link.updates import SharedPlan


def test_equality_over_the_fields_only_and_not_across_classes():
    assert SharedPlan([1]) == SharedPlan([1], [], [], [], [])
    assert SharedPlan([1]) != SharedPlan([2])
    assert SharedPlan([1], updates=[0]) != SharedPlan([1])
    assert GeneratedModule("s") != "s"
    assert GeneratedModule("s", include_dirs=["a"]) == GeneratedModule("s", ["a"])
    assert ModuleParts({}, [], [], [], [], True) != ModuleParts({}, [], [], [], [], False)
    # a region's compiled module is not part of what it is (as `field(compare=False, repr=False)` was)
    assert Region([1], [2], [3], [4], module=object()) == Region([1], [2], [3], [4])
    assert "module" not in repr(Region([1], [2], [3], [4], module=5))


def test_repr_names_every_field_in_order():
    assert repr(SharedPlan([1])) == "SharedPlan(outputs=[1], shared=[], placeholders=[], update_values=[], updates=[])"
    assert repr(GeneratedModule("s")) == ("GeneratedModule(source='s', include_dirs=[], library_dirs=[], "
                                          "libraries=[], compile_args=[], versioned=True)")


def test_unhashable_as_an_eq_dataclass():
    with pytest.raises(TypeError, match="unhashable type: 'SharedPlan'"):
        hash(SharedPlan([1]))
    with pytest.raises(TypeError, match="unhashable type: 'Region'"):
        hash(Region([], [], [], []))


def test_pickled_as_their_dict():
    region = Region([1], [2], [3], [4], shared=[5], updates=[(0, 6)], preallocated=True, module="m")
    again = pickle.loads(pickle.dumps(region))
    assert again == region and again.module == "m" and again.__dict__ == region.__dict__
    plan = SharedPlan([1], [2], [3], [4], [0])
    assert pickle.loads(pickle.dumps(plan)).__dict__ == plan.__dict__
