"""fastbloom-rs 0.5.10 as installed: its index function is what contains tests (verdicts: test_libraries)."""

from __future__ import annotations

from dedup_harness.bloom_audit.package_adapters import FastbloomAdapter

from .requirements import require


def test_its_index_function_is_what_contains_tests() -> None:
    require("fastbloom_rs")
    adapter = FastbloomAdapter(107, 0.01)
    adapter.insert_many([b"item"])
    assert adapter.filter.contains_hash_indices(adapter.bit_indexes(b"item")) and adapter.contains_many([b"item"])
