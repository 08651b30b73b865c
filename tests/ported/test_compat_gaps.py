"""What the compat namespaces say where opkit has no counterpart (rewrite databases, sparse, random, scan), and
Theano's test values and config as they read opkit's: each message names the gap."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot


def test_gaps_raise_naming_what_opkit_lacks():
    from opkit.compat.pytensor.graph.rewriting.basic import node_rewriter
    from opkit.compat.pytensor.graph.rewriting.db import EquilibriumDB
    from opkit.compat.pytensor.scan.op import Scan
    from opkit.compat.pytensor.sparse import SparseTensorType
    from opkit.compat.pytensor.tensor.random import RandomStream
    from opkit.compat.theano import sparse

    @node_rewriter([ot.add])
    def rewrite(fgraph, node):
        return False

    database = EquilibriumDB()
    database.register("rewrite", rewrite, "all")
    with pytest.raises(NotImplementedError, match=r"^EquilibriumDB.query: opkit's modes do not run user rewrites "
                                                  r"\(rewrite\); opkit has no rewrite database$"):
        database.query("+all")
    with pytest.raises(NotImplementedError, match=r"SparseTensorType\('csc'\): opkit has no sparse types"):
        SparseTensorType("csc", dtype="float64")
    with pytest.raises(NotImplementedError, match="RandomStream: opkit has no random variables"):
        RandomStream(1)
    with pytest.raises(NotImplementedError, match="Scan: opkit has no scan op"):
        Scan()
    assert sparse.enable_sparse is False
    with pytest.raises(NotImplementedError, match=r"theano.sparse.csc_matrix: opkit has no sparse types"):
        sparse.csc_matrix(name="x")


def test_stochastic_order_is_a_debugmode_error():
    from opkit.compat.pytensor.compile.debug.debugmode import DebugModeError, StochasticOrder

    assert issubclass(StochasticOrder, DebugModeError)


def test_upstream_config_reads_and_sets_opkit_flags():
    from opkit.compat.config import theano_config
    from opkit.compat.pytensor.configdefaults import config

    assert config.cxx  # the compiler found (this suite compiles C), where opkit's flag may be ""
    assert config.floatX == opkit.config.floatX and config.DebugMode__patience == 10
    with config.change_flags(floatX="float32", DebugMode__patience=3):
        assert opkit.config.floatX == "float32" and config.DebugMode__patience == 3
    assert opkit.config.floatX == "float64" and config.DebugMode__patience == 10
    with pytest.raises(ValueError, match=r"^config.compute_test_value must be one of off, ignore, warn, raise, "
                                         r"pdb, not 'sometimes'$"):
        theano_config.compute_test_value = "sometimes"


def test_theano_test_values():
    from opkit.compat.theano import config
    from opkit.compat.theano.gof.op import debug_error_message, get_debug_values, get_test_value

    x, y = ot.dvector("x"), ot.dvector("y")
    with pytest.raises(AttributeError, match=r"^x has no test value: set x.tag.test_value$"):
        get_test_value(x * 2)
    x.tag.test_value = np.array([1.0, 2.0])
    np.testing.assert_array_equal(get_test_value(ot.exp(x) * 2 + opkit.shared(np.ones(2))), np.exp([1, 2]) * 2 + 1)
    with config.change_flags(compute_test_value="off"):
        assert get_debug_values(x) == []
        with pytest.raises(ValueError, match="debug_error_message called while config.compute_test_value is off"):
            debug_error_message("m")
    with config.change_flags(compute_test_value="warn"):
        with pytest.warns(UserWarning, match="a variable has no test value"):
            assert get_debug_values(x, y) == []
        with pytest.warns(UserWarning, match="^m$"):
            debug_error_message("m")
