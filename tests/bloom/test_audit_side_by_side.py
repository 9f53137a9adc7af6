"""The side-by-side pieces: a refused case is n/a, families summarised, changes against a record found."""

from __future__ import annotations

import pytest

from dedup_harness.bloom_audit.adapters import BloomAdapter, CaseRefused
from dedup_harness.bloom_audit.audit import audit, audit_case
from dedup_harness.bloom_audit.cases import Case
from dedup_harness.bloom_audit.filters import ReferenceTarget
from dedup_harness.bloom_audit.formulas import rate_for_bits
from dedup_harness.bloom_audit.model import AuditReport
from dedup_harness.bloom_audit.record import changes, outcomes_of
from dedup_harness.bloom_audit.summary import family_summaries

from . import broken_filters

QUERIES = 4000  # the full 20,000 run in the audit env; a correct filter passes with either

CASES = [
    Case("power of two", 1024, 107, rate_for_bits(107, 1024)),
    Case("prime", 1031, 516, rate_for_bits(516, 1031)),
    Case("high rate", 3000, 2830, rate_for_bits(2830, 3000)),
]


class RefusesHighRates(ReferenceTarget):
    """A library whose constructor refuses rates above one half, as pyprobables refuses k = 0."""

    def build(self, case: Case) -> BloomAdapter:
        if (case.error_rate or 0) > 0.5:
            raise CaseRefused("its constructor refuses: k would be 0")
        return super().build(case)


@pytest.fixture(scope="module")
def refusing() -> AuditReport:
    return audit(RefusesHighRates(broken_filters.TextbookFilter), cases=CASES)


def test_a_case_the_constructor_refuses_is_not_applicable_and_never_a_pass(refusing: AuditReport) -> None:
    row = refusing.rows[-1]
    assert row.verdict == "n/a" and {c.status for c in row.checks} == {"n/a"}
    assert row.delivered_rate is None and "k would be 0" in row.promise_basis
    assert refusing.passed and refusing.status == "pass"


def test_each_family_is_one_line_with_its_verdict(refusing: AuditReport) -> None:
    lines = {s.family: s for s in family_summaries(refusing)}
    assert [lines[f].verdict for f in ("power of two", "prime", "high rate")] == ["pass", "pass", "n/a"]
    power = lines["power of two"]
    assert power.bits_per_item == pytest.approx(1024 / 107) and power.reachable_fraction == 1.0
    assert power.formula_bits_per_item == pytest.approx(1024 / 107, rel=0.01)


def test_a_verdict_that_differs_from_the_record_is_named_with_its_release(refusing: AuditReport) -> None:
    recorded = outcomes_of([refusing])
    assert changes(recorded, [refusing]) == []
    masked = audit(RefusesHighRates(broken_filters.MaskIndexFilter), cases=CASES[:1])
    (change,) = changes(recorded, [masked])[:1]
    assert change.case == CASES[0].label
    assert (change.before.verdict, change.after.verdict) == ("pass", "fail")
    assert "index reduced by a mask" in change.after.causes


def test_the_held_out_correct_filter_passes_at_every_size_family() -> None:
    grid = [
        Case("all-ones", 4095, 427, rate_for_bits(427, 4095)),
        Case("arbitrary", 5000, 1042, rate_for_bits(1042, 5000)),
        *CASES,
    ]
    target = ReferenceTarget(broken_filters.TextbookFilter)
    rows = [audit_case(target, case, queries=QUERIES) for case in grid]
    assert {row.family: row.verdict for row in rows} == dict.fromkeys(
        ("all-ones", "arbitrary", "power of two", "prime", "high rate"), "pass"
    )
