"""The reference filter follows docs/bloom.md at every size family (tests/reference/test_bloom.py pins its vectors)."""

from __future__ import annotations

import math

from hypothesis import example, given, settings
from hypothesis import strategies as st

from dedup_harness.bloom_audit.formulas import rate_for_bits
from dedup_harness.core import bloom_sizing, reference

from .sizes import bit_sizes

bloom = reference.load("corpus.bloom")


@settings(max_examples=60)
@given(m=bit_sizes(1, 20), bits_per_item=st.floats(0.05, 1000))
@example(m=2**20 * 8, bits_per_item=1000)
@example(m=1023, bits_per_item=1023 / 866)
def test_m_and_k_follow_spec_4_3_at_every_size_family(m: int, bits_per_item: float) -> None:
    capacity = max(1, round(m / bits_per_item))
    rate = rate_for_bits(capacity, m)
    f = bloom.BloomFilter(capacity, rate)
    assert f.m == m == bloom_sizing.bits(capacity, rate)
    assert f.k == bloom_sizing.hashes(m, capacity) == max(1, round(m / max(capacity, 1) * math.log(2)))


@given(capacity=st.integers(0, 10**6), rate=st.floats(1e-12, 0.99))
def test_bits_for_and_hashes_for_match_the_formula_written_from_the_spec(capacity: int, rate: float) -> None:
    assert bloom.bits_for(capacity, rate) == bloom_sizing.bits(capacity, rate)
    m = bloom_sizing.bits(capacity, rate)
    assert bloom.hashes_for(m, capacity) == bloom_sizing.hashes(m, capacity)


@settings(max_examples=40)
@given(m=bit_sizes(1, 20), item=st.binary(max_size=40))
def test_every_index_lies_in_range_m(m: int, item: bytes) -> None:
    f = bloom.BloomFilter(max(1, m // 10), rate_for_bits(max(1, m // 10), m))
    assert all(0 <= b < m for b in f.bit_indexes(item))
