"""Small Bloom filters for testing the audit itself: one that is right, and variants that each break one thing.

They stand apart from the reference (a hashlib index, a set of bits) so that the checks are shown to
judge any filter, and so a change to the reference cannot change what these tests prove.
"""

from __future__ import annotations

import hashlib

from dedup_harness.core import bloom_sizing


class TextbookFilter:
    """Sized by docs/bloom.md's rule, indexed by BLAKE2b: passes every check."""

    def __init__(self, capacity: int, error_rate: float) -> None:
        self.capacity, self.error_rate = capacity, error_rate
        self.m = bloom_sizing.bits(capacity, error_rate)
        self.k = bloom_sizing.hashes(self.m, capacity)
        self._set: set[int] = set()

    def _hash(self, item: bytes, i: int) -> int:
        return int.from_bytes(hashlib.blake2b(item, digest_size=8, salt=i.to_bytes(16, "little")).digest(), "little")

    def bit_indexes(self, item: bytes) -> list[int]:
        return [self._hash(item, i) % self.m for i in range(self.k)]

    def insert(self, item: bytes) -> None:
        self._set.update(self.bit_indexes(item))

    def contains(self, item: bytes) -> bool:
        return all(b in self._set for b in self.bit_indexes(item))


class MaskIndexFilter(TextbookFilter):
    """datatrove's line: the index is ANDed with the size in bytes."""

    def bit_indexes(self, item: bytes) -> list[int]:
        return [self._hash(item, i) & (self.m // 8) for i in range(self.k)]


class EvenBitsFilter(TextbookFilter):
    """An index that only ever lands on even bits: half the filter is dead, but no mask explains it."""

    def bit_indexes(self, item: bytes) -> list[int]:
        return [2 * (self._hash(item, i) % (self.m // 2)) for i in range(self.k)]


class KTimesEightFilter(TextbookFilter):
    """k computed from bits where the formula expects bytes."""

    def __init__(self, capacity: int, error_rate: float) -> None:
        super().__init__(capacity, error_rate)
        self.k = bloom_sizing.hashes(8 * self.m, capacity)


class HalfBitsFilter(TextbookFilter):
    """Allocates half the bits its sizing asks for."""

    def __init__(self, capacity: int, error_rate: float) -> None:
        super().__init__(capacity, error_rate)
        self.m //= 2


class ForgetfulFilter(TextbookFilter):
    """Loses every item whose first byte is even: false negatives."""

    def insert(self, item: bytes) -> None:
        if item[0] % 2:
            super().insert(item)


class NoInsertMethod:
    """Not a Bloom filter at all: audit-bloom must refuse it with a clear message."""

    def __init__(self, capacity: int, error_rate: float) -> None:
        self.capacity = capacity
