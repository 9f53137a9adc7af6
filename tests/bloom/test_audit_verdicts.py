"""The audit's verdicts can fail, and each broken filter fails for its own reason."""

from __future__ import annotations

from dedup_harness.bloom_audit.audit import audit_case
from dedup_harness.bloom_audit.cases import Case
from dedup_harness.bloom_audit.filters import ReferenceTarget
from dedup_harness.bloom_audit.formulas import rate_for_bits
from dedup_harness.bloom_audit.model import CaseReport

from . import broken_filters

CAPACITY, BITS = 107, 1024  # 9.6 bits per item: k = 7, p about 0.01
CASE = Case("power of two", BITS, CAPACITY, rate_for_bits(CAPACITY, BITS))
QUERIES = 4000  # plenty: every broken filter below is off by far more than the binomial tolerance


def audited(cls: type, case: Case = CASE) -> CaseReport:
    return audit_case(ReferenceTarget(cls), case, queries=QUERIES)


def failing(row: CaseReport) -> dict[str, str]:
    return {check.check: check.cause or "" for check in row.checks if check.status == "fail"}


def test_a_textbook_filter_passes_every_check() -> None:
    row = audited(broken_filters.TextbookFilter)
    assert row.verdict == "pass", row.checks
    assert row.reachable_bits == BITS


def test_a_mask_index_fails_reachability_and_the_rate_naming_the_mask() -> None:
    row = audited(broken_filters.MaskIndexFilter)
    assert failing(row) == {"reachability": "index reduced by a mask", "delivered rate": "rate above its promise"}
    reach = next(c for c in row.checks if c.check == "reachability")
    assert "2**popcount(128) = 2" in reach.reason and "`& m_bytes`" in reach.reason
    assert row.reachable_bits == 2


def test_an_index_on_even_bits_only_fails_reachability_without_blaming_a_mask() -> None:
    # At 1024 bits "even bits only" is exactly an AND with 1022, so try it at 1000 bits.
    row = audited(broken_filters.EvenBitsFilter, Case("arbitrary", 1000, 104, rate_for_bits(104, 1000)))
    assert failing(row)["reachability"] == "unreachable bits"
    assert row.reachable_bits == 500


def test_k_eight_times_too_large_fails_the_k_check_as_bits_for_bytes() -> None:
    row = audited(broken_filters.KTimesEightFilter)
    assert failing(row)["k"] == "k from bits where bytes are expected (x8)"
    assert "reachability" not in failing(row)


def test_half_the_bits_fails_sizing_and_the_delivered_rate() -> None:
    row = audited(broken_filters.HalfBitsFilter)
    assert failing(row)["sizing"] == "bit count off its formula"
    assert failing(row)["delivered rate"] == "rate above its promise"


def test_a_filter_that_loses_items_fails_no_false_negatives() -> None:
    row = audited(broken_filters.ForgetfulFilter)
    assert failing(row) == {"no false negatives": "false negatives"}


def test_a_filter_with_no_hashes_fails_the_k_check_and_answers_present_to_everything() -> None:
    class NoHashes(broken_filters.TextbookFilter):
        def __init__(self, capacity: int, error_rate: float) -> None:
            super().__init__(capacity, error_rate)
            self.k = 0

    row = audited(NoHashes)
    assert failing(row)["k"] == "k = 0"
    assert row.delivered_rate == 1.0
