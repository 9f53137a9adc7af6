"""The reference filter reaches every bit, forgets nothing, and delivers the rate its sizing promises."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings

from dedup_harness.bloom_audit.adapters import ReferenceAdapter
from dedup_harness.bloom_audit.audit import audit_case
from dedup_harness.bloom_audit.cases import Case
from dedup_harness.bloom_audit.filter_checks import PASS, check_reachability, probe_reach
from dedup_harness.bloom_audit.filters import ReferenceTarget
from dedup_harness.bloom_audit.formulas import rate_for_bits

from .sizes import bit_sizes


@settings(max_examples=25)
@given(m=bit_sizes(1, 9))
def test_every_bit_is_reachable_at_every_size_family(m: int) -> None:
    capacity = max(1, round(m / 9.6))
    adapter = ReferenceAdapter(capacity, rate_for_bits(capacity, m))
    reach = probe_reach(adapter, f"reach:{m}", capacity)
    assert reach is not None and reach.seen == m
    assert check_reachability(adapter, reach).status == PASS


# One case per family, filled to capacity; the full grid runs in `dedup-harness audit-bloom reference`.
CASES = [
    Case("power of two", 1024, 107, rate_for_bits(107, 1024)),
    Case("all-ones", 2047, 213, rate_for_bits(213, 2047)),
    Case("prime", 1031, 516, rate_for_bits(516, 1031)),
    Case("arbitrary", 1500, 313, rate_for_bits(313, 1500)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.family)
def test_no_false_negatives_and_the_delivered_rate_is_within_binomial_tolerance(case: Case) -> None:
    row = audit_case(ReferenceTarget(), case, queries=6000)
    by_check = {c.check: c for c in row.checks}
    assert by_check["no false negatives"].status == PASS, by_check["no false negatives"].reason
    assert by_check["delivered rate"].status == PASS, by_check["delivered rate"].reason
    assert row.verdict == "pass", row.checks
    assert math.isclose(row.promised_rate, case.error_rate or 0, rel_tol=0.1)
