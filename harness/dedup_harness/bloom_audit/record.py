"""What changed since the recorded run: verdicts compared case by case, with the release each was found on.

The record is a ``--json`` document (docs/bloom-audit.json). A release that fixes a fault or brings one
shows as a case whose verdict or causes changed; only the libraries in this run are compared. The record
also reads back whole: the results page is written from it, and tests draw real results from it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from dedup_harness.bloom_audit.filter_checks import CheckResult, Finding
from dedup_harness.bloom_audit.model import AuditReport, CaseReport
from dedup_harness.bloom_audit.reproductions import Reproduction
from dedup_harness.bloom_audit.throughput import Throughput


@dataclass(frozen=True)
class RecordedCase:
    """One case's verdict and causes as a run recorded them, with the release it was found on."""

    version: str
    verdict: str  # pass, fail, n/a, or "absent" when the other run has no such case or library
    causes: tuple[str, ...]

    @property
    def text(self) -> str:
        causes = f" ({'; '.join(self.causes)})" if self.causes else ""
        return f"{self.verdict}{causes}"


@dataclass(frozen=True)
class Change:
    target: str
    case: str
    before: RecordedCase
    after: RecordedCase


class RecordError(Exception):
    """A record that cannot be read: the message names the file and says why."""


RecordedCases = dict[str, dict[str, RecordedCase]]  # target -> case -> outcome


def load(path: Path) -> RecordedCases:
    try:
        return outcomes_of_json(read(path))
    except (KeyError, TypeError) as exc:
        raise RecordError(f"cannot read the record {path}: {type(exc).__name__}: {exc}") from exc


def outcomes_of_json(document: dict[str, Any]) -> RecordedCases:
    result: RecordedCases = {}
    for entry in document["targets"]:
        version = str(entry.get("version", ""))
        rows = (row for row in entry["rows"] if not row["control"])
        result[entry["target"]] = {
            row["case"]: RecordedCase(version, row["verdict"], tuple(row.get("causes", []))) for row in rows
        }
    return result


def outcomes_of(reports: list[AuditReport]) -> RecordedCases:
    return {
        report.target: {
            row.case: RecordedCase(report.version, row.verdict, tuple(row.causes))
            for row in report.rows
            if not row.control
        }
        for report in reports
    }


def changes(recorded: RecordedCases, reports: list[AuditReport]) -> list[Change]:
    """Every case of this run whose verdict or causes differ from the record's, and every case either lacks."""
    found: list[Change] = []
    for target, now in outcomes_of(reports).items():
        then = recorded.get(target, {})
        version = _version(now)
        for case in dict.fromkeys([*then, *now]):
            before = then.get(case, RecordedCase(_version(then), "absent", ()))
            after = now.get(case, RecordedCase(version, "absent", ()))
            if (before.verdict, before.causes) != (after.verdict, after.causes):
                found.append(Change(target, case, before, after))
    return found


def _version(outcomes: dict[str, RecordedCase]) -> str:
    return next(iter(outcomes.values())).version if outcomes else ""


def read(path: Path) -> dict[str, Any]:
    """The record at ``path``, as JSON; ``RecordError`` naming it when it cannot be read."""
    try:
        document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RecordError(f"cannot read the record {path}: {type(exc).__name__}: {exc}") from exc
    return document


def reports_of_json(document: dict[str, Any]) -> list[AuditReport]:
    """One report per library of the record, in its order, as the run that wrote it had them."""
    return [_report(entry) for entry in document["targets"]]


def speeds_of_json(document: dict[str, Any]) -> list[Throughput]:
    """The record's inserts and queries per second."""
    return [Throughput(**t) for t in document["throughput"]]


def _row(row: dict[str, Any]) -> CaseReport:
    names = {f.name for f in fields(CaseReport)} - {"checks"}
    known = {name: row[name] for name in names if name in row}  # a field newer than the record keeps its default
    return CaseReport(**known, checks=[CheckResult(**c) for c in row["checks"]])


def _report(entry: dict[str, Any]) -> AuditReport:
    findings, notes = ([Finding(**f) for f in entry[key]] for key in ("findings", "notes"))
    named = entry["target"], entry["description"], entry["size_unit"], [_row(row) for row in entry["rows"]]
    return AuditReport(*named, findings, notes, entry["version"], [Reproduction(**r) for r in entry["reproductions"]])
