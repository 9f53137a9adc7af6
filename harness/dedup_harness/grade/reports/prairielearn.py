"""``grade --prairielearn DIR``: PrairieLearn's ``results.json`` for one submission (docs/reports.md): the share of
full marks, plain texts without a case held back, ``gradable: false`` for code that does not compile or import (unless
it ``costs_attempt``), and the texts cut until the file is under PrairieLearn's 1 MB."""

from __future__ import annotations

import json
from typing import Any

from dedup_harness.grade.reports import harmless
from dedup_harness.grade.reports.model import GradeReport, Status
from dedup_harness.grade.reports.platform import checks_shown, overview

LIMIT = 1024 * 1024  # bytes: PrairieLearn refuses a larger results.json
FORMAT_ERRORS = 20  # problem lines at most (each at most harmless.LINE_LIMIT characters): all are in the output


def results(report: GradeReport, *, costs_attempt: bool = False) -> dict[str, Any]:
    """PrairieLearn's results (``gradable`` and ``format_errors`` for a submission it cannot grade)."""
    tests = [
        {
            "name": f"{check.number}. {check.name}",
            "points": points,
            "max_points": top,
            "message": shown.headline if shown else "Passed.",
            "output": shown.text() if shown else "",
        }
        for check, points, top, shown in checks_shown(report)
    ]
    share = float(report.score / report.max_score) if report.max_score else 1.0
    document = {"gradable": True, "score": share, "output": overview(report), "tests": tests}
    broken = report.status is Status.HARNESS_ERROR
    if broken or (report.problems and not report.score and not costs_attempt):
        errors = report.problems if not broken else ["The grader failed; this is not a verdict on your code."]
        document |= {"gradable": False, "format_errors": [harmless.line(problem) for problem in errors[:FORMAT_ERRORS]]}
    return document


def render(report: GradeReport, *, costs_attempt: bool = False) -> str:
    """``results.json``, every string made harmless, each text halved until it fits."""
    document = harmless.tree(results(report, costs_attempt=costs_attempt))
    while len((text := json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()) > LIMIT:
        for part in [document, *document["tests"]]:
            part["output"] = part["output"][: len(part["output"]) // 2]
    return text
