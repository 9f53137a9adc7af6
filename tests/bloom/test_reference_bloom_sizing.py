"""The reference filter follows SPEC 4.3 at every size family: m, k, the index function and bad input."""

from __future__ import annotations

import hashlib
import math

import pytest
from dedup_harness.bloom_adapters import import_reference_bloom
from dedup_harness.bloom_formulas import rate_for_bits, spec_bits, spec_hashes
from hypothesis import example, given, settings
from hypothesis import strategies as st

from .sizes import bit_sizes

bloom = import_reference_bloom()


@settings(max_examples=60)
@given(m=bit_sizes(1, 20), bits_per_item=st.floats(0.05, 1000))
@example(m=2**20 * 8, bits_per_item=1000)
@example(m=1023, bits_per_item=1023 / 866)
def test_m_and_k_follow_spec_4_3_at_every_size_family(m: int, bits_per_item: float) -> None:
    capacity = max(1, round(m / bits_per_item))
    rate = rate_for_bits(capacity, m)
    f = bloom.BloomFilter(capacity, rate)
    assert f.m == m == spec_bits(capacity, rate)
    assert f.k == spec_hashes(m, capacity) == max(1, round(m / max(capacity, 1) * math.log(2)))


@given(capacity=st.integers(0, 10**6), rate=st.floats(1e-12, 0.99))
def test_bits_for_and_hashes_for_match_the_formula_written_from_the_spec(capacity: int, rate: float) -> None:
    assert bloom.bits_for(capacity, rate) == spec_bits(capacity, rate)
    m = spec_bits(capacity, rate)
    assert bloom.hashes_for(m, capacity) == spec_hashes(m, capacity)


def test_the_spec_vector_at_400_bits_and_55_hashes() -> None:
    capacity = 5  # round(400 / 5 * ln 2) = 55
    f = bloom.BloomFilter(capacity, rate_for_bits(capacity, 400))
    assert (f.m, f.k) == (400, 55)
    digest = hashlib.sha256(b"The cat sat.").digest()
    assert f.bit_indexes(digest)[:6] == [267, 239, 273, 191, 159, 95]


@settings(max_examples=40)
@given(m=bit_sizes(1, 20), item=st.binary(max_size=40))
def test_every_index_lies_in_range_m(m: int, item: bytes) -> None:
    f = bloom.BloomFilter(max(1, m // 10), rate_for_bits(max(1, m // 10), m))
    assert all(0 <= b < m for b in f.bit_indexes(item))


@pytest.mark.parametrize("rate", [0.0, 1.0, -0.5, 1.5, float("nan")])
def test_an_error_rate_outside_zero_one_is_a_value_error_naming_it(rate: float) -> None:
    with pytest.raises(ValueError, match=str(rate)):
        bloom.BloomFilter(10, rate)


def test_a_negative_capacity_is_a_value_error_naming_it() -> None:
    with pytest.raises(ValueError, match="-3"):
        bloom.BloomFilter(-3, 0.01)


@given(m=bit_sizes(1, 12), item=st.binary(max_size=20))
def test_storage_is_ceil_m_over_8_bytes_with_bit_b_at_byte_b_shift_3(m: int, item: bytes) -> None:
    capacity = max(1, m // 10)
    f = bloom.BloomFilter(capacity, rate_for_bits(capacity, m))
    f.insert(item)
    stored = bytes(f._bits)
    assert len(stored) == math.ceil(m / 8)
    expected = bytearray(len(stored))
    for b in f.bit_indexes(item):
        expected[b >> 3] |= 1 << (b & 7)
    assert stored == bytes(expected)
