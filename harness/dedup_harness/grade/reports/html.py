"""``grade --html FILE``: the batch as one self-contained page for course staff.

The score distribution (one bar per score), each check's failure rate, the pitfalls the class fell
into (ranked by how many submissions show them), submissions whose worker refused attempts flagged,
with ``--similarity`` the pairs found alike (their shared passages side by side), and a sortable
table of submissions, each linking to its feedback further down the same page, folded until opened.
The feedback says what the terminal says: what each lost check asserts, the minimal case with
expected beside got (a "!" where they differ), the tier and protections in sentences; the record
behind them (shrunk, tries, the raw protections) is the JSON report's. Plots are inline SVG
(``core.svg``), the page a Jinja2 template (``templates/grade.html.j2``) with autoescaping on, and
every value it writes passes through ``harmless.text`` first (``finalize``): nothing a submission
printed or named can become markup, a control character or a reordering of the text.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from markupsafe import Markup
from matplotlib.ticker import MaxNLocator

from dedup_harness.core import pages, svg
from dedup_harness.grade.minimize import look_alike
from dedup_harness.grade.minimize import text as case_view
from dedup_harness.grade.reports import harmless, words
from dedup_harness.grade.reports.class_view import ClassView, class_view
from dedup_harness.grade.reports.model import GradeReport, batch_warning
from dedup_harness.grade.scoring import points_text
from dedup_harness.grade.similarity import Similarity

EXACT, PARTLY = "#8250df", "#d8b9ff"  # the pitfalls chart's two shades
EVERY_SCORE_UP_TO = 40  # whole-number scores up to this many points get a bar each, empty ones too


def render(reports: Sequence[GradeReport], summary: dict[str, Any], copies: Similarity | None = None) -> str:
    """The page; ``copies`` (grade --similarity) adds the pairs found alike, with their passages side by side."""
    view = class_view(reports)
    env = pages.environment(__package__ or "", finalize=_harmless)
    env.filters["points"] = points_text  # exact points, as every other report writes them
    return pages.render(
        env,
        "grade.html.j2",
        title=f"dedup-harness grade: {len(reports)} submission(s)",
        summary=summary,
        warning=batch_warning(reports),
        view=view,
        plots=plots(view),
        words=words,
        case_view=case_view,
        look_alike=look_alike.case_notes,
        repeats=_repeats,
        copies=copies,
        anchors={entry.report.submission: entry.anchor for entry in view.entries},
    )


def _harmless(value: Any) -> Any:
    """What the page writes of a value: text made harmless; markup the page made itself (the plots) as it is."""
    return harmless.text(value) if isinstance(value, str) and not isinstance(value, Markup) else value


def _repeats(report: GradeReport) -> dict[int, int]:
    return case_view.repeats([(c.number, c.feedback.minimal_case if c.feedback else None) for c in report.checks])


def plots(view: ClassView) -> dict[str, Markup]:
    with svg.plotting():
        drawn = {"scores": _scores(view), "rates": _rates(view)}
        if view.pitfalls:
            drawn["pitfalls"] = _pitfalls(view)
    return drawn


def score_bars(view: ClassView) -> list[tuple[Fraction, int]]:
    """(score, submissions) for each bar of the distribution: every whole score from 0 to the maximum when the
    scores are whole and few, else each score some submission got. One bar per score, never a bin of two."""
    graded = view.graded
    counts = Counter(r.score for r in graded)
    top = max((r.max_score for r in graded), default=0)
    whole = top.denominator == 1 and all(score.denominator == 1 for score in counts)
    scores = [Fraction(n) for n in range(int(top) + 1)] if whole and top <= EVERY_SCORE_UP_TO else sorted(counts)
    return [(score, counts.get(score, 0)) for score in scores]


def _scores(view: ClassView) -> Markup:
    bars = score_bars(view)
    top = max((float(r.max_score) for r in view.graded), default=1.0) or 1.0
    fig = svg.figure(7, 2.6, bottom=0.6)
    ax = fig.subplots()
    positions = [float(score) for score, _ in bars]
    drawn = ax.bar(positions, [n for _, n in bars], width=0.8 * _spacing(positions, top), color="#0969da")
    labels = ax.bar_label(drawn, labels=[str(n) if n else "" for _, n in bars], fontsize=7)
    for (score, _), bar, label in zip(bars, drawn, labels, strict=True):
        bar.set_gid(f"score-bar-{points_text(score)}")  # the page's tests find each bar by its score
        label.set_gid(f"score-count-{points_text(score)}")
    if len(bars) <= EVERY_SCORE_UP_TO + 1:
        ax.set_xticks(positions, [points_text(score) for score, _ in bars], fontsize=7)
    ax.set_xlabel(f"score (of {top:g})")
    ax.set_ylabel("submissions")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(f"score distribution: {len(view.graded)} graded submission(s), one bar per score", loc="left")
    return svg.to_svg(fig, label="score distribution")


def _spacing(positions: list[float], top: float) -> float:
    """The narrowest gap between two bars' scores: bars that wide never touch."""
    gaps = [b - a for a, b in itertools.pairwise(positions)]
    return min(gaps, default=max(top, 1.0) / 20)


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


PITFALL_LABEL = 48  # characters of a pitfall's words beside its mutant on the chart's axis


def _pitfalls(view: ClassView) -> Markup:
    """How many submissions show each pitfall, most first: a bar each, its count written at its end, exact
    matches dark and partial ones light, with a legend; each bar named by its mutant and its words."""
    shown = list(reversed(view.pitfalls))
    labels = [_cut(f"{p.mutant}: {p.pitfall}", PITFALL_LABEL) for p in shown]
    left = svg.text_width(labels, 8)
    fig = svg.figure(left + 4.0, 0.3 * len(shown) + 1.2, left=left)
    ax = fig.subplots()
    ax.tick_params(axis="y", labelsize=8)
    exact = ax.barh(labels, [p.exact for p in shown], color=EXACT, label="fails exactly like it")
    partly = ax.barh(labels, [p.partly for p in shown], left=[p.exact for p in shown], color=PARTLY,
                     label="fails partly like it (with another)")  # fmt: skip
    ax.bar_label(partly, labels=[str(p.total) for p in shown], padding=3, fontsize=8)
    ax.set_xlim(0, max(p.total for p in shown) * 1.15 + 0.5)
    ax.set_xlabel("submissions")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    handles = [h for h, n in ((exact, sum(p.exact for p in shown)), (partly, sum(p.partly for p in shown))) if n]
    ax.legend(handles=handles, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncols=2, fontsize=8, frameon=False)
    ax.set_title("pitfalls the class fell into", loc="left")
    return svg.to_svg(fig, label="pitfalls ranked")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
