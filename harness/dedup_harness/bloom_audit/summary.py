"""One line per library and size family: the table that says which filters keep their promise, and where.

A family holds one to three cases. Its line shows the case furthest above its promise (a failing
one first), the lowest fraction of reachable bits in the family, and the family's verdict: fail
when any case fails, n/a when no case could be built, pass otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from dedup_harness.bloom_audit.filter_checks import FAIL
from dedup_harness.bloom_audit.model import AuditReport, CaseReport, overall_verdict
from dedup_harness.core.bloom_sizing import LN2


@dataclass(frozen=True)
class FamilySummary:
    target: str
    version: str
    family: str
    cases: int
    shown: str  # the case whose rates and bits are shown
    promised: float | None
    delivered: float | None
    bits_per_item: float | None  # allocated m / n of the case shown
    formula_bits_per_item: float | None  # -ln p / (ln 2)**2 of the case shown: the textbook's bits per item
    reachable_fraction: float | None  # the lowest over the family's cases
    verdict: str
    causes: list[str]


def formula_bits_per_item(row: CaseReport) -> float | None:
    return -math.log(row.asked_rate) / LN2**2 if row.asked_rate else None


def _excess(row: CaseReport) -> tuple[bool, float]:
    """Sort key: failing first, then by delivered over promised."""
    if row.delivered_rate is None or not row.promised_rate:
        return (row.verdict == FAIL, -math.inf)
    return (row.verdict == FAIL, row.delivered_rate / row.promised_rate)


def _reachable(rows: Sequence[CaseReport]) -> float | None:
    fractions = [r.reachable_bits / r.allocated_bits for r in rows if r.reachable_bits is not None and r.allocated_bits]
    return min(fractions) if fractions else None


def summarise_family(report: AuditReport, family: str, rows: Sequence[CaseReport]) -> FamilySummary:
    worst = max(rows, key=_excess)
    per_item = worst.allocated_bits / worst.capacity if worst.allocated_bits and worst.capacity else None
    causes = list(dict.fromkeys(cause for row in rows for cause in row.causes))
    shown = (report.target, report.version, family, len(rows), worst.case, worst.promised_rate, worst.delivered_rate)
    return FamilySummary(
        *shown, per_item, formula_bits_per_item(worst), _reachable(rows), overall_verdict(rows), causes
    )


def family_summaries(report: AuditReport) -> list[FamilySummary]:
    """The report's shipped cases (controls left out) grouped by size family, in the order they ran."""
    families: dict[str, list[CaseReport]] = {}
    for row in report.rows:
        if not row.control:
            families.setdefault(row.family, []).append(row)
    return [summarise_family(report, family, rows) for family, rows in families.items()]
