"""datatrove 0.10.1 as installed: the bloommask report reproduced, and the audit that fails it for each fault."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dedup_harness.bloom_audit import datatrove_mask
from dedup_harness.cli import main

from .requirements import require

bloom = require("datatrove.pipeline.dedup.bloom_filter")


def test_the_installed_line_is_the_mask() -> None:
    import inspect

    assert "np.bitwise_and((shingles * a + b) % _mersenne_prime, self.config.m_bytes)" in inspect.getsource(
        bloom.SingleBloomFilter.get_indexes
    )


def test_get_indexes_reaches_exactly_2_to_the_popcount_of_m_bytes() -> None:
    for row in datatrove_mask.law_rows(bloom):
        assert row.all_submasks, row
        assert row.measured == row.reachable == 2 ** datatrove_mask.popcount(row.m_bytes), row


def test_it_logs_2_8e_minus_29_and_delivers_1_at_2_to_the_20_bytes() -> None:
    gap = datatrove_mask.rate_gap(bloom)
    assert gap.logged_by_datatrove == pytest.approx(2.8e-29, rel=0.02)
    assert gap.delivered_measured == 1.0


def test_its_own_run_drops_49_of_50_unique_documents_and_none_with_the_reduction_fixed() -> None:
    drops = datatrove_mask.document_drops(bloom)
    assert (drops.documents, drops.dropped_shipped, drops.dropped_fixed) == (50, 49, 0)
    assert drops.dropped_count_in_stats == 98  # each drop counted by step() and again by run()


def test_k_derived_from_bits_is_466_where_59_is_optimal() -> None:
    assert bloom.BloomFilterConfig(m_bytes=2**20, expected_elements=100_000).k == 466
    assert bloom.get_optimal_k(2**20, 100_000) == 59


@pytest.fixture(scope="module")
def audit_json() -> dict[str, Any]:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["audit-bloom", "datatrove", "--json", "-"]) == 1
    report: dict[str, Any] = json.loads(out.getvalue())
    return report


def test_the_audit_fails_every_shipped_case_naming_the_mask(audit_json: dict[str, Any]) -> None:
    (entry,) = audit_json["targets"]
    shipped = [row for row in entry["rows"] if not row["control"]]
    assert shipped and all("index reduced by a mask" in row["causes"] for row in shipped)
    own_test = next(row for row in shipped if row["family"] == "datatrove's own test")
    assert own_test["reachable_bits"] == 1024 and own_test["delivered_rate"] > 0.9


def test_the_audit_reports_the_k_fault_separately_and_the_control_isolates_it(audit_json: dict[str, Any]) -> None:
    (entry,) = audit_json["targets"]
    causes = [finding["cause"] for finding in entry["findings"]]
    assert causes[:2] == ["k from bits where bytes are expected (x8)", "index reduced by a mask"]
    controls = [row for row in entry["rows"] if row["control"]]
    derived = [row for row in controls if row["given_k"] is None]
    assert derived and all(row["causes"] == ["k from bits where bytes are expected (x8)"] for row in derived)
    assert all(row["reachable_bits"] == row["allocated_bits"] for row in derived)


def test_the_audit_notes_max_hash_and_the_double_count(audit_json: dict[str, Any]) -> None:
    (entry,) = audit_json["targets"]
    notes = {note["cause"] for note in entry["notes"]}
    assert notes == {"dropped documents counted twice", "MAX_HASH is 2**31, not 2**32 - 1"}
    assert audit_json["bloommask"]["drops"]["dropped_shipped"] == 49
