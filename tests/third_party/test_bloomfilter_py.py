"""bloomfilter-py 2.0.0 as installed: the bits read back are an insert's (verdicts: test_libraries)."""

from __future__ import annotations

from dedup_harness.bloom_audit.package_adapters import BloomfilterPyAdapter

from .requirements import require


def test_the_bits_read_back_are_the_bits_an_insert_set() -> None:
    require("bloomfilter")
    adapter = BloomfilterPyAdapter(107, 0.01)
    assert adapter.set_bits() == set()
    adapter.insert(b"item")
    assert 1 <= len(adapter.set_bits()) <= (adapter.k or 0) and adapter.contains(b"item")
