"""What a batch of grades adds up to: counts, mean score, pass rate per check, the commonest pitfalls.

Built from plain rows (the CSV's columns), so ``merge`` can summarise shards it only has as CSV files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from dedup_harness.core.checks import CHECKS
from dedup_harness.grade.scoring import ZERO, parse_points, points_number


def summarize(rows: Iterable[Mapping[str, str]]) -> dict[str, Any]:
    """The batch summary from CSV rows (see ``reports.csv_report.COLUMNS``)."""
    rows = list(rows)
    graded = [row for row in rows if row["status"] == "graded"]
    scores = [parse_points(row["score"]) for row in graded]
    full = sum(1 for row in graded if parse_points(row["score"]) == parse_points(row["max_score"]))
    diagnoses = Counter(mutant for row in graded for mutant in row["fails_like"].split())
    return {
        "submissions": len(rows),
        "graded": len(graded),
        "harness_errors": len(rows) - len(graded),
        "full_marks": full,
        "mean_score": points_number(sum(scores, ZERO) / len(scores)) if scores else 0,
        "max_score": points_number(parse_points(graded[0]["max_score"])) if graded else 0,
        "passed_by_check": {name: sum(1 for row in graded if row[name] == "passed") for name in CHECKS},
        "fails_like": dict(sorted(diagnoses.items())),
    }
