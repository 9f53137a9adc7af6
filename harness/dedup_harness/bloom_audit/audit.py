"""Run the Bloom checks over every case of a target and gather one row per case and one finding per fault."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from dedup_harness.bloom_audit import filter_checks as checking
from dedup_harness.bloom_audit import rate_shape
from dedup_harness.bloom_audit.adapters import CaseRefused
from dedup_harness.bloom_audit.binomial import ALPHA, tolerated_hits
from dedup_harness.bloom_audit.cases import Case
from dedup_harness.bloom_audit.filter_checks import FAIL, NA, QUERIES, CheckResult, Finding
from dedup_harness.bloom_audit.formulas import optimal_k
from dedup_harness.bloom_audit.model import AuditReport, CaseReport
from dedup_harness.bloom_audit.target import AuditTarget

CHECKS = ("sizing", "k", "reachability", "no false negatives", "delivered rate")


def audit_case(
    target: AuditTarget, case: Case, *, seed: int = 0, queries: int = QUERIES, alpha: float = ALPHA
) -> CaseReport:
    """All five checks on one case: a fresh filter for the capacity probe and another for reachability.

    ``alpha`` is the tolerance: the chance that a filter keeping its promise fails a statistical check.
    """
    tag = f"{seed}:{target.name}:{case.label}:{case.control}"
    try:
        adapter = target.build(case)
        promise = target.promise(case, adapter)
        reacher = target.build(case)  # a filter of its own: the reach probe fills it
        reach = checking.probe_reach(reacher, f"{tag}:reach", case.capacity)
        probe = checking.probe_capacity(lambda: target.build(case), tag, case.capacity, queries)
    except CaseRefused as documented:
        return not_applicable(case, str(documented))
    except Exception as exc:  # the filter's own refusal (a size, the audit's bytes items): said, not raised
        refused = f"refused the case ({type(exc).__name__}: {exc})"
        return replace(not_applicable(case, f"it {refused}"), refused=refused)
    checks = [
        checking.check_sizing(adapter, promise),
        checking.check_k(adapter, promise, case),
        checking.check_reachability(reacher, reach, alpha),
        checking.check_false_negatives(probe),
        checking.check_delivered_rate(probe, promise, adapter, case, alpha),
    ]
    seen = reach.seen if reach is not None else None
    how = "n/a" if reach is None else "all" if seen == adapter.m else "saturated" if reach.saturated else "at least"
    return CaseReport.of(
        case,
        allocated_bits=adapter.m,
        storage_bits=reacher.storage_bits(),
        reachable_bits=seen,
        reachable_how=how,
        k=adapter.k,
        implied_k=_implied_k(case, promise.k, adapter.m),
        promised_rate=promise.rate,
        promise_basis=promise.basis,
        delivered_rate=probe.false_positives / probe.queries,
        false_positives=probe.false_positives,
        queries=probe.queries,
        tolerated=tolerated_hits(probe.queries, promise.rate, alpha),
        verdict="fail" if any(c.status == FAIL for c in checks) else "pass",
        checks=checks,
        refused=reach.refused if reach is not None else "",
    )


def not_applicable(case: Case, reason: str) -> CaseReport:
    """The row of a case the filter cannot be built for: every check n/a, with the library's reason."""
    return CaseReport.of(case, promise_basis=reason, checks=[CheckResult(check, NA, reason) for check in CHECKS])


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
    target: AuditTarget,
    *,
    seed: int = 0,
    on_case: Callable[[Case], None] | None = None,
    cases: list[Case] | None = None,
    queries: int = QUERIES,
    alpha: float = ALPHA,
) -> AuditReport:
    """Audit every case of ``target`` (or the ``cases`` given); ``on_case`` hears of each once it is done."""
    rows = []
    for case in cases if cases is not None else target.cases():
        rows.append(audit_case(target, case, seed=seed, queries=queries, alpha=alpha))
        if on_case is not None:
            on_case(case)
    rows = rate_shape.named_by_shape(rows, alpha)
    findings, notes = findings_of(rows), target.notes() + storage_notes(rows) + refusal_notes(rows)
    repros = target.reproductions(rows, [f.cause for f in findings + notes])
    return AuditReport(target.name, target.description, target.size_unit, rows, findings, notes, target.version, repros)


def storage_notes(rows: list[CaseReport]) -> list[Finding]:
    """A bit array that occupies well over its m bits (more than whole 64-bit words and half again m)."""
    wasteful = [row for row in rows if not row.control and _storage_ratio(row) > 1.5]
    if not wasteful:
        return []
    worst = max(wasteful, key=_storage_ratio)
    example = (
        f"{worst.case}: its bit array occupies {worst.storage_bits:,} bits of memory for m = "
        f"{worst.allocated_bits:,} bits ({_storage_ratio(worst):.2f}x); the bits past m are never set"
    )
    return [Finding("bit array larger than the bits it uses", len(wasteful), example)]


def refusal_notes(rows: list[CaseReport]) -> list[Finding]:
    """What the filter refused the audit, each kind once: a case goes on with what it took, or is n/a."""
    first: dict[str, CaseReport] = {}
    for row in rows:
        if row.refused and not row.control:
            first.setdefault(row.refused.split(" after ")[0].split(" (")[0], row)
    return [
        Finding(kind, sum(r.refused.startswith(kind) for r in rows), f"{row.case}: it {row.refused}")
        for kind, row in first.items()
    ]


def _storage_ratio(row: CaseReport) -> float:
    if not row.storage_bits or not row.allocated_bits:
        return 0.0
    words = -(-row.allocated_bits // 64) * 64
    return row.storage_bits / row.allocated_bits if row.storage_bits > words else 1.0
