"""The side-by-side figures of ``audit-bloom --html``: every library on one set of axes.

Delivered over promised rate case by case, bits per item against the textbook formula, and inserts and
queries per second. Only the libraries audited on the shared rate-sized cases are drawn in the first
two: datatrove is sized in bytes, and its own figures follow.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup
from matplotlib.ticker import EngFormatter

from dedup_harness.bloom_audit import plot_axes
from dedup_harness.bloom_audit.model import AuditReport, CaseReport
from dedup_harness.bloom_audit.summary import formula_bits_per_item
from dedup_harness.bloom_audit.throughput import Throughput
from dedup_harness.core import svg

MARKERS = "osD^v<>pPX*h"


def _rate_sized(reports: Sequence[AuditReport]) -> list[tuple[AuditReport, list[CaseReport]]]:
    shown = []
    for report in reports:
        rows = [r for r in report.rows if not r.control and r.asked_rate is not None]
        if rows:
            shown.append((report, sorted(rows, key=lambda r: (r.size, r.capacity))))
    return shown


def _ratio(row: CaseReport) -> float | None:
    if row.delivered_rate is None or not row.promised_rate:
        return None
    return max(row.delivered_rate, 0.5 / row.queries) / row.promised_rate  # none seen: half a hit


def ratio_plot(reports: Sequence[AuditReport]) -> Markup | None:
    shown = _rate_sized(reports)
    if not shown:
        return None
    by_case = {row.case: row for _, rows in shown for row in rows}
    cases = list(by_case)
    fig, ax = plot_axes.cases_figure([plot_axes.case_label(row) for row in by_case.values()], height=3.1, legend=1.9)
    ax.set_yscale("log")
    ax.axhline(1.0, color="#57606a", linewidth=0.8)
    for (report, rows), marker in zip(shown, MARKERS, strict=False):
        points = [(cases.index(r.case), y, r) for r in rows if (y := _ratio(r)) is not None]
        ax.scatter([x for x, _, _ in points], [y for _, y, _ in points], marker=marker, s=28, label=report.target)
        bad = [(x, y) for x, y, r in points if r.verdict == "fail"]
        ax.scatter(
            [x for x, _ in bad], [y for _, y in bad], marker=marker, s=90, facecolors="none", edgecolors="#cf222e"
        )
    tolerated = {
        r.case: r.tolerated / r.queries / r.promised_rate for _, rows in shown for r in rows if r.promised_rate
    }
    ax.scatter([cases.index(c) for c in tolerated], list(tolerated.values()), marker="_", s=160, color="#8c959f")
    ax.set_ylabel("delivered / promised (log; red ring: fail)")
    title = "every library: delivered over promised false-positive rate, by size"
    return plot_axes.finish(fig, ax, title=title, label="every library delivered over promised rate")


def bits_plot(reports: Sequence[AuditReport]) -> Markup | None:
    shown = _rate_sized(reports)
    if not shown:
        return None
    fig = svg.figure(7.5, 4.2, left=0.8, bottom=0.6)
    fig.subplots_adjust(right=1 - 1.9 / fig.get_figwidth())
    ax = fig.subplots()
    ax.set_xscale("log")
    ax.set_yscale("log")
    every: list[float] = []
    for (report, rows), marker in zip(shown, MARKERS, strict=False):
        points = [
            (x, r.allocated_bits / r.capacity)
            for r in rows
            if r.allocated_bits and (x := formula_bits_per_item(r)) is not None
        ]
        every += [v for point in points for v in point]
        ax.scatter([x for x, _ in points], [y for _, y in points], marker=marker, s=28, label=report.target)
    if every:
        ax.plot([min(every), max(every)], [min(every), max(every)], color="#57606a", linewidth=0.8, label="formula")
    ax.set_xlabel("formula: -ln p / (ln 2)**2 bits per item")
    ax.set_ylabel("allocated bits per item (m / n)")
    title = "every library: bits per item allocated against the formula"
    return plot_axes.finish(fig, ax, title=title, label="every library bits per item against the formula", log="xy")


def throughput_plot(speeds: Sequence[Throughput]) -> Markup | None:
    measured = [t for t in speeds if t.inserts_per_second and t.queries_per_second]
    if not measured:
        return None
    names = [t.target for t in measured]
    left = svg.text_width(names)
    fig = svg.figure(left + 5.5, 0.45 * len(measured) + 1.2, left=left, bottom=0.6)
    ax = fig.subplots()
    ax.set_xscale("log")
    rows = range(len(measured))
    ax.barh([y + 0.2 for y in rows], [t.inserts_per_second or 0 for t in measured], 0.4, label="inserts/s")
    ax.barh([y - 0.2 for y in rows], [t.queries_per_second or 0 for t in measured], 0.4, label="queries/s")
    ax.set_yticks(list(rows), names, fontsize=8)
    first = measured[0]
    ax.set_xlabel(f"per second at n = {first.capacity:,}, p = {first.error_rate:g} (log; one run)")
    plot_axes.label_log_axis(fig, ax, "x", EngFormatter(sep=""))  # 50k, 1M, 20M
    ax.legend(fontsize=7, frameon=False)
    return svg.to_svg(fig, label="inserts and queries per second")
