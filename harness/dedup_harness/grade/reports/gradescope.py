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
from dedup_harness.grade.feedback import CheckFeedback
from dedup_harness.grade.reports import harmless
from dedup_harness.grade.reports.model import CheckReport, GradeReport
from dedup_harness.grade.reports.platform import checks_shown, overview
from dedup_harness.grade.scoring import points_number

VISIBLE = "visible"
HIDDEN = "hidden"
AFTER_DUE_DATE = "after_due_date"


def results(report: GradeReport) -> dict[str, Any]:
    """Gradescope's results: each test's points as written add up exactly to the total (``platform.checks_shown``)."""
    return {
        "score": points_number(report.score),
        "execution_time": report.seconds,
        "extra_data": {"harness_version": here().version, "dependencies": here().digest},
        "output": overview(report),
        "output_format": "text",
        "stdout_visibility": HIDDEN,
        "visibility": VISIBLE,
        "tests": [entry for shown in checks_shown(report) for entry in tests(*shown)],
    }


def tests(check: CheckReport, points: Any, top: Any, shown: CheckFeedback | None) -> list[dict[str, Any]]:
    """A check's test, with what students may read before the due date (``shown``); and, when it lost on cases its
    course holds back, a test of no points holding those, shown only after the due date (``after_due_date``)."""
    test = {
        "name": check.name,
        "number": str(check.number),
        "score": points,
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


def render(report: GradeReport) -> str:
    """``results.json``, every string in it made harmless (``harmless.tree``): Gradescope shows them as they are."""
    return json.dumps(harmless.tree(results(report)), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
