"""What the platforms students submit to show alike (Gradescope, PrairieLearn): the overview, and each check with
its points as written and what its student may read (never a case the course holds back)."""

from __future__ import annotations

from collections.abc import Iterator

from dedup_harness.core.provenance import here
from dedup_harness.grade.feedback import CheckFeedback
from dedup_harness.grade.reports import harmless
from dedup_harness.grade.reports.model import CheckReport, GradeReport, Status, attempts_heading, modules_line
from dedup_harness.grade.scoring import points_number, points_text, shares


def checks_shown(report: GradeReport) -> Iterator[tuple[CheckReport, int | float, int | float, CheckFeedback | None]]:
    """Each check, its points and maximum as written, and what its student may read (None: it passed)."""
    maxima = shares([check.max_score for check in report.checks], report.max_score)
    for check, top in zip(report.checks, maxima, strict=True):
        points = top if check.score == check.max_score else points_number(check.score)
        yield check, points, top, check.feedback.for_students() if check.feedback else None


def overview(report: GradeReport) -> str:
    """The text above the tests: a run without isolation says so first; the score, what stopped checks from
    running, what the code tried that the grader refused, and the diagnosis."""
    first = [f"WARNING: {report.warning}", ""] if report.warning else []
    if report.status is Status.HARNESS_ERROR:
        return "\n".join(
            [
                *first,
                "The grader failed on this submission; this is not a verdict on your code. Course staff have the "
                "details.",
                "",
                graded_by(),
            ]
        )
    lines = [*first, f"Score: {points_text(report.score)} / {points_text(report.max_score)}.", modules_line(report)]
    if report.problems:
        lines += ["", "Problems found before the checks ran:", *(f"- {harmless.line(p)}" for p in report.problems)]
    if report.unjudged:
        lines += ["", f"{harmless.line(report.unjudged[:1].upper() + report.unjudged[1:].rstrip('.'))}."]
    heading = attempts_heading(report)
    if heading:
        heading = f"What your code tried that the grader does not allow ({heading}):"
        tried = [f"- {harmless.line(a)}" for a in report.attempts]  # one line each: none passes for another
        lines += ["", heading, *tried]
    if report.diagnosis:
        heading = (
            "What the failures look like:"
            if report.diagnosis[0].exact
            else "What the failures look like (two pitfalls together explain every check lost):"
        )
        lines += ["", heading, *(f"- {d.line()}" for d in report.diagnosis)]
    return "\n".join([*lines, "", isolated(report), graded_by()])


ISOLATION_PAGE = "docs/isolation.md"  # in the harness the course grades with: what each tier protects


def isolated(report: GradeReport) -> str:
    """What a student is told of the sandbox: one line (the protections in force are for staff)."""
    tier = report.protections.get("tier")
    if not tier or tier == "none":
        return "Your code ran without isolation."
    return f"Your code ran isolated from the grader, the network and other submissions ({tier}; {ISOLATION_PAGE})."


def graded_by() -> str:
    """The last line: what graded (a regrade with the same line draws the same examples)."""
    return f"Graded by {here().line()}."
