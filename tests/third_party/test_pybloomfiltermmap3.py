"""pybloomfiltermmap3 0.6.3 as installed: its seeds repeat, its bits read back (verdicts: test_libraries)."""

from __future__ import annotations

import random

from dedup_harness.bloom_audit.package_adapters import PybloomfiltermmapAdapter

from .requirements import require


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
