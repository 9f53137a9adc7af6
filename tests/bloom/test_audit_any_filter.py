"""Reachability from what any filter shows: its index function of any name, else its bits, else its rate's shape."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from dedup_harness.bloom_audit import rate_shape
from dedup_harness.bloom_audit.any_filter import Driving
from dedup_harness.bloom_audit.audit import audit
from dedup_harness.bloom_audit.filters import AnyFilterTarget
from dedup_harness.bloom_audit.model import AuditReport, CaseReport
from dedup_harness.bloom_audit.target import TargetError

from . import shown_filters

QUERIES = 4000  # the full 20,000 in the audit's defaults; every fault below is off by far more
ONE_FAMILY = ["power of two"]  # 1,024 bits at k = 7 and 8,192 bits at k = 3


def audited(
    build: Callable[..., Any], families: Sequence[str] = ONE_FAMILY, driving: Driving | None = None
) -> AuditReport:
    return audit(AnyFilterTarget(build, build.__name__, driving, families), queries=QUERIES)


def check(row: CaseReport, name: str) -> tuple[str, str, str | None]:
    (found,) = [c for c in row.checks if c.check == name]
    return found.status, found.reason, found.cause


def test_a_filter_with_its_bits_in_a_bytearray_is_read_through_them() -> None:
    report = audited(shown_filters.BytesFilter)
    assert report.passed
    first = report.rows[0]
    assert first.reachable_bits == first.allocated_bits == 1024
    status, reason, _ = check(first, "reachability")
    assert status == "pass" and "read from its bits: the bytearray bits" in reason


def test_a_masked_index_is_named_with_its_reachable_count_from_the_bits_it_sets() -> None:
    report = audited(shown_filters.MaskedBytesFilter)
    assert [row.reachable_bits for row in report.rows] == [2, 2]
    status, reason, cause = check(report.rows[0], "reachability")
    assert (status, cause) == ("fail", "index reduced by a mask")
    assert "`& m_bytes`" in reason and "the bytearray bits" in reason


def test_a_skewed_index_is_named_skewed_with_the_bits_it_reached() -> None:
    report = audited(shown_filters.SkewedBytesFilter)
    row = report.rows[0]
    assert row.reachable_how == "at least" and 700 < (row.reachable_bits or 0) < 1000
    status, reason, cause = check(row, "reachability")
    assert (status, cause) == ("fail", "index skewed")
    assert "still being found in the second half" in reason


@pytest.mark.parametrize(
    ("right", "masked", "holder"),
    [
        (shown_filters.IntFilter, shown_filters.MaskedIntFilter, "the int ints"),
        (shown_filters.Pickled, shown_filters.PickledMasked, "the bytes __reduce_ex__(4)[2]['bits']"),
    ],
)
def test_bits_in_an_int_or_only_in_the_pickle_state_are_read_too(right: type, masked: type, holder: str) -> None:
    assert audited(right).passed
    row = audited(masked).rows[0]
    status, reason, cause = check(row, "reachability")
    assert (row.reachable_bits, cause) == (2, "index reduced by a mask")
    assert holder in reason


def test_an_index_function_of_any_name_is_used_when_named() -> None:
    row = audited(shown_filters.NestedListFilter, driving=Driving(index="positions")).rows[0]
    assert check(row, "reachability")[:2] == ("pass", "all 1024 bits reached (read from its index function positions)")


def test_without_the_name_a_list_of_booleans_one_object_down_is_read_instead() -> None:
    row = audited(shown_filters.NestedListFilter).rows[0]
    assert "the list store.flags" in check(row, "reachability")[1]


def test_a_name_that_is_not_there_is_refused_before_any_case_runs() -> None:
    with pytest.raises(TargetError, match="has no method 'indexes'"):
        AnyFilterTarget(shown_filters.BytesFilter, "f", Driving(index="indexes"))
    with pytest.raises(TargetError, match=r"no array of its 1024 bits named 'store' \(found: m, k, count, bits\)"):
        AnyFilterTarget(shown_filters.BytesFilter, "f", Driving(bits="store"))


def test_where_no_bits_can_be_read_the_report_says_what_was_tried() -> None:
    report = audited(shown_filters.Sealed)
    assert report.passed
    status, reason, _ = check(report.rows[0], "reachability")
    assert status == "n/a"
    assert "no method bit_indexes (name its index function with index=)" in reason
    assert "none of m (int), k (int), count (int) only grew as items went in" in reason


def test_where_no_bits_can_be_read_a_rate_high_at_every_size_names_few_reachable_bits() -> None:
    report = audited(shown_filters.SealedMasked, families=["power of two", "all-ones", "high rate"])
    assert [f.cause for f in report.findings] == [rate_shape.FEW_BITS]
    for row in report.rows:
        status, reason, cause = check(row, "delivered rate")
        assert (status, cause) == ("fail", rate_shape.FEW_BITS)
        assert row.reachable_how == "rate" and row.reachable_bits is not None
        assert row.reachable_bits < (row.allocated_bits or 0) / 4
        assert f"its rate is what at most {row.reachable_bits:,} bits give with k = {row.k}" in reason


def test_where_no_bits_can_be_read_a_rate_that_half_the_bits_would_give_names_unused_bits() -> None:
    report = audited(shown_filters.SealedEvenBits, families=["power of two", "high rate"])
    assert [f.cause for f in report.findings] == [rate_shape.PART_OF_BITS]
    shares = [(row.reachable_bits or 0) / (row.allocated_bits or 1) for row in report.rows]
    assert all(0.3 < share <= rate_shape.PART for share in shares), shares


def test_a_rate_that_fails_only_where_k_rounds_is_not_blamed_on_the_bits() -> None:
    # k = 2 where 1.15 is optimal (pybloom-live's fault): high only at p = 0.45, so no shape is named.
    class RoundsKUp(shown_filters.Sealed):
        def __init__(self, capacity: int, error_rate: float) -> None:
            super().__init__(capacity, error_rate)
            self.k = max(self.k, 2)

    report = audited(RoundsKUp, families=["power of two", "high rate"])
    failing = {row.case: row.causes for row in report.rows if row.verdict == "fail"}
    assert set(failing) == {"high rate 3000: n=1807, p=0.45", "high rate 3000: n=2830, p=0.601"}
    assert {cause for causes in failing.values() for cause in causes} == {"rate above its promise", "k off the optimum"}


def test_a_filter_built_from_bits_and_hashes_is_held_to_the_rate_of_that_m_and_k() -> None:
    report = audited(shown_filters.BitsAndHashes, driving=Driving(takes="bits"))
    assert report.passed, report.rows
    row = report.rows[0]
    assert (row.case, row.reachable_bits) == ("power of two 1024: n=107, k=7", 1024)
    assert row.promise_basis == "the Bloom rate of the m and k it was built with"
    assert check(row, "sizing")[0] == "n/a"  # it shows no m: the m it was given is what reachability counts


def test_a_filter_that_shows_another_k_than_it_was_given_fails_the_k_check() -> None:
    row = audited(shown_filters.OneHashLess, driving=Driving(takes="bits")).rows[0]
    assert check(row, "k") == ("fail", "k = 6 where it was built with k = 7", "k off what it was given")


def test_an_unknown_size_family_is_refused_naming_the_families() -> None:
    with pytest.raises(TargetError, match="expected some of power of two, all-ones, prime, arbitrary, high rate"):
        AnyFilterTarget(shown_filters.BytesFilter, "f", families=["powers"])
