"""The batch CSV: one row per submission, its score, its diagnosis, the outcome of every check, and its batch.

The header is the first line, so every reader takes the file as it is (``csv.DictReader``, pandas,
a spreadsheet, a gradebook's import). The batch the row belongs to rides in the last columns of
every row (``BATCH``: ``distribution.batch_identity`` writes and reads them): a digest of the
submissions, the checks, the weights, the harness version and the dependency set, and the weights
themselves, so ``merge`` can refuse shards of different batches and recompute every score. Rows
are sorted by submission name; ``shard`` says which ``--shard i/n`` run graded the row, so
``merge`` can tell a missing shard from an empty one. No timing column: the file is byte for byte
the same when the same submissions are graded again.

Every cell goes through ``harmless.cell``: one line, no control character, and never a formula.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping

from dedup_harness.core.checks import CHECKS
from dedup_harness.grade.diagnosis import Diagnosis
from dedup_harness.grade.reports import harmless
from dedup_harness.grade.reports.model import GradeReport
from dedup_harness.grade.scoring import points_text

FIXED: tuple[str, ...] = (
    "isolation_warning",  # first: a run without isolation (--unisolated) says so in every row
    "submission",
    "shard",
    "status",
    "score",
    "max_score",
    "why_zero",  # a submission that got nothing: why, in one phrase
    "fails_like",
    "fails_partly_like",
    "problems",
)
# The batch's identity, last: what people read comes first.
BATCH: tuple[str, ...] = ("batch", "batch_submissions", "batch_weights", "harness", "dependencies")
KEYED = "row_hmac"  # the very last: the row's keyed digest (``distribution.shards.row_digest``), empty without a key
COLUMNS: tuple[str, ...] = (*FIXED, *CHECKS, *BATCH, KEYED)  # one outcome column per check of the suite


def row(report: GradeReport, shard: str) -> dict[str, str]:
    """A submission's cells, but the batch's (``render`` adds those)."""
    outcomes = {check.name: str(check.outcome) for check in report.checks}
    return {
        "isolation_warning": report.warning,
        "submission": report.submission,
        "shard": shard,
        "status": str(report.status),
        "score": points_text(report.score),
        "max_score": points_text(report.max_score),
        "why_zero": report.why_zero,
        "fails_like": pitfalls_cell([d for d in report.diagnosis if d.exact]),
        "fails_partly_like": pitfalls_cell([d for d in report.diagnosis if not d.exact]),
        "problems": " | ".join(
            report.problems
            + ([report.unjudged] if report.unjudged else [])
            + ([report.harness_error.splitlines()[0]] if report.harness_error else [])
        ),
        **outcomes,
    }


PITFALLS_APART = "; "  # between two pitfalls of one cell


def pitfalls_cell(diagnoses: Iterable[Diagnosis]) -> str:
    """Each pitfall with its words, as a reader of the file needs them: ``s01: keeps the last occurrence ...``."""
    return PITFALLS_APART.join(f"{d.mutant}: {d.pitfall}" for d in diagnoses)


def render(rows: Iterable[Mapping[str, str]], batch: Mapping[str, str]) -> str:
    """The header, then the rows sorted by submission, each with the batch's cells (``BatchIdentity.cells``)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    safe = [{name: harmless.cell(value) for name, value in {**r, **batch}.items()} for r in rows]
    writer.writerows(sorted(safe, key=lambda r: r["submission"]))
    return out.getvalue()
