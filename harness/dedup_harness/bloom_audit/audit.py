"""Run the Bloom checks over every case of a target and gather one row per case and one finding per fault."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from dedup_harness.bloom_audit.binomial import tolerated_hits
from dedup_harness.bloom_audit.cases import Case
from dedup_harness.bloom_audit.filter_checks import (
    FAIL,
    QUERIES,
    CheckResult,
    Finding,
    check_delivered_rate,
    check_false_negatives,
    check_k,
    check_reachability,
    check_sizing,
    probe_capacity,
    probe_reach,
)
from dedup_harness.bloom_audit.filters import Target
from dedup_harness.bloom_audit.formulas import optimal_k


@dataclass(frozen=True)
class CaseReport:
    """One row of the audit table."""

    case: str
    family: str
    size: int  # in the target's own unit (bits, or m_bytes for datatrove)
    control: bool
    capacity: int
    asked_rate: float | None
    given_k: int | None
    allocated_bits: int | None
    reachable_bits: int | None
    reachable_how: str  # "all", "saturated", "at least" or "n/a"
    k: int | None
    implied_k: str
    promised_rate: float
    promise_basis: str
    delivered_rate: float
    false_positives: int
    queries: int
    tolerated: int
    verdict: str
    checks: list[CheckResult]

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

    @property
    def passed(self) -> bool:
        return all(row.verdict == "pass" for row in self.rows if not row.control)


def audit_case(target: Target, case: Case, *, seed: int = 0, queries: int = QUERIES) -> CaseReport:
    """All five checks on one case: a fresh filter for the capacity probe and another for reachability."""
    tag = f"{seed}:{target.name}:{case.label}:{case.control}"
    adapter = target.build(case)
    promise = target.promise(case, adapter)
    reach = probe_reach(target.build(case), f"{tag}:reach")
    probe = probe_capacity(lambda: target.build(case), tag, case.capacity, queries)
    checks = [
        check_sizing(adapter, promise),
        check_k(adapter, promise, case),
        check_reachability(adapter, reach),
        check_false_negatives(probe),
        check_delivered_rate(probe, promise, adapter, case),
    ]
    if reach is None:
        reachable, how = None, "n/a"
    else:
        reachable = reach.seen
        how = "all" if reach.seen == adapter.m else "saturated" if reach.saturated else "at least"
    return CaseReport(
        case=case.label,
        family=case.family,
        size=case.size,
        control=case.control,
        capacity=case.capacity,
        asked_rate=case.error_rate,
        given_k=case.k,
        allocated_bits=adapter.m,
        reachable_bits=reachable,
        reachable_how=how,
        k=adapter.k,
        implied_k=_implied_k(case, promise.k, adapter.m),
        promised_rate=promise.rate,
        promise_basis=promise.basis,
        delivered_rate=probe.false_positives / probe.queries,
        false_positives=probe.false_positives,
        queries=probe.queries,
        tolerated=tolerated_hits(probe.queries, promise.rate),
        verdict="fail" if any(c.status == FAIL for c in checks) else "pass",
        checks=checks,
    )


def _implied_k(case: Case, promised_k: int | None, m: int | None) -> str:
    if promised_k is not None:
        return str(promised_k)
    return f"{optimal_k(m, case.capacity):.2f} (optimal)" if m else "n/a"


def findings_of(rows: list[CaseReport]) -> list[Finding]:
    """Each failing cause once, with how many cases show it and the first failing check's reason."""
    example: dict[str, str] = {}
    cases: dict[str, int] = {}
    for row in rows:
        if row.control:
            continue
        for cause in row.causes:
            cases[cause] = cases.get(cause, 0) + 1
        for check in row.checks:
            if check.status == FAIL:
                example.setdefault(check.cause or check.check, f"{row.case}: {check.reason}")
    return [Finding(cause, count, example[cause]) for cause, count in cases.items()]


def audit(
    target: Target, *, seed: int = 0, on_case: Callable[[Case], None] | None = None, cases: list[Case] | None = None
) -> AuditReport:
    """Audit every case of ``target`` (or the ``cases`` given); ``on_case`` hears of each once it is done."""
    rows = []
    for case in cases if cases is not None else target.cases():
        rows.append(audit_case(target, case, seed=seed))
        if on_case is not None:
            on_case(case)
    return AuditReport(target.name, target.description, target.size_unit, rows, findings_of(rows), target.notes())
