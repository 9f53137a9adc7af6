"""An audit as data: one row per case and a target's report, what the table, the record and every page read."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from dedup_harness.bloom_audit.cases import Case
from dedup_harness.bloom_audit.filter_checks import FAIL, NA, PASS, CheckResult, Finding
from dedup_harness.bloom_audit.reproductions import Reproduction


@dataclass(frozen=True)
class CaseReport:
    """One row of the audit table. What was measured defaults to a case that did not run (n/a)."""

    case: str
    family: str
    size: int  # in the target's own unit (bits, or m_bytes for datatrove)
    control: bool
    capacity: int
    asked_rate: float | None
    given_k: int | None
    allocated_bits: int | None = None
    storage_bits: int | None = None  # the memory its bit array occupies, where readable
    reachable_bits: int | None = None
    reachable_how: str = "n/a"  # "all", "saturated", "at least" or "n/a"
    k: int | None = None
    implied_k: str = "n/a"
    promised_rate: float | None = None  # None when the case is not applicable to the filter
    promise_basis: str = ""
    delivered_rate: float | None = None
    false_positives: int = 0
    queries: int = 0
    tolerated: int = 0
    verdict: str = NA  # pass, fail, or n/a when the filter's API cannot express the case
    checks: list[CheckResult] = field(default_factory=list)
    refused: str = ""  # the filter's own refusal the reach probe met (an insert past capacity), in words

    @classmethod
    def of(cls, case: Case, **measured: Any) -> CaseReport:
        """The row of ``case``: what it asked for, then what was ``measured``."""
        asked = (case.label, case.family, case.size, case.control, case.capacity, case.error_rate, case.k)
        return cls(*asked, **measured)

    @property
    def causes(self) -> list[str]:
        """The failing causes, each once (two checks can fail for one cause)."""
        return list(dict.fromkeys(c.cause or c.check for c in self.checks if c.status == FAIL))


@dataclass
class AuditReport:
    target: str
    description: str
    size_unit: str
    rows: list[CaseReport]
    findings: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)
    version: str = ""
    reproductions: list[Reproduction] = field(default_factory=list)  # one or more per fault found, where recorded

    @property
    def passed(self) -> bool:
        """No case fails (a case that is not applicable breaks no promise, and proves none)."""
        return all(row.verdict != FAIL for row in self.rows if not row.control)

    @property
    def status(self) -> str:
        return overall_verdict(row for row in self.rows if not row.control)


def overall_verdict(rows: Iterable[CaseReport]) -> str:
    """Fail when any row fails, n/a when none could be built, pass otherwise."""
    verdicts = {row.verdict for row in rows}
    return FAIL if FAIL in verdicts else PASS if PASS in verdicts else NA
