"""profile=True: per-node call counts and times of a compiled function (`f.profile`).

C nodes are timed inside their compiled module (the module is generated with a
timer around each node's code, see templates/module.cpp.j2); nodes that run in
Python (between C regions, or under a Python linker) are timed around their thunk.
"""

from __future__ import annotations

import _thread
import contextlib
import time

# threading.local(), without importing threading (a warm process does not)
_local = _thread._local()  # .stack: the ProfileStats of the functions this thread is linking


class ProfileStats:
    """Per-node calls and nanoseconds of one compiled function; `summary()` prints them."""

    def __init__(self, name=None):
        self.name = name
        self._c_regions = []   # (nodes, runner): runner.profile() gives (calls, ns) per node
        self._python = {}      # node -> [calls, ns]

    def add_c_region(self, nodes, runner):
        self._c_regions.append((list(nodes), runner))

    def timed(self, node, thunk):
        """Return `thunk` wrapped so that its calls and time are counted for `node`."""
        cell = self._python.setdefault(node, [0, 0])
        clock = time.perf_counter_ns

        def run():
            started = clock()
            result = thunk()
            cell[0] += 1
            cell[1] += clock() - started
            return result

        return run

    def nodes(self) -> list[tuple]:
        """Return [(node, where, calls, seconds)] for every timed node, slowest first."""
        rows = []
        for nodes, runner in self._c_regions:
            for node, (calls, ns) in zip(nodes, runner.profile()):
                rows.append((node, "C", calls, ns / 1e9))
        rows += [(node, "Python", calls, ns / 1e9) for node, (calls, ns) in self._python.items()]
        return sorted(rows, key=lambda row: -row[3])

    def summary(self) -> str:
        """Return a table of the nodes sorted by total time: share, time, calls, time per call, node."""
        rows = self.nodes()
        total = sum(row[3] for row in rows) or 1e-300
        title = f"function {self.name!r}" if self.name else "compiled function"
        lines = [f"Profile of {title}: {len(rows)} node(s), {sum(row[3] for row in rows) * 1e3:.3f} ms in nodes",
                 f"{'%':>6}  {'total s':>10}  {'calls':>8}  {'us/call':>10}  {'where':<6}  node"]
        for node, where, calls, seconds in rows:
            per_call = seconds / calls * 1e6 if calls else 0.0
            lines.append(f"{seconds / total * 100:6.1f}  {seconds:10.6f}  {calls:8d}  {per_call:10.3f}  "
                         f"{where:<6}  {node}")
        return "\n".join(lines) + "\n"

    def __repr__(self):
        return f"<opkit ProfileStats of {len(self.nodes())} node(s)>"


@contextlib.contextmanager
def collecting(stats):
    """Make `stats` the profile that linkers register C regions and Python nodes with (None: no profile)."""
    stack = _local.__dict__.setdefault("stack", [])
    stack.append(stats)
    try:
        yield stats
    finally:
        stack.pop()


def active():
    """Return the ProfileStats being collected, or None."""
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None
