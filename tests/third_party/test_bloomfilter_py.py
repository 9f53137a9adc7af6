"""bloomfilter-py 2.0.0 as installed: Guava's sizing in whole words, and every case kept."""

from __future__ import annotations

import pytest

from dedup_harness.bloom_audit.audit import AuditReport, audit
from dedup_harness.bloom_audit.filters import resolve_target
from dedup_harness.bloom_audit.package_adapters import BloomfilterPyAdapter

from .requirements import require


@pytest.fixture(scope="module")
def report() -> AuditReport:
    require("bloomfilter")
    return audit(resolve_target("bloomfilter-py"))


def test_the_bits_read_back_are_the_bits_an_insert_set() -> None:
    require("bloomfilter")
    adapter = BloomfilterPyAdapter(107, 0.01)
    assert adapter.set_bits() == set()
    adapter.insert(b"item")
    assert 1 <= len(adapter.set_bits()) <= (adapter.k or 0) and adapter.contains(b"item")


def test_its_bit_count_is_whole_64_bit_words(report: AuditReport) -> None:
    assert all(row.allocated_bits and row.allocated_bits % 64 == 0 for row in report.rows)


def test_it_passes_every_case_a_correct_filter_passes(report: AuditReport) -> None:
    assert report.status == "pass", [(row.case, row.causes) for row in report.rows if row.verdict != "pass"]
    assert not report.findings and not report.notes
