"""``audit-bloom --html FILE``: each audited filter on one self-contained page, with plots.

Per target: promised against delivered rate by size (log scale; a case that saw no false positive is
drawn hollow at half of one hit), the worst fraction of reachable bits per size family, the faults,
and the case table; then the datatrove bloommask report.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup

from dedup_harness.bloom_audit import html_compare, plot_axes
from dedup_harness.bloom_audit.datatrove_mask import BloommaskReport
from dedup_harness.bloom_audit.model import AuditReport, CaseReport
from dedup_harness.bloom_audit.summary import family_summaries
from dedup_harness.bloom_audit.throughput import Throughput
from dedup_harness.core import pages, svg


def render(reports: Sequence[AuditReport], bloommask: BloommaskReport | None, speeds: Sequence[Throughput] = ()) -> str:
    side_by_side = len(reports) > 1
    with svg.plotting():
        targets = [(report, _shipped(report), rate_plot(report), reach_plot(report)) for report in reports]
        compare = {
            "ratios": html_compare.ratio_plot(reports) if side_by_side else None,
            "bits": html_compare.bits_plot(reports) if side_by_side else None,
            "speed": html_compare.throughput_plot(speeds),
        }
    return pages.render(
        pages.environment(__package__ or ""),
        "audit.html.j2",
        title="dedup-harness audit-bloom: " + ", ".join(r.target for r in reports),
        targets=targets,
        summary=[s for report in reports for s in family_summaries(report)] if side_by_side else [],
        compare=compare,
        speeds=speeds,
        bloommask=bloommask,
        passed=all(r.passed for r in reports),
    )


def _shipped(report: AuditReport) -> list[CaseReport]:
    return sorted((row for row in report.rows if not row.control), key=lambda row: (row.size, row.case))


def _measured(report: AuditReport) -> list[CaseReport]:
    """The shipped cases that ran (a case the filter cannot express has no rate to draw)."""
    return [row for row in _shipped(report) if row.promised_rate is not None and row.delivered_rate is not None]


def rate_plot(report: AuditReport) -> Markup:
    rows = _measured(report)
    positions = range(len(rows))
    floor = [0.5 / row.queries for row in rows]  # half a hit: where "none seen" sits on a log axis
    fig, ax = plot_axes.cases_figure([plot_axes.case_label(row) for row in rows], height=2.9, legend=1.6)
    ax.set_yscale("log")
    promised = [row.promised_rate or 0.0 for row in rows]
    tolerated = [max(row.tolerated / row.queries, f) for row, f in zip(rows, floor, strict=True)]
    ax.scatter(
        positions, promised, marker="o", s=80, facecolors="none", edgecolors="#0969da", label="promised", zorder=5
    )
    ax.scatter(positions, tolerated, marker="_", s=200, color="#57606a", label="tolerated (binomial)", zorder=2)
    seen = [(x, row) for x, row in zip(positions, rows, strict=True) if row.false_positives]
    unseen = [(x, f) for x, row, f in zip(positions, rows, floor, strict=True) if not row.false_positives]
    colours = ["#cf222e" if row.verdict == "fail" else "#1a7f37" for _, row in seen]
    delivered = [row.delivered_rate or 0.0 for _, row in seen]
    ax.scatter([x for x, _ in seen], delivered, marker="D", color=colours, label="delivered", zorder=4)
    if unseen:
        xs, ys = zip(*unseen, strict=True)
        ax.scatter(xs, ys, marker="D", facecolors="none", edgecolors="#1a7f37", label="delivered: none seen", zorder=4)
    ax.set_ylabel("false-positive rate (log)")
    title = f"{report.target}: promised against delivered false-positive rate, by size"
    return plot_axes.finish(fig, ax, title=title, label=f"{report.target} promised against delivered rate")


def reach_plot(report: AuditReport) -> Markup | None:
    """The worst fraction of reachable bits in each size family; None when the filter exposes no indexes."""
    worst = {s.family: s.reachable_fraction for s in family_summaries(report) if s.reachable_fraction is not None}
    if not worst:
        return None
    left = svg.text_width(worst)
    fig = svg.figure(left + 4.5, 0.35 * len(worst) + 1.1, left=left, bottom=0.55)
    ax = fig.subplots()
    families = list(reversed(worst))
    values = [worst[f] for f in families]
    bars = ax.barh(families, values, color=["#1a7f37" if v >= 1 else "#cf222e" for v in values])
    ax.bar_label(bars, labels=[f"{v:.2g}" for v in values], padding=2, fontsize=8)
    ax.set_xlim(0, 1.1)
    ax.set_xlabel("reachable bits / allocated bits (worst case of the family)")
    ax.set_title(f"{report.target}: reachable bits per size family", loc="left")
    return svg.to_svg(fig, label=f"{report.target} reachable bits per size family")
