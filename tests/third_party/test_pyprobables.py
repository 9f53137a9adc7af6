"""pyprobables 0.7.0 as installed: its bits read back, a refused case is n/a (verdicts: test_libraries)."""

from __future__ import annotations

import pytest

from dedup_harness.bloom_audit.adapters import CaseRefused
from dedup_harness.bloom_audit.audit import audit_case
from dedup_harness.bloom_audit.cases import Case
from dedup_harness.bloom_audit.filters import resolve_target
from dedup_harness.bloom_audit.package_adapters import PyprobablesAdapter

from .requirements import require


def test_the_bits_read_back_are_the_bits_an_insert_set() -> None:
    require("probables")
    adapter = PyprobablesAdapter(107, 0.01)
    adapter.insert(b"item")
    expected = {h % (adapter.m or 1) for h in adapter.filter.hashes(b"item")}
    assert adapter.set_bits() == expected


def test_a_rate_its_constructor_refuses_is_not_applicable_never_a_pass() -> None:
    # At p = 0.75, k = round(log2(1/p)) = 0: its constructor raises rather than build a useless filter.
    require("probables")
    with pytest.raises(CaseRefused):
        PyprobablesAdapter(4000, 0.75)
    row = audit_case(resolve_target("pyprobables"), Case("high rate", 2400, 4000, 0.75))
    assert row.verdict == "n/a" and {c.status for c in row.checks} == {"n/a"}
    assert "refuses" in row.promise_basis
