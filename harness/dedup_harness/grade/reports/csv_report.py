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
from dedup_harness.grade.scoring import points_text

FIXED: tuple[str, ...] = (
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
            check_header(path, tuple(reader.fieldnames or ()))
            return list(reader)
    except OSError as exc:
        raise CsvError(f"cannot read {path}: {exc.strerror or exc}") from None


def check_header(path: Path, header: tuple[str, ...]) -> None:
    """A grade CSV of this harness's checks, or a CsvError that says what differs."""
    if header == COLUMNS:
        return
    if header[: len(FIXED)] != FIXED:
        raise CsvError(f"{path}: not a grade CSV (its header is {list(header)})")
    theirs = header[len(FIXED) :]
    missing = [c for c in CHECKS if c not in theirs]
    extra = [c for c in theirs if c not in CHECKS]
    parts = [f"it lacks {missing}"] if missing else []
    parts += [f"it has checks this harness does not: {extra}"] if extra else []
    detail = "; ".join(parts) or "its checks come in another order"
    raise CsvError(
        f"{path}: graded with a different set of checks ({len(theirs)} checks; this harness has {len(CHECKS)}): "
        f"{detail}. Grade every shard with the same harness version."
    )
