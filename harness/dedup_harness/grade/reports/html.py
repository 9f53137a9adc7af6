"""``grade --html FILE``: the batch as one self-contained page for course staff.

The score distribution, each check's failure rate, the pitfalls the class fell into (ranked by how
many submissions show them), submissions whose worker refused attempts flagged, and a sortable table
of submissions, each linking to its full feedback further down the same page. Plots are inline SVG
(``core.svg``), the page a Jinja2 template (``templates/grade.html.j2``) with autoescaping on: nothing
a submission printed or named can become markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markupsafe import Markup
from matplotlib.ticker import MaxNLocator

from dedup_harness.core import pages, svg
from dedup_harness.grade.report import GradeReport, batch_warning
from dedup_harness.grade.reports.class_view import ClassView, class_view
from dedup_harness.grade.reports.fields import fields_of
from dedup_harness.grade.scoring import points_text

EXACT, PARTLY = "#8250df", "#d8b9ff"  # the pitfalls chart's two shades
PROTECTIONS_SHOWN = ("tier", "network", "user", "process_namespace", "harness_files_hidden", "notes")


def render(reports: Sequence[GradeReport], summary: dict[str, Any]) -> str:
    view = class_view(reports)
    env = pages.environment(__package__ or "")
    env.filters["points"] = points_text  # exact points, as every other report writes them
    return pages.render(
        env,
        "grade.html.j2",
        title=f"dedup-harness grade: {len(reports)} submission(s)",
        summary=summary,
        warning=batch_warning(reports),
        view=view,
        plots=plots(view),
        fields_of=fields_of,
        protections_shown=PROTECTIONS_SHOWN,
    )


def plots(view: ClassView) -> dict[str, Markup]:
    with svg.plotting():
        drawn = {"scores": _scores(view), "rates": _rates(view)}
        if view.pitfalls:
            drawn["pitfalls"] = _pitfalls(view)
    return drawn


def _scores(view: ClassView) -> Markup:
    graded = view.graded
    top = float(max((r.max_score for r in graded), default=1) or 1)
    bins = int(top) if float(top).is_integer() and top <= 40 else 20
    fig = svg.figure(7, 2.6, bottom=0.6)
    ax = fig.subplots()
    ax.hist([float(r.score) for r in graded], bins=bins, range=(0, top), color="#0969da", edgecolor="white")
    ax.set_xlabel(f"score (of {top:g})")
    ax.set_ylabel("submissions")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(f"score distribution: {len(graded)} graded submission(s)", loc="left")
    return svg.to_svg(fig, label="score distribution")


def _rates(view: ClassView) -> Markup:
    rates = list(reversed(view.rates))  # check 1 at the top
    labels = [f"{r.number}. {r.name}" for r in rates]
    left = svg.text_width(labels, 8)
    fig = svg.figure(left + 4.5, 0.25 * len(rates) + 1.0, left=left, bottom=0.55, top=0.35)
    ax = fig.subplots()
    ax.tick_params(axis="y", labelsize=8)
    ax.barh(labels, [100 * r.rate for r in rates], color="#cf222e")
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of graded submissions that lost it (how many: the table below)")
    ax.set_title("each check's failure rate", loc="left")
    return svg.to_svg(fig, label="failure rate per check")


def _pitfalls(view: ClassView) -> Markup:
    shown = list(reversed(view.pitfalls))
    labels = [p.mutant for p in shown]
    fig = svg.figure(7, 0.3 * len(shown) + 1.0, left=0.6)
    ax = fig.subplots()
    ax.barh(labels, [p.exact for p in shown], color=EXACT)
    ax.barh(labels, [p.partly for p in shown], left=[p.exact for p in shown], color=PARTLY)
    ax.set_xlabel("submissions that fail like the mutant: dark exactly, light partly")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title("pitfalls the class fell into", loc="left")
    return svg.to_svg(fig, label="pitfalls ranked")
