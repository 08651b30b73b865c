"""profile=True: per-node counts and times measured inside the compiled module; nothing changes when off."""

import os
import subprocess
import sys

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.config import config
from opkit.cop.generate.codegen import collect_module, render_parts
from opkit.cop.toolchain.identity import region_key
from opkit.cop.generate.region import Region
from opkit.link.function import FunctionMaker
from opkit.link.mode import get_mode


def _graph():
    x, y = ot.dvector("x"), ot.dvector("y")
    return x, y, [(x * y + x) * 2 - y, ot.exp(x) * 2]


def test_a_profiled_function_counts_and_times_each_c_node_and_gives_the_same_results():
    x, y, outputs = _graph()
    a, b = np.linspace(0, 1, 1000), np.linspace(1, 2, 1000)
    plain = opkit.function([x, y], outputs)
    profiled = opkit.function([x, y], outputs, profile=True, name="twice")
    assert plain.profile is None
    for _ in range(7):
        got = profiled(a, b)
    want = plain(a, b)
    for mine, theirs, exact in zip(got, want, [(a * b + a) * 2 - b, np.exp(a) * 2]):
        np.testing.assert_array_equal(mine, theirs)
        np.testing.assert_allclose(mine, exact, rtol=1e-15)
    rows = profiled.profile.nodes()
    assert sorted(str(node.op) for node, *_ in rows) == ["Fused{exp,mul}", "Fused{mul,add,mul,sub}"]
    assert all(where == "C" and calls == 7 and seconds > 0 for _, where, calls, seconds in rows)
    assert [row[3] for row in rows] == sorted((row[3] for row in rows), reverse=True)


def test_the_summary_is_a_table_sorted_by_time():
    x, y, outputs = _graph()
    f = opkit.function([x, y], outputs, profile=True, name="twice")
    f(np.ones(100_000), np.ones(100_000))
    lines = f.profile.summary().splitlines()
    assert lines[0].startswith("Profile of function 'twice': 2 node(s), ") and lines[0].endswith(" ms in nodes")
    assert lines[1].split() == ["%", "total", "s", "calls", "us/call", "where", "node"]
    times = [float(line.split()[1]) for line in lines[2:]]
    assert len(times) == 2 and times == sorted(times, reverse=True)
    assert abs(sum(float(line.split()[0]) for line in lines[2:]) - 100) < 0.2
    assert all(line.split()[2] == "1" and line.split()[4] == "C" for line in lines[2:])


def test_nodes_that_run_in_python_are_timed_in_the_python_runner():
    x, y, outputs = _graph()
    f = opkit.function([x, y], outputs, profile=True, mode="FAST_COMPILE")
    f(np.ones(10), np.ones(10))
    f(np.ones(10), np.ones(10))
    rows = f.profile.nodes()
    assert len(rows) == 6 and {where for _, where, _, _ in rows} == {"Python"}
    assert {calls for _, _, calls, _ in rows} == {2}
    # a C region plus a Python node in one graph (Concatenate has no C code: it runs after the C region)
    z = ot.concatenate([(x * y + x) * 2 - y, x])
    g = opkit.function([x, y], z, profile=True)
    np.testing.assert_array_equal(g(np.array([1.0, 3.0, 2.0, 0.0]), np.ones(4)),
                                  [3.0, 11.0, 7.0, -1.0, 1.0, 3.0, 2.0, 0.0])  # (x + x) * 2 - 1, then x
    where = {str(node.op): (kind, calls) for node, kind, calls, _ in g.profile.nodes()}
    assert where["Fused{mul,add,mul,sub}"] == ("C", 1)
    assert where["Concatenate{axis=0}"] == ("Python", 1)


def test_profiling_off_generates_todays_module_and_on_another_one():
    x, y, outputs = _graph()
    fgraph = FunctionMaker([x, y], outputs, get_mode(None)).fgraph
    region = Region.from_nodes(fgraph.toposort(), lambda variable: True)
    off = collect_module(region)
    assert "profile" not in off.context  # the context, so the source and its key, are as without profiling
    source = render_parts(off).source
    assert "prof_" not in source and "opkit_now_ns" not in source and "<chrono>" not in source
    with config.change_flags(profile=True):
        on = collect_module(region)
    assert region_key(on) != region_key(off)
    profiled = render_parts(on).source
    assert profiled.count("__atomic_fetch_add(&prof_calls[") == len(region.nodes)
    assert source == render_parts(collect_module(region)).source


def test_opkit_flags_profile_true_profiles_every_function(tmp_path):
    code = ("import numpy as np, opkit, opkit.tensor as ot\nx = ot.dvector('x')\nf = opkit.function([x], x * 2 + 1)\n"
            "f(np.ones(3))\nprint(f.profile.summary())")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "OPKIT_FLAGS": "profile=true"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith("Profile of compiled function: 1 node(s)")


def test_a_bad_profile_flag_is_refused():
    with pytest.raises(ValueError, match="opkit flag profile='maybe' must be true or false"):
        config.profile = "maybe"
