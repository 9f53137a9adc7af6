"""pybloomfiltermmap3 0.6.3 as installed: k rounded down breaks its promise at p = 0.26, runs repeat."""

from __future__ import annotations

import random

import pytest

from dedup_harness.bloom_audit.audit import AuditReport, audit
from dedup_harness.bloom_audit.filters import resolve_target
from dedup_harness.bloom_audit.package_adapters import PybloomfiltermmapAdapter

from .requirements import failures, require, unreproduced


@pytest.fixture(scope="module")
def report() -> AuditReport:
    require("pybloomfilter")
    return audit(resolve_target("pybloomfiltermmap3"))


def test_building_one_repeats_its_hash_seeds_and_leaves_the_global_random_alone() -> None:
    require("pybloomfilter")
    before = random.getstate()
    first, second = PybloomfiltermmapAdapter(107, 0.01), PybloomfiltermmapAdapter(107, 0.01)
    assert random.getstate() == before
    assert list(first.filter.hash_seeds) == list(second.filter.hash_seeds)


def test_the_bits_read_back_are_the_bits_an_insert_set() -> None:
    require("pybloomfilter")
    adapter = PybloomfiltermmapAdapter(107, 0.01)
    adapter.insert(b"item")
    assert 1 <= len(adapter.set_bits()) <= (adapter.k or 0) and adapter.filter.bit_count == len(adapter.set_bits())


def test_k_rounded_down_breaks_its_promise_at_p_0_26_only(report: AuditReport) -> None:
    # k = floor(log2(1 / 0.26)) = 1 over bits sized for k = 1.94: about 0.30 delivered.
    assert failures(report) == {"high rate 3000: n=1071, p=0.26": ["rate above its promise"]}
    assert all(c.status == "pass" for row in report.rows for c in row.checks if c.check in ("sizing", "k"))


def test_every_fault_it_shows_has_a_reproduction(report: AuditReport) -> None:
    assert not unreproduced(report)
