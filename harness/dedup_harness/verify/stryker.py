"""The kill matrix as a Stryker mutation-testing report (mutation-testing-report-schema, version 2).

mutation-testing-elements renders it as HTML: each file of the reference with our hand-written mutants
on the lines they change. A mutant is ``Killed`` when every check its catalogue entry names failed by
an assertion, ``Survived`` when one did not, ``Timeout``, ``CompileError`` (not imported or collected)
or ``Ignored`` (its diff no longer applies). Each hunk is one entry, placed on the characters it
changes (``verify.spans``): the first carries the mutant's id, the others ``id.2``, ``id.3``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dedup_harness.core.outcome import Outcome
from dedup_harness.verify.matrix import Matrix, Row
from dedup_harness.verify.spans import Span
from dedup_harness.verify.targets import Kind

SCHEMA_URL = "https://git.io/mutation-testing-schema"


def status(row: Row) -> tuple[str, str]:
    """The Stryker status and its reason for one mutant row."""
    if row.result is None:
        return "Ignored", row.target.problem
    if row.broken:
        errors = row.result.collection_errors or [row.message(next(iter(row.result.outcomes)))]
        return "CompileError", errors[0][:2000]
    named = {check: row.outcome(check) for check in row.target.expected}
    if any(outcome is Outcome.TIMEOUT for outcome in named.values()):
        return "Timeout", "a named check ran out of time"
    missed = [check for check, outcome in named.items() if outcome is not Outcome.FAILED]
    if missed:
        return "Survived", f"not failed by an assertion: {', '.join(missed)}"
    return "Killed", "; ".join(row.message(check)[:500] for check in row.target.expected)


def to_stryker(matrix: Matrix, spans: dict[str, list[Span]], impl_root: Path) -> dict[str, Any]:
    files: dict[str, dict[str, Any]] = {}
    for row in matrix.mutant_rows():
        mutant = row.target.mutant
        assert mutant is not None
        state, reason = status(row)
        where = spans.get(mutant.id) or [Span(name, 1, 1, 1, 1, "") for name in mutant.files]
        for n, span in enumerate(where, start=1):
            entry = files.setdefault(span.file, _file(impl_root, span.file))
            entry["mutants"].append(
                {
                    "id": mutant.id if n == 1 else f"{mutant.id}.{n}",
                    "mutatorName": f"{mutant.id}: {mutant.title}" + (f" (hunk {n} of {len(where)})" if n > 1 else ""),
                    "description": mutant.pitfall + _parts_note(mutant.id, n, len(where)),
                    "replacement": span.replacement,
                    "location": {
                        "start": {"line": span.start_line, "column": span.start_column},
                        "end": {"line": span.end_line, "column": span.end_column},
                    },
                    "status": state,
                    "statusReason": reason,
                    "killedBy": row.kills(),
                    "coveredBy": list(matrix.checks) if row.result is not None else [],
                    "duration": round(row.result.seconds * 1000) if row.result else 0,
                }
            )
    return {
        "$schema": SCHEMA_URL,
        "schemaVersion": "2",
        "thresholds": {"high": 100, "low": 100},  # every hand-written mutant must die
        "projectRoot": str(impl_root),
        "files": dict(sorted(files.items())),
        "testFiles": _test_files(matrix),
        "framework": {"name": "dedup-harness verify"},
        "config": {"mutants": len(matrix.mutant_rows()), "entries": _entries(files), "why": ENTRIES_NOTE},
    }


ENTRIES_NOTE = (
    "One entry per hunk: a hand-written mutant whose diff changes n separate places shows as n entries "
    "(id, id.2, ... id.n) that share its one status, so the entries outnumber the mutants by the extra hunks."
)


def _parts_note(mutant_id: str, n: int, hunks: int) -> str:
    if hunks == 1:
        return ""
    return f" ({mutant_id} changes {hunks} separate places; this is hunk {n}, and every hunk shares its status)"


def _entries(files: dict[str, dict[str, Any]]) -> int:
    return sum(len(entry["mutants"]) for entry in files.values())


def _file(impl_root: Path, name: str) -> dict[str, Any]:
    return {"language": "python", "source": (impl_root / name).read_text(encoding="utf-8"), "mutants": []}


def _test_files(matrix: Matrix) -> dict[str, dict[str, Any]]:
    """Which file defines each check, from the reference run's node ids."""
    reference = next((row for row in matrix.rows if row.target.kind is Kind.REFERENCE), None)
    by_file: dict[str, list[dict[str, str]]] = {}
    cases = reference.result.cases if reference and reference.result else {}
    for check in matrix.checks:
        nodeid = cases[check][0]["nodeid"] if cases.get(check) else f"unknown::{check}"
        by_file.setdefault(nodeid.split("::")[0], []).append({"id": check, "name": check})
    return {name: {"tests": tests} for name, tests in sorted(by_file.items())}
