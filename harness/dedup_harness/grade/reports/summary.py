"""What a batch of grades adds up to: counts, mean score, pass rate per check, the commonest pitfalls, and the
class grouped by what went wrong.

Built from plain rows (the CSV's columns), so ``merge`` can summarise shards it only has as CSV files.
A group is the students who went wrong the same way (``signature``): the same cause of a zero, the same
pitfall, or else the same lost checks; largest group first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from dedup_harness.core.checks import BY_NAME, CHECKS
from dedup_harness.grade.reports.csv_report import PITFALLS_APART, mutant_ids
from dedup_harness.grade.scoring import ZERO, parse_points, points_number

FULL_MARKS = "full marks"
Member = TypeVar("Member")


def summarize(rows: Iterable[Mapping[str, str]]) -> dict[str, Any]:
    """The batch summary from CSV rows (see ``reports.csv_report.COLUMNS``)."""
    rows = list(rows)
    graded = [row for row in rows if row["status"] == "graded"]
    scores = [parse_points(row["score"]) for row in graded]
    full = sum(1 for row in graded if parse_points(row["score"]) == parse_points(row["max_score"]))
    diagnoses = Counter(mutant for row in graded for mutant in mutant_ids(row["fails_like"]))
    return {
        "submissions": len(rows),
        "graded": len(graded),
        "harness_errors": len(rows) - len(graded),
        "full_marks": full,
        "mean_score": points_number(sum(scores, ZERO) / len(scores)) if scores else 0,
        "max_score": points_number(parse_points(graded[0]["max_score"])) if graded else 0,
        "passed_by_check": {name: sum(1 for row in graded if row[name] == "passed") for name in CHECKS},
        "fails_like": dict(sorted(diagnoses.items())),
        "groups": groups(rows),
    }


def signature(row: Mapping[str, str]) -> tuple[str, str]:
    """How a submission went wrong, as (its kind, its words): a zero's cause, a pitfall, the checks it lost, or
    full marks. Two submissions with one signature are one group of the class."""
    if row["status"] != "graded":
        return "harness error", "the grader failed on it"
    if row.get("why_zero"):
        return "zero", row["why_zero"]
    cell = row["fails_like"] or row["fails_partly_like"]
    if cell:
        kind = "fails like" if row["fails_like"] else "fails partly like"
        return "pitfall", "; ".join(f"{kind} {pitfall}" for pitfall in cell.split(PITFALLS_APART))
    lost = [str(BY_NAME[name].number) for name in CHECKS if row.get(name, "passed") != "passed"]
    return ("lost", "lost checks " + ", ".join(lost)) if lost else (FULL_MARKS, FULL_MARKS)


def groups(rows: Iterable[Mapping[str, str]]) -> list[dict[str, Any]]:
    """The class by what went wrong: each signature with its count and its submissions, largest group first."""
    found: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        found.setdefault(signature(row), []).append(row["submission"])
    return [
        {"kind": k, "words": w, "count": len(names), "submissions": sorted(names)} for (k, w), names in in_order(found)
    ]


def in_order(found: Mapping[tuple[str, str], Sequence[Member]]) -> list[tuple[tuple[str, str], Sequence[Member]]]:
    """Groups largest first (full marks after the others of its size), then by their words."""
    return sorted(found.items(), key=lambda item: (-len(item[1]), item[0][0] == FULL_MARKS, item[0][1]))
