"""bloom-filter2 2.0.0 as installed: sized as its comments say, k rounded up, and twice the memory it uses."""

from __future__ import annotations

import pytest

from dedup_harness.bloom_audit.audit import AuditReport, audit
from dedup_harness.bloom_audit.filters import resolve_target
from dedup_harness.bloom_audit.package_adapters import BloomFilter2Adapter

from .requirements import failures, require, unreproduced


@pytest.fixture(scope="module")
def report() -> AuditReport:
    require("bloom_filter2")
    return audit(resolve_target("bloom-filter2"))


def test_its_index_function_is_what_add_and_in_use() -> None:
    require("bloom_filter2")
    adapter = BloomFilter2Adapter(107, 0.01)
    adapter.insert(b"item")
    assert adapter.contains(b"item") and all(adapter.filter.backend.is_set(b) for b in adapter.bit_indexes(b"item"))


def test_it_allocates_what_its_formula_says_and_reaches_every_bit(report: AuditReport) -> None:
    for row in report.rows:
        checks = {c.check: c.status for c in row.checks}
        assert checks["sizing"] == checks["reachability"] == checks["no false negatives"] == "pass", row


def test_k_rounded_up_breaks_its_promise_at_p_0_45_only(report: AuditReport) -> None:
    # k = ceil(3000 / 1807 ln 2) = 2 where 1.15 is optimal: about 0.49 delivered.
    assert failures(report) == {"high rate 3000: n=1807, p=0.45": ["rate above its promise"]}


def test_its_bit_array_occupies_twice_the_bits_it_uses(report: AuditReport) -> None:
    (note,) = report.notes
    assert note.cause == "bit array larger than the bits it uses"
    assert all(row.storage_bits and row.storage_bits >= 2 * (row.allocated_bits or 0) for row in report.rows)


def test_every_fault_it_shows_has_a_reproduction(report: AuditReport) -> None:
    assert not unreproduced(report)
