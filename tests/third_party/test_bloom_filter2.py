"""bloom-filter2 2.0.0 as installed: its index function is what add and in use (verdicts: test_libraries)."""

from __future__ import annotations

from dedup_harness.bloom_audit.package_adapters import BloomFilter2Adapter

from .requirements import require


def test_its_index_function_is_what_add_and_in_use() -> None:
    require("bloom_filter2")
    adapter = BloomFilter2Adapter(107, 0.01)
    adapter.insert(b"item")
    assert adapter.contains(b"item") and all(adapter.filter.backend.is_set(b) for b in adapter.bit_indexes(b"item"))
