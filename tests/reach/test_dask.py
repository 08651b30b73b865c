"""opkit.dask on a real distributed.LocalCluster: blockwise equals numpy; WarmCache compiles once per cluster."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from helpers.caches import seeded
from opkit.config import THREAD_GRAIN

da = pytest.importorskip("dask.array", reason="opkit.dask needs the dask extra: pip install 'opkit-sdk[dask]'")
distributed = pytest.importorskip("distributed")
opkit_dask = pytest.importorskip("opkit.dask")

CHUNKS = 8


def _warm_function_base():
    """Build opkit's call path on a worker, so the tests below count their graphs' modules only."""
    from opkit.link.backend import COMPILE, Backend
    from opkit.link.function import function_class

    return function_class(Backend(COMPILE)).__name__  # the workers have a compiler


@pytest.fixture(scope="module")
def client():
    """One cluster for the whole module: 2 worker processes sharing this session's compile cache, so a worker
    loads the module of a function the tests compiled here (as a cluster beside its client's cache would)."""
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                                  env={"OPKIT_COMPILEDIR": opkit.config.compiledir}) as cluster, \
            distributed.Client(cluster) as client:
        client.run(_warm_function_base)
        yield client


def _built(client):
    return client.run(opkit_dask.modules_built)


# Ten million elements (chunks of 1.25 million) in the soak run; the default run's million (chunks of 125,000) runs
# the same code: a loop takes threads by its elements, and both sizes' chunks are over two thread grains each.
@pytest.mark.parametrize("n", [10**6, pytest.param(10**7, marks=pytest.mark.soak)], ids=["1e6", "1e7"])
def test_blockwise_over_millions_of_elements_equals_numpy(client, n):
    assert n // CHUNKS >= 2 * THREAD_GRAIN
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], x * y + ot.exp(x))
    X = da.random.default_rng(1).random(n, chunks=n // CHUNKS)
    Y = da.random.default_rng(2).random(n, chunks=n // CHUNKS)
    z = opkit_dask.blockwise(f, X, Y)
    assert (z.dtype, z.shape, z.numblocks) == (np.float64, (n,), (CHUNKS,))
    # numpy on every chunk, on the workers; only the largest difference comes back (no transfer of the arrays)
    reference = da.map_blocks(lambda a, b: a * b + np.exp(a), X, Y, dtype="float64")
    assert float(abs(z - reference).max().compute()) <= 2e-15  # values below 4: a few ulps of exp
    got, xs, ys = client.compute([z.blocks[3], X.blocks[3], Y.blocks[3]], sync=True)  # one chunk here too
    np.testing.assert_allclose(got, xs * ys + np.exp(xs), rtol=1e-15)


def test_blockwise_broadcasts_and_takes_the_output_dtype_from_the_graph(client):
    m, v = ot.fmatrix("m"), ot.fvector("v")
    f = opkit.function([m, v], m - v)
    M = da.from_array(np.arange(24, dtype="float32").reshape(4, 6), chunks=(2, 3))
    V = da.from_array(np.linspace(0, 1, 6, dtype="float32"), chunks=3)
    z = opkit_dask.blockwise(f, M, V)
    assert z.dtype == np.float32
    np.testing.assert_array_equal(z.compute(), M.compute() - V.compute())


def test_blockwise_with_several_outputs(client):
    x = ot.dvector("x")
    f = opkit.function([x], [x + 1, x * 2])
    X = da.arange(10, chunks=5, dtype="float64")
    a, b = opkit_dask.blockwise(f, X)
    np.testing.assert_array_equal(a.compute(), np.arange(10) + 1)
    np.testing.assert_array_equal(b.compute(), np.arange(10) * 2)
    [listed] = opkit_dask.blockwise(opkit.function([x], [x - 1]), X)  # outputs given as a list: a tuple back
    np.testing.assert_array_equal(listed.compute(), np.arange(10) - 1)


def test_blockwise_errors_say_what_to_pass(client):
    x, s = ot.dvector("x"), ot.dvector("s")
    f = opkit.function([x, s], x * s)
    with pytest.raises(TypeError, match=r"is float64; the dask array is int64: convert it with .astype\('float64'\)"):
        opkit_dask.blockwise(f, da.arange(4, chunks=2), da.arange(4, chunks=2))
    with pytest.raises(ValueError, match="is 1-d .*the dask array is 2-d"):
        opkit_dask.blockwise(f, da.ones((2, 2)), da.ones(2))
    with pytest.raises(TypeError, match="takes 2 inputs"):
        opkit_dask.blockwise(f, da.ones(2))
    total = opkit.function([x], ot.sum(x))
    with pytest.raises(ValueError, match=r"has 0 dimension\(s\) and the inputs broadcast to 1: pass chunks=..., "
                                         r"drop_axis=... or new_axis=..."):
        opkit_dask.blockwise(total, da.ones(4, chunks=2))
    assert float(opkit_dask.blockwise(total, da.ones(4, chunks=4), drop_axis=0).compute()) == 4.0


def test_warm_cache_compiles_each_module_once_on_the_cluster(client, tmp_path):
    x, y = ot.dvector("x"), ot.dvector("y")
    with opkit.config.change_flags(compiledir=seeded(tmp_path)):  # built here, not in the cache the workers share
        f = opkit.function([x, y], ot.sqrt(x * x + y * y) - x / (y + 3))  # a graph no other test compiles
    before = _built(client)
    client.register_plugin(opkit_dask.WarmCache(f))
    after = _built(client)
    built = {worker: after[worker] - before[worker] for worker in after}
    assert all(count <= 1 for count in built.values()), built
    assert sum(built.values()) == 1, built  # one module for the whole cluster: the cache's lock held the other
    token = f.__dask_tokenize__()
    warmed = client.run(lambda dask_worker: sorted(getattr(dask_worker, "opkit_functions", {})))
    assert all(token in tokens for tokens in warmed.values()), warmed
    X = da.from_array(np.linspace(0, 1, 1000), chunks=100)
    Y = da.from_array(np.linspace(1, 2, 1000), chunks=100)
    z = opkit_dask.blockwise(f, X, Y).compute()
    xs, ys = X.compute(), Y.compute()
    np.testing.assert_allclose(z, np.sqrt(xs * xs + ys * ys) - xs / (ys + 3), rtol=1e-14)
    assert _built(client) == after  # the tasks compiled nothing


def test_warm_cache_takes_compiled_functions_only():
    with pytest.raises(TypeError, match="at least one compiled function"):
        opkit_dask.WarmCache()
    with pytest.raises(TypeError, match=r"takes compiled opkit functions \(opkit.function\(...\)\), not 3"):
        opkit_dask.WarmCache(3)


def test_the_benchmark_measures_both_contenders(client):
    import importlib.util

    from conftest import ROOT

    spec = importlib.util.spec_from_file_location("dask_blockwise_benchmark", ROOT / "benchmarks" / "dask_blockwise.py")
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    times, built = benchmark.measure(client, n=10**5, chunks=8, rounds=1)
    assert sorted(times) == ["da.map_blocks(numpy)", "opkit.dask.blockwise"]
    assert all(len(samples) == 1 and samples[0] > 0 for samples in times.values())
    assert all(count <= 1 for count in built.values())
