"""Measure how many ulps opkit's compiled float functions are from numpy's, over the whole float range.

    python benchmarks/ulp_table.py                      # 1024 / 256 significands per binade and sign
    python benchmarks/ulp_table.py --float32 16384 --float64 4096
    python benchmarks/ulp_table.py --every-float32      # all 2**32 float32 inputs (hours on 2 cores)

Every exponent (subnormals included) of float32 and float64, both signs, random
significands plus each binade's ends, and 0, +-inf, nan, the largest and smallest
numbers and exp's overflow threshold (opkit.testing.ulp.whole_range). Each function
runs in one compiled (FAST_RUN, C) function and is compared with numpy's own
(the formula numpy computes for sigmoid and softplus). Prints a markdown table:
the largest distance in ulps, and the share of elements that differ at all.
tests/tensor/test_trust3_ulp_bounds.py checks these bounds on a smaller sample, per
family of numpy's SIMD loops (AVX2, AVX-512: numpy picks them by CPU).
"""

from __future__ import annotations

import argparse
import platform
import sys

import numpy as np


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--float32", type=int, default=1024, metavar="N", help="significands per binade and sign")
    parser.add_argument("--float64", type=int, default=256, metavar="N", help="significands per binade and sign")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--every-float32", action="store_true", help="every float32 instead of a sample")
    args = parser.parse_args(argv)

    from opkit.testing.ulp import compare, compiled_functions, every_float32, measure, numpy_simd

    tables = {}
    for dtype, per_binade in (("float32", args.float32), ("float64", args.float64)):
        if dtype == "float32" and args.every_float32:
            compiled = compiled_functions(dtype)
            table, all_c = {}, compiled[3]
            for values in every_float32():
                compare(compiled, values, table)
        else:
            table, all_c = measure(dtype, per_binade, args.seed)
        if not all_c:
            print(f"warning: some {dtype} functions did not run C code", file=sys.stderr)
        tables[dtype] = table
    n32 = next(iter(tables["float32"].values()))[2]
    n64 = next(iter(tables["float64"].values()))[2]
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    dispatch = [name for name in __cpu_dispatch__ if __cpu_features__.get(name)]
    print(f"numpy {np.__version__} (SIMD dispatch: {', '.join(dispatch) or 'baseline'}; its exp runs the "
          f"{numpy_simd('float32')} loops for float32, {numpy_simd('float64')} for float64), {platform.machine()}, "
          f"{platform.libc_ver()[0]} {platform.libc_ver()[1]}; {n32} float32 and {n64} float64 inputs")
    print()
    print("| function | float32: max ulp | float32: elements differing | float64: max ulp | "
          "float64: elements differing |")
    print("| --- | --- | --- | --- | --- |")
    for name in tables["float32"]:
        cells = []
        for dtype in ("float32", "float64"):
            worst, differing, total = tables[dtype][name]
            cells += [f"{worst:g}", f"{100 * differing / total:.2f}%"]
        print(f"| {name} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
