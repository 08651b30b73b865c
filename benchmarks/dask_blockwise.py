"""opkit.dask.blockwise next to dask.array.map_blocks with numpy, on a real LocalCluster.

    python benchmarks/dask_blockwise.py             # 10^7 float64 in 8 chunks, 2 worker processes, 7 rounds
    python benchmarks/dask_blockwise.py --quick     # 10^6 elements, 3 rounds

Both contenders compute `x * y + exp(x)` chunk by chunk on the same persisted
arrays and keep their results on the workers (`persist` + `wait`), so the figure
is the chunk computation plus Dask's scheduling, not the transfer of results.
Rounds are interleaved (one sample of each per round, the order alternating).
Before timing, `WarmCache` loads (or compiles) the function's module on every
worker; the script prints how many modules each worker compiled.
"""

from __future__ import annotations

import argparse
import statistics
import time


def _numpy_block(a, b):
    import numpy as np

    return a * b + np.exp(a)


def measure(client, n=10**7, chunks=8, rounds=7):
    """Return {contender: [seconds per round]} and the modules each worker compiled while warming."""
    import dask.array as da
    import distributed

    import opkit
    import opkit.dask
    import opkit.tensor as ot

    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], x * y + ot.exp(x))
    before = client.run(opkit.dask.modules_built)
    client.register_plugin(opkit.dask.WarmCache(f))
    after = client.run(opkit.dask.modules_built)
    built = {worker: after[worker] - before[worker] for worker in after}
    X = da.random.default_rng(1).random(n, chunks=n // chunks).persist()
    Y = da.random.default_rng(2).random(n, chunks=n // chunks).persist()
    distributed.wait([X, Y])
    # A fresh output name every round: a result of an earlier round still held is never reused.
    contenders = {
        "opkit.dask.blockwise": lambda name: opkit.dask.blockwise(f, X, Y, name=name),
        "da.map_blocks(numpy)": lambda name: da.map_blocks(_numpy_block, X, Y, dtype="float64", name=name),
    }
    times = {name: [] for name in contenders}
    for round_number in range(rounds + 1):  # round 0 warms both (worker imports, first task)
        names = list(contenders) if round_number % 2 else list(reversed(contenders))
        for name in names:
            started = time.perf_counter()
            result = contenders[name](f"{name}-round-{round_number}").persist()
            distributed.wait(result)
            elapsed = time.perf_counter() - started
            del result
            if round_number:
                times[name].append(elapsed)
    return times, built


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^6 elements, 3 rounds")
    args = parser.parse_args(argv)
    n, rounds = (10**6, 3) if args.quick else (10**7, 7)

    import distributed

    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        times, built = measure(client, n=n, rounds=rounds)
    print(f"x * y + exp(x), {n:.0e} float64 elements in 8 chunks, LocalCluster(n_workers=2, processes=True, "
          f"threads_per_worker=1), {rounds} rounds")
    print(f"modules compiled per worker while warming: {sorted(built.values())}")
    baseline = statistics.median(times["da.map_blocks(numpy)"])
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"{name:22s} median {median * 1e3:8.1f} ms  min {min(samples) * 1e3:8.1f}  "
              f"max {max(samples) * 1e3:8.1f}  ratio {median / baseline:.2f}x")


if __name__ == "__main__":
    main()
