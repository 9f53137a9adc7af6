"""The batch CSV: one row per submission, its score, its diagnosis and the outcome of every check.

Rows are sorted by submission name; ``shard`` says which ``--shard i/n`` run graded the row, so
``merge`` can tell a missing shard from an empty one. No timing column: the file is byte for byte
the same when the same submissions are graded again.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from pathlib import Path

from dedup_harness.core.checks import CHECKS
from dedup_harness.grade.report import GradeReport

COLUMNS: tuple[str, ...] = (
    "isolation_warning",  # first: a run without isolation (--unisolated) says so in every row
    "submission",
    "shard",
    "status",
    "score",
    "max_score",
    "fails_like",
    "fails_partly_like",
    "problems",
    *CHECKS,
)


def row(report: GradeReport, shard: str) -> dict[str, str]:
    outcomes = {check.name: str(check.outcome) for check in report.checks}
    return {
        "isolation_warning": report.warning,
        "submission": report.submission,
        "shard": shard,
        "status": str(report.status),
        "score": f"{report.score:g}",
        "max_score": f"{report.max_score:g}",
        "fails_like": " ".join(d.mutant for d in report.diagnosis if d.exact),
        "fails_partly_like": " ".join(d.mutant for d in report.diagnosis if not d.exact),
        "problems": " | ".join(
            report.problems + ([report.harness_error.splitlines()[0]] if report.harness_error else [])
        ),
        **outcomes,
    }


def render(rows: Iterable[Mapping[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(sorted(rows, key=lambda r: r["submission"]))
    return out.getvalue()


class CsvError(ValueError):
    """A shard's CSV is not one ``grade --csv`` wrote: the message names the file."""


def read(path: Path) -> list[dict[str, str]]:
    try:
        with open(path, encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f)
            if tuple(reader.fieldnames or ()) != COLUMNS:
                raise CsvError(f"{path}: not a grade CSV (its header is {reader.fieldnames})")
            return list(reader)
    except OSError as exc:
        raise CsvError(f"cannot read {path}: {exc.strerror or exc}") from None
