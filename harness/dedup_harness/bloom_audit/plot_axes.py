"""The audit plots' axes: tick labels that never repeat and never run into each other.

matplotlib's log locator labels decades only, or on a short range every minor tick as 2 x 10^0. A
log axis here gets the densest round numbers whose neighbours stay a label apart, written plainly;
a case gets a column as wide as its label, which names what it asked for (high rates share a size).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Sequence
from itertools import pairwise

from markupsafe import Markup
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from dedup_harness.bloom_audit.model import CaseReport
from dedup_harness.core import svg

CASE_FONT = 7.0  # points, for the case names under a plot
LINE = CASE_FONT * 1.3 / 72  # inches a line of a case name takes
ROUND = ((1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9), (1, 1.5, 2, 3, 5, 7), (1, 2, 5), (1, 3), (1,))  # densest first


def plain(value: float) -> str:
    """``0.01``, ``1.5``, ``1e-28``: the shortest form that keeps the number."""
    mantissa, _, exponent = f"{value:g}".partition("e")
    return f"{mantissa}e{int(exponent)}" if exponent else mantissa


def round_numbers(low: float, high: float) -> list[list[float]]:
    """Candidate tick sets between ``low`` and ``high``, densest first: round mantissas, then sparser decades."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    sets = [[float(f"{m}e{e}") for e in range(first, last + 1) for m in mantissas] for mantissas in ROUND]
    sets += [[float(f"1e{e}") for e in range(first, last + 1) if e % step == 0] for step in range(2, last - first + 1)]
    return [[t for t in ticks if low <= t <= high] for ticks in sets]


def label_log_axis(fig: Figure, ax: Axes, which: str, fmt: Callable[[float], str] = plain) -> None:
    """Ticks at round numbers on ``ax``'s log ``which`` axis ("x" or "y"), as many as fit without touching.

    Call it once everything is drawn: it reads the axis's limits and its length on the page.
    """
    across = which == "x"
    axis: Axis = ax.xaxis if across else ax.yaxis
    low, high = sorted(ax.get_xlim() if across else ax.get_ylim())
    box, (width, height) = ax.get_position(), fig.get_size_inches()
    per_decade = (box.width * width if across else box.height * height) / math.log10(high / low)
    for ticks in round_numbers(low, high):
        labels = [fmt(t) for t in ticks]
        room = svg.text_width(labels) if across else 1.8 * svg.SETTINGS["font.size"] / 72
        if len(set(labels)) == len(labels) and all(math.log10(b / a) * per_decade >= room for a, b in pairwise(ticks)):
            axis.set_ticks(ticks, labels)
            break
    axis.set_minor_formatter(NullFormatter())


def case_label(row: CaseReport) -> str:
    """A case under a plot: its family in short lines, its size, its capacity, then its rate or given k."""
    asked = f"p={row.asked_rate:.3g}" if row.asked_rate is not None else f"k={row.given_k}" if row.given_k else ""
    lines = [*textwrap.wrap(row.family, 12), f"{row.size:,}", f"n={row.capacity:,}", asked]
    return "\n".join(line for line in lines if line)


def cases_figure(labels: Sequence[str], *, height: float, legend: float) -> tuple[Figure, Axes]:
    """A figure with a column per case, wide enough for its label's lines, and ``legend`` inches on the right."""
    lines = [line for label in labels for line in label.split("\n")]
    step = max(0.62, svg.text_width(lines, CASE_FONT))
    bottom = 0.3 + LINE * max((label.count("\n") + 1 for label in labels), default=1)
    fig = svg.figure(max(6.0, step * len(labels) + 1.5) + legend, height + bottom, left=0.8, bottom=bottom)
    fig.subplots_adjust(right=1 - legend / fig.get_figwidth())
    ax = fig.subplots()
    ax.set_xticks(range(len(labels)), labels, fontsize=CASE_FONT)
    return fig, ax


def finish(fig: Figure, ax: Axes, *, title: str, label: str, log: str = "y") -> Markup:
    """The ``log`` axes labelled, the title at the left, the legend to the right, and the figure as SVG."""
    for which in log:
        label_log_axis(fig, ax, which)
    ax.set_title(title, loc="left")
    ax.legend(fontsize=7, frameon=False, loc="lower left", bbox_to_anchor=(1.0, 0.0))
    return svg.to_svg(fig, label=label)
