"""Pickles made by an earlier opkit still load: tests/data/cop/checked_sqrt_op.pickle holds a COp pickled by
opkit 0.1.0 at 69bb073, its state as that version wrote it (the parsed sections among it)."""

import pathlib
import pickle

import numpy as np

import opkit
import opkit.tensor as ot
from helpers.pickled_cop import PickledSqrt

PICKLE = pathlib.Path(__file__).resolve().parents[1] / "data" / "cop" / "checked_sqrt_op.pickle"


def test_a_cop_pickled_by_an_earlier_opkit_loads_and_runs_its_c_code():
    op = pickle.loads(PICKLE.read_bytes())
    assert type(op) is PickledSqrt and op == PickledSqrt()
    assert [section.tag for section in op.code_sections["code"]] == ["code"]
    x = ot.dvector("x")
    f = opkit.function([x], op(x))
    values = np.array([0.0, 2.0, 9.0, 1e-300])
    assert np.array_equal(f(values), np.sqrt(values))
