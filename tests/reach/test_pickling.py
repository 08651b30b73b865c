"""Compiled functions pickle (graph and mode travel) and have a deterministic __dask_tokenize__."""

import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opkit
import opkit.tensor as ot

cloudpickle = pytest.importorskip("cloudpickle")

# Builds the same graph in a fresh process: its token must match this process's.
BUILD_GRAPH = textwrap.dedent("""
    import opkit, opkit.tensor as ot
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], ot.exp(x) * y + 2.0, mode=opkit.Mode(linker="c"))
""")


def _graph():
    namespace = {}
    exec(BUILD_GRAPH, namespace)
    return namespace["f"]


def _python(code, **env):
    """Run `code` in a fresh interpreter (this tree first on the path, the session's compile cache)."""
    environ = {**os.environ, **env}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environ, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps], ids=["pickle", "cloudpickle"])
def test_a_pickled_function_runs_in_a_fresh_process_and_compiles_nothing(dumps, tmp_path):
    f = _graph()
    a, b = np.linspace(0, 1, 5), np.arange(5.0)
    (tmp_path / "f.pickle").write_bytes(dumps(f))
    out = _python(textwrap.dedent(f"""
        import pickle
        import numpy as np
        from opkit.cop.store.cache import module_events
        with open({str(tmp_path / "f.pickle")!r}, "rb") as handle:
            f = pickle.load(handle)
        a, b = np.linspace(0, 1, 5), np.arange(5.0)
        print(f(a, b).tolist())
        print(f(x=a, y=b).tolist() == f(a, b).tolist(), dict(module_events))
    """))
    values, rest = out.splitlines()
    assert np.allclose(eval(values), f(a, b))
    assert rest.startswith("True ") and "'built'" not in rest  # loaded from the warm cache, compiled nothing
    assert "'loaded'" in rest


def test_unpickling_keeps_outputs_names_mode_and_trust_input():
    x = ot.dmatrix("x")
    f = opkit.function([x], [x + 1, x * 2], mode="FAST_COMPILE", name="two")
    f.trust_input = True
    g = pickle.loads(pickle.dumps(f))
    assert (g.name, g.trust_input, g.maker.mode.linker, repr(g)) == ("two", True, "py", repr(f))
    first, second = g(np.ones((2, 2)))
    np.testing.assert_array_equal(second, np.full((2, 2), 2.0))
    single = opkit.function([x], ot.sum(x))
    assert float(pickle.loads(pickle.dumps(single))(np.ones((2, 3)))) == 6.0
    listed = opkit.function([x], [ot.exp(x)])
    assert isinstance(pickle.loads(pickle.dumps(listed))(np.zeros((1, 1))), list)


def test_perform_only_ops_and_constants_travel():
    @opkit.as_op(itypes=[ot.dvector], otypes=[ot.dvector])
    def cumulative(v):
        return np.cumsum(v)

    x = ot.dvector("x")
    constant = ot.constant(np.array([10.0, 20.0, 30.0]))
    f = opkit.function([x], cumulative(x) + constant)
    g = cloudpickle.loads(cloudpickle.dumps(f))  # an op defined in a function: cloudpickle carries it
    np.testing.assert_array_equal(g(np.ones(3)), [11.0, 22.0, 33.0])


def test_the_dask_token_is_deterministic_across_processes_and_hash_seeds():
    token = _graph().__dask_tokenize__()
    print_token = BUILD_GRAPH + "print(f.__dask_tokenize__())\n"
    for seed in ("0", "12345"):  # no hash randomization, and a seed: two processes besides this one
        assert _python(print_token, PYTHONHASHSEED=seed).strip() == token
    assert pickle.loads(pickle.dumps(_graph())).__dask_tokenize__() == token


def test_the_dask_token_is_equal_for_equal_graphs_and_differs_otherwise():
    x, y, fx = ot.dvector("x"), ot.dvector("y"), ot.fvector("x")
    token = _graph().__dask_tokenize__()
    assert _graph().__dask_tokenize__() == token
    different = [
        opkit.function([x, y], ot.exp(x) * y + 3.0, mode=opkit.Mode(linker="c")),  # another constant
        opkit.function([x, y], ot.exp(y) * x + 2.0, mode=opkit.Mode(linker="c")),  # other wiring
        opkit.function([x, y], ot.exp(x) * y + 2.0, mode=opkit.Mode(linker="py")),  # another mode
        opkit.function([fx, y], ot.exp(fx) * y + 2.0, mode=opkit.Mode(linker="c")),  # other types
    ]
    tokens = {f.__dask_tokenize__() for f in different}
    assert len(tokens) == len(different) and token not in tokens
    # One op object shared by two nodes, or two equal op objects: the same graph.
    other_mul = ot.Elemwise(ot.mul.scalar_op)
    once = opkit.function([x, y], ot.mul(ot.mul(x, y), y))
    twice = opkit.function([x, y], other_mul(ot.mul(x, y), y))
    assert once.__dask_tokenize__() == twice.__dask_tokenize__()


def test_dask_tokenize_uses_it():
    tokenize = pytest.importorskip("dask.base").tokenize
    assert tokenize(_graph()) == tokenize(_graph())
    x = ot.dvector("x")
    assert tokenize(_graph()) != tokenize(opkit.function([x], x + 1))


def test_opkit_imports_no_dask_and_pickling_needs_no_cloudpickle():
    code = ("import pickle, sys, opkit, opkit.tensor as ot\n"
            "x = ot.dvector('x')\n"
            "f = pickle.loads(pickle.dumps(opkit.function([x], x * 2)))\n"
            "print(f.__dask_tokenize__() != '', sorted(m for m in ('dask', 'distributed', 'cloudpickle') "
            "if m in sys.modules))")
    assert _python(code).strip() == "True []"


def test_a_function_with_shared_variables_refuses_to_pickle_and_says_why():
    counter = opkit.shared(np.zeros(3), name="counter")
    x = ot.dvector("x")
    f = opkit.function([x], x + counter, updates=[(counter, counter + x)])
    with pytest.raises(pickle.PicklingError, match=r"(?s)shared variables \(counter\).*cannot be pickled.*explicit inputs"):
        pickle.dumps(f)
    with pytest.raises(pickle.PicklingError, match="cannot be pickled or tokenized"):
        f.__dask_tokenize__()


def test_a_pickle_names_the_rebuild_function_that_earlier_opkit_versions_named():
    # Pickles written by earlier versions call opkit.link.pickling.rebuild_function: that name must stay.
    x = ot.dvector("x")
    f = opkit.function([x], x * 2)
    data = pickle.dumps(f)
    assert b"opkit.link.pickling" in data and b"rebuild_function" in data
    rebuild, args = f.__reduce__()
    assert (rebuild.__module__, rebuild.__name__) == ("opkit.link.pickling", "rebuild_function")
    assert np.array_equal(rebuild(*args)(np.arange(3.0)), [0.0, 2.0, 4.0])
