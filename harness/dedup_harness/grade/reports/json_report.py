"""``grade --json``: every report and the batch summary as one JSON document.

The schema is ``grade.schema.json`` beside this module (JSON Schema, draft 2020-12). Keys are
sorted; timing lives only in ``seconds``. Every string goes through ``harmless``: a reader that shows
a message as it is (a terminal, a web page) is shown no control character.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dedup_harness.core.impl_roots import OWN_MODULES, THE_COURSES, YOURS
from dedup_harness.core.provenance import here
from dedup_harness.grade.feedback import CheckFeedback
from dedup_harness.grade.minimize import look_alike
from dedup_harness.grade.reports import harmless
from dedup_harness.grade.reports.class_view import class_view
from dedup_harness.grade.reports.model import GradeReport, batch_warning
from dedup_harness.grade.scoring import points_number
from dedup_harness.grade.similarity import Similarity

SCHEMA_ID = "dedup-harness/grade/1"
SCHEMA_PATH = Path(__file__).with_name("grade.schema.json")


def modules(report: GradeReport) -> dict[str, str]:
    """Whose each module of ``corpus`` was: the student's dedup.py, and their own earlier modules or the course's."""
    return {"dedup": YOURS, **{name: YOURS if name in report.own_modules else THE_COURSES for name in OWN_MODULES}}


def report_dict(report: GradeReport) -> dict[str, Any]:
    return {
        "submission": report.submission,
        "status": str(report.status),
        "score": points_number(report.score),
        "max_score": points_number(report.max_score),
        "problems": list(report.problems),
        "modules": modules(report),
        "harness_error": report.harness_error,
        "unjudged": report.unjudged,
        "why_zero": report.why_zero,
        "diagnosis": [
            {"mutant": d.mutant, "pitfall": d.pitfall, "checks": list(d.checks), "exact": d.exact}
            for d in report.diagnosis
        ],
        "checks": [
            {
                "number": check.number,
                "name": check.name,
                "outcome": str(check.outcome),
                "score": points_number(check.score),
                "max_score": points_number(check.max_score),
                **feedback_dict(check.feedback),
            }
            for check in report.checks
        ],
        "protections": report.protections,
        "attempts": list(report.attempts),
        "warning": report.warning,
        "student_output": report.student_output,
        "held_back_output": report.held_back_output,
        "seconds": report.seconds,
    }


def feedback_dict(feedback: CheckFeedback | None) -> dict[str, Any]:
    """A lost check's feedback: ``feedback``, the words a student may read before the due date; ``cases``, every
    case it lost as fields (those held back marked: for staff); its minimal case."""
    case = feedback.minimal_case if feedback else None
    return {
        "asserts": feedback.asserts if feedback else "",
        "feedback": list(feedback.for_students().lines) if feedback else [],
        "cases": [c.as_dict() for c in feedback.cases] if feedback else [],
        "minimal_case": case.as_dict() if case else None,
        "look_alike": look_alike.case_notes(case) if case else [],
        "held_back": bool(feedback and feedback.held_back),
    }


def document(
    reports: Sequence[GradeReport], summary: dict[str, Any], copies: Similarity | None = None
) -> dict[str, Any]:
    # "isolation_warning" sorts first: a run without isolation says so before anything else.
    made_by = here()
    found = {"similarity": copies.as_json()} if copies is not None else {}  # --similarity: for staff alone
    return {
        **found,
        "provenance": {
            "version": made_by.version,
            "dependencies": made_by.digest,
            "packages": list(made_by.dependencies),
        },
        "isolation_warning": batch_warning(reports),
        "schema": SCHEMA_ID,
        "submissions": [report_dict(r) for r in reports],
        "summary": {**summary, "groups": with_cases(summary.get("groups", []), reports)},
    }


def with_cases(groups: Sequence[dict[str, Any]], reports: Sequence[GradeReport]) -> list[dict[str, Any]]:
    """The summary's groups, each with where a case its students share is (the class view's choice)."""
    where = {}
    for shared in class_view(reports).groups:
        if shared.case_from is not None:
            entry, check = shared.case_from
            where[shared.kind, shared.words] = {"submission": entry.report.submission, "check": check.number}
    found = []
    for group in groups:
        case = where.get((group["kind"], group["words"]))
        found.append({**group, "case": case} if case else dict(group))
    return found


def render(reports: Sequence[GradeReport], summary: dict[str, Any], copies: Similarity | None = None) -> str:
    """The document, every string in it made harmless (``harmless.tree``)."""
    safe = harmless.tree(document(reports, summary, copies))
    return json.dumps(safe, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
