"""opkit's own C of psi, i0, i1, erfcx and erfinv against scipy.special: time and ulps.

    python benchmarks/special_c.py              # time at 10^6 float64, paired with scipy (interleaved rounds)
    python benchmarks/special_c.py --ulps       # largest ulps from scipy over 10^6 points per sign, both dtypes

Time: each function alone in one compiled (FAST_RUN, C) function of a float64 vector of 10^6 elements drawn from
where it is used (psi on [-10, 30], i0 and i1 on [-30, 30], erfcx on [-5, 30], erfinv on (-1, 1)); scipy.special's
ufunc on the same array. The two take turns, one sample each per round, and each prints its median over the rounds
(single thread: opkit's elementwise loop and scipy's ufunc both run on one core).

Ulps: 10^6 points log-spaced over the whole range of each dtype and densely over [1e-6, 1600], both signs, 10^5
points up to 1 (erfinv's tails), the integers and half-integers of [-200, 0] and the special values; the float32
results are the double computed and rounded once, as scipy's float loops give. psi's count also prints the
distance away from its roots below -1 (where psi(1 - x) and pi / tan(pi x) cancel, in scipy's formula too).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

NAMES = ("psi", "i0", "i1", "erfcx", "erfinv")
DOMAINS = {"psi": (-10.0, 30.0), "i0": (-30.0, 30.0), "i1": (-30.0, 30.0), "erfcx": (-5.0, 30.0),
           "erfinv": (-1.0, 1.0)}


def compiled(name, dtype="float64"):
    import opkit
    import opkit.tensor as ot

    x = ot.tensor(dtype, (None,), name="x")
    f = opkit.function([x], getattr(ot, name)(x), mode="FAST_RUN")
    f.trust_input = True
    return f


def timing(n=10 ** 6, rounds=15):
    import scipy.special

    rng = np.random.default_rng(0)
    print(f"| function | opkit C (ms) | scipy.special (ms) | scipy / opkit |")
    print("|---|---|---|---|")
    for name in NAMES:
        low, high = DOMAINS[name]
        x = rng.uniform(low, high, n)
        f, g = compiled(name), getattr(scipy.special, name)
        f(x), g(x)  # warm
        samples = {"opkit": [], "scipy": []}
        for r in range(rounds):
            order = (("opkit", f), ("scipy", g)) if r % 2 == 0 else (("scipy", g), ("opkit", f))
            for who, function in order:
                start = time.perf_counter()
                function(x)
                samples[who].append(time.perf_counter() - start)
        ours, theirs = (1e3 * np.median(samples[k]) for k in ("opkit", "scipy"))
        print(f"| {name} | {ours:.2f} | {theirs:.2f} | {theirs / ours:.2f} |")


def sweep(dtype):
    info = np.finfo(dtype)
    with np.errstate(over="ignore"):
        wide = np.logspace(np.log10(float(info.smallest_subnormal)), np.log10(float(info.max)), 300000)
        dense = np.logspace(-6, 3.2, 200000)
        near_one = 1 - np.logspace(np.log10(float(info.eps)) - 1, 0, 100000)
        specials = [0.0, 0.5, 1.0, 1.5, 2.0, 10.0, 20.0, 26.6, 26.7, 709.7, 709.8, 713.9, 714.0, 1.4616321449683622,
                    0.5040830082644554, float(info.tiny), float(info.smallest_subnormal), float(info.max), np.inf,
                    np.nan]
        positive = np.concatenate([wide, dense, near_one, specials])
        whole = np.arange(-200, 1.0)
        return np.concatenate([positive, -positive, whole, whole - 0.5]).astype(dtype)


def ulps():
    import scipy.special

    from opkit.testing.ulp import ulp_distance

    print("| function | dtype | points | max ulps from scipy | share differing |")
    print("|---|---|---|---|---|")
    for dtype in ("float64", "float32"):
        x = sweep(dtype)
        for name in NAMES:
            with np.errstate(all="ignore"):
                result = compiled(name, dtype)(x)
                expected = getattr(scipy.special, name)(x).astype(dtype)
            distance = ulp_distance(result, expected)
            line = f"| {name} | {dtype} | {x.size} | {distance.max():g} | {np.mean(distance > 0):.3f} |"
            if name == "psi":
                with np.errstate(all="ignore"):
                    roots = (x < -1) & (np.abs(result - expected)
                                        <= 8 * np.finfo(dtype).eps * np.abs(scipy.special.psi(1 - x.astype(float))))
                line += f" (away from the roots below -1: {distance[~roots].max():g})"
            print(line)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ulps", action="store_true", help="measure the ulps from scipy instead of the time")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    if args.ulps:
        ulps()
    else:
        timing(rounds=args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
