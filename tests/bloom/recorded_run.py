"""The recorded run (docs/bloom-audit.json) read back into reports: real results, with no library installed."""

from __future__ import annotations

from pathlib import Path

from dedup_harness.bloom_audit import record
from dedup_harness.bloom_audit.model import AuditReport
from dedup_harness.bloom_audit.throughput import Throughput

RECORD = Path(__file__).resolve().parents[2] / "docs" / "bloom-audit.json"


def reports() -> list[AuditReport]:
    """One report per library of the recorded run, in its order."""
    return record.reports_of_json(record.read(RECORD))


def speeds() -> list[Throughput]:
    """The recorded run's inserts and queries per second."""
    return record.speeds_of_json(record.read(RECORD))
