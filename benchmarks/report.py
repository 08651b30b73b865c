"""A figure's results, its target, and how they print as tables and serialise to JSON."""

from __future__ import annotations

import dataclasses

from timing import Stats

OPKIT = "opkit"


@dataclasses.dataclass
class Target:
    """What opkit's median must satisfy: `ratio` to the baseline, `over` it, or an absolute `max`."""

    kind: str  # "ratio" | "over" | "max"
    limit: float

    def describe(self, baseline: str, unit: str) -> str:
        if self.kind == "ratio":
            return f"<= {self.limit:g}x {baseline}"
        if self.kind == "over":
            return f"<= +{self.limit:g} {unit} over {baseline}"
        return f"<= {self.limit:g} {unit}"


@dataclasses.dataclass
class Figure:
    """One benchmark figure: every contender's stats, which one is the baseline, and the target.

    `delta` is opkit minus the baseline, as the median of per-round differences
    (set by figures whose target is an excess over the baseline).
    """

    name: str
    title: str
    unit: str
    stats: dict[str, Stats]
    baseline: str
    target: Target
    notes: list[str] = dataclasses.field(default_factory=list)
    delta: float | None = None

    @property
    def value(self) -> float:
        return self.stats[OPKIT].median

    def ratio(self, name: str = OPKIT) -> float | None:
        base = self.stats.get(self.baseline)
        return self.stats[name].median / base.median if base and base.median > 0 else None

    @property
    def met(self) -> bool:
        if self.target.kind == "ratio":
            return self.ratio() is not None and self.ratio() <= self.target.limit
        if self.target.kind == "over":
            return self.delta is not None and self.delta <= self.target.limit
        return self.value <= self.target.limit

    def as_dict(self) -> dict:
        return {"name": self.name, "title": self.title, "unit": self.unit, "baseline": self.baseline,
                "target": {"kind": self.target.kind, "limit": self.target.limit,
                           "text": self.target.describe(self.baseline, self.unit)},
                "opkit": self.value, "ratio": self.ratio(), "delta": self.delta, "met": self.met,
                "contenders": {name: s.as_dict() for name, s in self.stats.items()}, "notes": self.notes}


def paired_delta(first: Stats, second: Stats) -> float:
    """Return the median of per-round differences first - second (robust to drift over the run)."""
    pairs = sorted(a - b for a, b in zip(first.samples, second.samples))
    middle = len(pairs) // 2
    return pairs[middle] if len(pairs) % 2 else (pairs[middle - 1] + pairs[middle]) / 2


def number(value: float | None) -> str:
    """Format a measurement with 3 significant digits (no exponent for everyday magnitudes)."""
    if value is None:
        return "-"
    return f"{value:.3g}" if abs(value) >= 1e-3 else f"{value:.2e}"


def _times(ratio: float | None) -> str:
    return "-" if ratio is None else f"{number(ratio)}x"


def table(header: list[str], rows: list[list[str]]) -> str:
    """Return a Markdown table whose columns are padded to line up in a terminal."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(header), rule, *map(line, rows)])


def detail_table(figure: Figure) -> str:
    """Return every contender's median/min/max and its ratio to the figure's baseline."""
    rows = []
    for name, stats in figure.stats.items():
        mark = " (baseline)" if name == figure.baseline else ""
        rows.append([name + mark, number(stats.median), number(min(stats.samples)),
                     number(max(stats.samples)), str(len(stats.samples)), _times(figure.ratio(name))])
    unit = figure.unit
    return table(["contender", f"median {unit}", f"min {unit}", f"max {unit}", "n", "ratio"], rows)


def summary_row(figure: Figure) -> list[str]:
    """Return the summary cells: figure | opkit | baseline | ratio | target | met?."""
    unit = figure.unit
    base = figure.stats.get(figure.baseline)
    baseline = f"{number(base.median)} {unit} ({figure.baseline})" if base else "-"
    opkit = f"{number(figure.value)} {unit}"
    if figure.delta is not None:
        opkit += f" (+{number(figure.delta)})" if figure.delta >= 0 else f" ({number(figure.delta)})"
    return [figure.title, opkit, baseline, _times(figure.ratio()),
            figure.target.describe(figure.baseline, unit), "yes" if figure.met else "NO"]


def summary_table(figures: list[Figure]) -> str:
    return table(["figure", "opkit", "baseline", "ratio", "target", "met?"], [summary_row(f) for f in figures])
