"""The reference filter follows the shared sizing and hash rules (docs/bloom.md)."""

from __future__ import annotations

import hashlib
import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corpus.bloom import BloomFilter

LN2 = math.log(2)


def expected_m_k(capacity: int, rate: float) -> tuple[int, int]:
    n = max(capacity, 1)
    m = max(1, math.ceil(-n * math.log(rate) / LN2**2))
    return m, max(1, round(m / n * LN2))


class TestSizing:
    @pytest.mark.parametrize(
        ("capacity", "rate"),
        [(0, 0.5), (1, 0.01), (5, 2.0293295497491454e-17), (1000, 0.021), (12345, 1e-6), (7, 0.99)],
    )
    def test_m_and_k_follow_the_formulas(self, capacity: int, rate: float) -> None:
        f = BloomFilter(capacity, rate)
        assert (f.m, f.k) == expected_m_k(capacity, rate)
        assert (f.capacity, f.error_rate) == (capacity, rate)

    def test_the_chapter_example_has_400_bits_and_55_hashes(self) -> None:
        f = BloomFilter(5, math.exp(-80 * LN2**2))
        assert (f.m, f.k) == (400, 55)

    def test_storage_is_one_bit_per_position_rounded_up_to_bytes(self) -> None:
        for capacity in (1, 3, 17):
            f = BloomFilter(capacity, 0.3)
            assert len(f.bits) == math.ceil(f.m / 8)

    @pytest.mark.parametrize("rate", [0.0, 1.0, -0.1, 1.5, math.nan, math.inf])
    def test_a_rate_outside_zero_one_is_refused_by_name(self, rate: float) -> None:
        with pytest.raises(ValueError, match=re.escape(repr(rate))):
            BloomFilter(10, rate)

    @pytest.mark.parametrize("capacity", [True, 2.0, "10", None])
    def test_a_capacity_that_is_not_an_int_is_refused_by_name(self, capacity: object) -> None:
        with pytest.raises(TypeError, match=re.escape(repr(capacity))):
            BloomFilter(capacity, 0.1)  # type: ignore[arg-type]

    def test_a_negative_capacity_is_refused_by_name(self) -> None:
        with pytest.raises(ValueError, match="-1"):
            BloomFilter(-1, 0.1)


class TestHashRule:
    def test_the_cat_vector_begins_with_the_documented_bits(self) -> None:
        f = BloomFilter(5, math.exp(-80 * LN2**2))
        digest = hashlib.sha256(b"The cat sat.").digest()
        assert f.bit_indexes(digest)[:6] == [267, 239, 273, 191, 159, 95]

    def test_bit_b_lives_in_bit_b_and_7_of_byte_b_shift_3(self) -> None:
        f = BloomFilter(3, 0.2)
        item = b"layout"
        f.insert(item)
        for b in f.bit_indexes(item):
            assert f.bits[b >> 3] >> (b & 7) & 1

    @pytest.mark.parametrize(
        ("capacity", "m"), [(7, 8), (59, 63), (120, 128), (239, 255), (478, 509), (940, 1000), (962, 1023)]
    )
    def test_every_bit_is_reachable(self, capacity: int, m: int) -> None:
        """Powers of two, all-ones sizes, primes and round numbers alike: the indexes cover all m bits."""
        f = BloomFilter(capacity, 0.6)
        assert (f.m, f.k) == (m, 1)
        reached = {b for n in range(12 * m) for b in f.bit_indexes(n.to_bytes(4, "big"))}
        assert reached == set(range(m))


@given(items=st.lists(st.binary(max_size=40), max_size=60), capacity=st.integers(0, 80))
def test_no_false_negatives(items: list[bytes], capacity: int) -> None:
    f = BloomFilter(capacity, 0.2)
    for item in items:
        f.insert(item)
    assert all(f.contains(item) for item in items)
