"""Interleaved measurement: every contender runs once per round, so machine noise hits all alike."""

from __future__ import annotations

import dataclasses
import statistics
import subprocess
import time
import timeit
from typing import Callable


@dataclasses.dataclass
class Stats:
    """Samples of one contender in one unit, with their median, min and max."""

    samples: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    def as_dict(self) -> dict:
        return {"median": self.median, "min": min(self.samples), "max": max(self.samples),
                "n": len(self.samples), "samples": self.samples}


def interleave(samplers: dict[str, Callable[[], float]], rounds: int) -> dict[str, Stats]:
    """Take `rounds` samples of each sampler, one per round, rotating the order every round.

    Rotating keeps any one contender from always running right after another
    (a cache warmed or a CPU clock raised by its neighbour).
    """
    names = list(samplers)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_index in range(rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            samples[name].append(samplers[name]())
    return {name: Stats(values) for name, values in samples.items()}


def call_sampler(fn, args, budget: float, unit: float = 1e-6) -> Callable[[], float]:
    """Return a sampler giving the mean time of `fn(*args)` in `unit`s, timeit-style.

    The loop is timeit's own (`for _ in range(n): fn(a0, a1)`, gc off), with n
    chosen once so that one sample lasts about `budget` seconds.
    """
    names = [f"a{i}" for i in range(len(args))]
    namespace = {"fn": fn, **dict(zip(names, args))}
    timer = timeit.Timer(f"fn({', '.join(names)})", globals=namespace)
    number = _calibrate(timer, budget)
    return lambda: timer.timeit(number) / number / unit


def _calibrate(timer: timeit.Timer, budget: float) -> int:
    """Return the loop count that makes one `timer.timeit(count)` last about `budget` seconds."""
    timer.timeit(1)  # first call: caches, lazily built paths
    number = 1
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= budget / 10 or number >= 10**8:
            return max(1, int(number * budget / max(elapsed, 1e-9)))
        number *= 10


def once_sampler(fn, unit: float = 1e-3) -> Callable[[], float]:
    """Return a sampler giving the time of one `fn()` call in `unit`s (milliseconds by default)."""
    def sample():
        start = time.perf_counter()
        fn()
        return (time.perf_counter() - start) / unit
    return sample


def process_sampler(command: list[str], env: dict, cwd, unit: float = 1e-3) -> Callable[[], float]:
    """Return a sampler giving the wall time of running `command` to completion, in `unit`s."""
    def sample():
        start = time.perf_counter()
        run_checked(command, env, cwd)
        return (time.perf_counter() - start) / unit
    return sample


def run_checked(command: list[str], env: dict, cwd) -> str:
    """Run `command`; return its stdout, or raise RuntimeError with its stderr if it failed."""
    run = subprocess.run(command, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"{command[:3]}... exited with status {run.returncode}:\n{run.stderr[-3000:]}")
    return run.stdout
