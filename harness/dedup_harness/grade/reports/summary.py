"""What a batch of grades adds up to: counts, mean score, pass rate per check, the commonest pitfalls, and the
class grouped by what went wrong.

Built from ``Outline``s: what a summary reads of a submission, taken from its report (``Outline.of``), or from
a row of a shard's CSV where ``merge`` has only files (``Outline.from_row``: the one place a pitfall's cell is
read back). A group is the students who went wrong the same way (``signature``): the same cause of a zero,
the same pitfall, or else the same lost checks; largest group first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

from dedup_harness.core.checks import BY_NAME, CHECKS
from dedup_harness.grade.reports.csv_report import PITFALLS_APART
from dedup_harness.grade.reports.model import GradeReport
from dedup_harness.grade.scoring import ZERO, parse_points, points_number

FULL_MARKS = "full marks"
Member = TypeVar("Member")


@dataclass(frozen=True)
class Outline:
    """What the summary reads of one submission."""

    submission: str
    status: str
    score: Fraction
    max_score: Fraction
    why_zero: str
    fails_like: tuple[tuple[str, str], ...]  # (mutant, pitfall): those it fails like exactly
    partly: tuple[tuple[str, str], ...]  # those of the pair it fails partly like
    outcomes: Mapping[str, str]  # by check

    @classmethod
    def of(cls, report: GradeReport) -> Outline:
        pitfalls = [(d.mutant, d.pitfall, d.exact) for d in report.diagnosis]
        return cls(
            report.submission,
            str(report.status),
            report.score,
            report.max_score,
            report.why_zero,
            tuple((m, p) for m, p, exact in pitfalls if exact),
            tuple((m, p) for m, p, exact in pitfalls if not exact),
            {check.name: str(check.outcome) for check in report.checks},
        )

    @classmethod
    def from_row(cls, row: Mapping[str, str]) -> Outline:
        """A row of a grade CSV (``csv_report.COLUMNS``), as ``merge`` reads the shards' files."""

        def pitfalls(cell: str) -> tuple[tuple[str, str], ...]:
            parts = [part.partition(":") for part in cell.split(PITFALLS_APART) if part.strip()]
            return tuple((mutant.strip(), words.strip()) for mutant, _, words in parts)

        score, top = parse_points(row["score"]), parse_points(row["max_score"])
        outcomes = {name: row.get(name, "passed") for name in CHECKS}
        fails, partly = pitfalls(row["fails_like"]), pitfalls(row["fails_partly_like"])
        return cls(row["submission"], row["status"], score, top, row.get("why_zero", ""), fails, partly, outcomes)


def summarize(outlines: Iterable[Outline]) -> dict[str, Any]:
    """The batch summary."""
    outlines = list(outlines)
    graded = [o for o in outlines if o.status == "graded"]
    diagnoses = Counter(mutant for o in graded for mutant, _ in o.fails_like)
    return {
        "submissions": len(outlines),
        "graded": len(graded),
        "harness_errors": len(outlines) - len(graded),
        "full_marks": sum(1 for o in graded if o.score == o.max_score),
        "mean_score": points_number(sum((o.score for o in graded), ZERO) / len(graded)) if graded else 0,
        "max_score": points_number(graded[0].max_score) if graded else 0,
        "passed_by_check": {name: sum(1 for o in graded if o.outcomes.get(name) == "passed") for name in CHECKS},
        "fails_like": dict(sorted(diagnoses.items())),
        "groups": groups(outlines),
    }


def signature(outline: Outline) -> tuple[str, str]:
    """How a submission went wrong, as (its kind, its words): a zero's cause, a pitfall, the checks it lost, or
    full marks. Two submissions with one signature are one group of the class."""
    if outline.status != "graded":
        return "harness error", "the grader failed on it"
    if outline.why_zero:
        return "zero", outline.why_zero
    pitfalls = outline.fails_like or outline.partly
    if pitfalls:
        kind = "fails like" if outline.fails_like else "fails partly like"
        return "pitfall", "; ".join(f"{kind} {mutant}: {words}" for mutant, words in pitfalls)
    lost = [str(BY_NAME[name].number) for name in CHECKS if outline.outcomes.get(name, "passed") != "passed"]
    return ("lost", "lost checks " + ", ".join(lost)) if lost else (FULL_MARKS, FULL_MARKS)


def groups(outlines: Iterable[Outline]) -> list[dict[str, Any]]:
    """The class by what went wrong: each signature with its count and its submissions, largest group first."""
    found: dict[tuple[str, str], list[str]] = {}
    for outline in outlines:
        found.setdefault(signature(outline), []).append(outline.submission)
    return [
        {"kind": k, "words": w, "count": len(names), "submissions": sorted(names)} for (k, w), names in in_order(found)
    ]


def in_order(found: Mapping[tuple[str, str], Sequence[Member]]) -> list[tuple[tuple[str, str], Sequence[Member]]]:
    """Groups largest first (full marks after the others of its size), then by their words."""
    return sorted(found.items(), key=lambda item: (-len(item[1]), item[0][0] == FULL_MARKS, item[0][1]))
