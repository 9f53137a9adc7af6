"""The batch CSV: one row per submission, its score, its diagnosis and the outcome of every check.

The first line is a comment naming the batch (``batch_identity``: a digest of the submissions, the
checks, the weights and the harness version, and the weights themselves), then the header. Rows are
sorted by submission name; ``shard`` says which ``--shard i/n`` run graded the row, so ``merge`` can
tell a missing shard from an empty one. No timing column: the file is byte for byte the same when
the same submissions are graded again.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping

from dedup_harness.core.checks import CHECKS
from dedup_harness.grade.report import GradeReport
from dedup_harness.grade.scoring import points_text

FIXED: tuple[str, ...] = (
    "isolation_warning",  # first: a run without isolation (--unisolated) says so in every row
    "submission",
    "shard",
    "status",
    "score",
    "max_score",
    "fails_like",
    "fails_partly_like",
    "problems",
)
COLUMNS: tuple[str, ...] = (*FIXED, *CHECKS)  # one outcome column per check of the suite


def row(report: GradeReport, shard: str) -> dict[str, str]:
    outcomes = {check.name: str(check.outcome) for check in report.checks}
    return {
        "isolation_warning": report.warning,
        "submission": report.submission,
        "shard": shard,
        "status": str(report.status),
        "score": points_text(report.score),
        "max_score": points_text(report.max_score),
        "fails_like": " ".join(d.mutant for d in report.diagnosis if d.exact),
        "fails_partly_like": " ".join(d.mutant for d in report.diagnosis if not d.exact),
        "problems": " | ".join(
            report.problems
            + ([report.unjudged] if report.unjudged else [])
            + ([report.harness_error.splitlines()[0]] if report.harness_error else [])
        ),
        **outcomes,
    }


def render(rows: Iterable[Mapping[str, str]], batch_line: str) -> str:
    """The batch line (``distribution.batch_identity``), the header, and the rows sorted by submission."""
    out = io.StringIO()
    out.write(batch_line)
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(sorted(rows, key=lambda r: r["submission"]))
    return out.getvalue()
