"""fastbloom-rs 0.5.10 as installed: more than its promise at 1,024 bits and k = 10, and at p = 0.45."""

from __future__ import annotations

import pytest

from dedup_harness.bloom_audit.audit import AuditReport, audit
from dedup_harness.bloom_audit.filters import resolve_target
from dedup_harness.bloom_audit.package_adapters import FastbloomAdapter

from .requirements import failures, require, unreproduced


@pytest.fixture(scope="module")
def report() -> AuditReport:
    require("fastbloom_rs")
    return audit(resolve_target("fastbloom-rs"))


def test_its_index_function_is_what_contains_tests() -> None:
    require("fastbloom_rs")
    adapter = FastbloomAdapter(107, 0.01)
    adapter.insert_many([b"item"])
    assert adapter.filter.contains_hash_indices(adapter.bit_indexes(b"item")) and adapter.contains_many([b"item"])


def test_its_bit_count_is_whole_64_bit_words_and_every_bit_is_reached(report: AuditReport) -> None:
    assert all(row.allocated_bits and row.allocated_bits % 64 == 0 for row in report.rows)
    assert all(row.reachable_bits == row.allocated_bits for row in report.rows)


def test_it_breaks_its_promise_at_1024_bits_with_k_10_and_at_p_0_45(report: AuditReport) -> None:
    assert failures(report) == {
        "all-ones 1023: n=71, p=0.00099": ["rate above its promise"],
        "high rate 3000: n=1807, p=0.45": ["rate above its promise"],
    }


def test_every_fault_it_shows_has_a_reproduction(report: AuditReport) -> None:
    assert not unreproduced(report)
