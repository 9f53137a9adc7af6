"""The recorded run (docs/bloom-audit.json) read back into reports: real results, with no library installed."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

from dedup_harness.bloom_audit.audit import AuditReport, CaseReport
from dedup_harness.bloom_audit.filter_checks import CheckResult, Finding
from dedup_harness.bloom_audit.reproductions import Reproduction
from dedup_harness.bloom_audit.throughput import Throughput

RECORD = Path(__file__).resolve().parents[2] / "docs" / "bloom-audit.json"


def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(RECORD.read_text(encoding="utf-8"))
    return document


def _row(row: dict[str, Any]) -> CaseReport:
    names = {f.name for f in fields(CaseReport)} - {"checks"}
    return CaseReport(**{name: row[name] for name in names}, checks=[CheckResult(**c) for c in row["checks"]])


def _report(entry: dict[str, Any]) -> AuditReport:
    return AuditReport(
        entry["target"],
        entry["description"],
        entry["size_unit"],
        [_row(row) for row in entry["rows"]],
        [Finding(**f) for f in entry["findings"]],
        [Finding(**f) for f in entry["notes"]],
        entry["version"],
        [Reproduction(**r) for r in entry["reproductions"]],
    )


def reports() -> list[AuditReport]:
    """One report per library of the recorded run, in its order."""
    return [_report(entry) for entry in _document()["targets"]]


def speeds() -> list[Throughput]:
    """The recorded run's inserts and queries per second."""
    return [Throughput(**t) for t in _document()["throughput"]]
