"""``grade --gradescope DIR``: Gradescope's ``results.json`` for one submission.

One test per check, numbered from "1" in the suite's order, with its points and its feedback in plain
words. A check that lost on cases its course holds back (``grade --hidden-seed``) says so without them,
and a test of no points after it (numbered "N.1") holds them, shown after the due date alone. The
student's own printed output never goes into what students see: the autograder's stdout (where staff
find it) is hidden with ``stdout_visibility``.
"""

from __future__ import annotations

import json
from typing import Any

from dedup_harness.core.outcome import Outcome
from dedup_harness.core.provenance import here
from dedup_harness.grade.reports import harmless
from dedup_harness.grade.reports.model import CheckReport, GradeReport, Status, attempts_heading, modules_line
from dedup_harness.grade.scoring import points_number, points_text, shares

VISIBLE = "visible"
HIDDEN = "hidden"
AFTER_DUE_DATE = "after_due_date"


def results(report: GradeReport) -> dict[str, Any]:
    """Gradescope's results: each test's points as written add up exactly to the total (``scoring.shares``)."""
    maxima = shares([check.max_score for check in report.checks], report.max_score)
    return {
        "score": points_number(report.score),
        "execution_time": report.seconds,
        "extra_data": {"harness_version": here().version, "dependencies": here().digest},
        "output": overview(report),
        "output_format": "text",
        "stdout_visibility": HIDDEN,
        "visibility": VISIBLE,
        "tests": [entry for check, top in zip(report.checks, maxima, strict=True) for entry in tests(check, top)],
    }


def tests(check: CheckReport, top: Any) -> list[dict[str, Any]]:
    """A check's test, with what students may read before the due date; and, when it lost on cases its course
    holds back, a test of no points holding those, shown only after the due date (``after_due_date``)."""
    shown = check.feedback.for_students() if check.feedback else None
    test = {
        "name": check.name,
        "number": str(check.number),
        "score": top if check.score == check.max_score else points_number(check.score),
        "max_score": top,
        "status": "passed" if check.outcome is Outcome.PASSED else "failed",
        "output": shown.text() if shown else "Passed.",
        "output_format": "text",
        "visibility": VISIBLE,
    }
    if check.feedback is None or shown is check.feedback:
        return [test]
    held_back = {
        "name": f"{check.name}: the cases held back",
        "number": f"{check.number}.1",
        "output": check.feedback.text(),
        "output_format": "text",
        "visibility": AFTER_DUE_DATE,
    }
    return [test, held_back]


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


def render(report: GradeReport) -> str:
    """``results.json``, every string in it made harmless (``harmless.tree``): Gradescope shows them as they are."""
    return json.dumps(harmless.tree(results(report)), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
