"""A Bloom filter with the course's shared bit-sizing and hash rules (docs/bloom.md).

Sizing, for ``n = max(capacity, 1)`` items at false-positive rate ``p``::

    m = ceil(-n ln p / (ln 2)**2)  bits (at least 1)
    k = max(1, round(m / n * ln 2)) hashes

An item's k bits come from SplitMix64 seeded by FNV-1a: with ``h = fnv1a_64(item)``, bit ``i`` is
``splitmix64(h + i * GOLDEN_GAMMA) mod m``. Every one of the m bits is reachable, whatever m is.
"""

from __future__ import annotations

import math

from corpus.hashing import GOLDEN_GAMMA, MASK64, fnv1a_64, splitmix64

LN2 = math.log(2)


def bits_for(capacity: int, error_rate: float) -> int:
    """The bit count m that holds ``capacity`` items at ``error_rate``."""
    n = max(capacity, 1)
    return max(1, math.ceil(-n * math.log(error_rate) / LN2**2))


def hashes_for(m: int, capacity: int) -> int:
    """The optimal hash count k for m bits and ``capacity`` items."""
    n = max(capacity, 1)
    return max(1, round(m / n * LN2))


class BloomFilter:
    """A fixed-size Bloom filter over byte strings: no false negatives, false positives at about ``error_rate``."""

    def __init__(self, capacity: int, error_rate: float) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int):
            raise TypeError(f"capacity must be an int, got {capacity!r}")
        if capacity < 0:
            raise ValueError(f"capacity must be at least 0, got {capacity!r}")
        if not 0.0 < error_rate < 1.0:  # also false for NaN
            raise ValueError(f"error_rate must lie strictly between 0 and 1, got {error_rate!r}")
        self.capacity = capacity
        self.error_rate = error_rate
        self.m = bits_for(capacity, error_rate)
        self.k = hashes_for(self.m, capacity)
        self.bits = bytearray((self.m + 7) // 8)  # bit b is bit b & 7 of byte b >> 3
        self._last: tuple[bytes, list[int]] | None = None  # see _bits, below

    def bit_indexes(self, item: bytes) -> list[int]:
        """The k bit positions of ``item``: SplitMix64 seeded by FNV-1a, mod m (every bit is reachable)."""
        h = fnv1a_64(item)
        return [splitmix64((h + i * GOLDEN_GAMMA) & MASK64) % self.m for i in range(self.k)]

    def insert(self, item: bytes) -> None:
        """Set the item's k bits."""
        for b in self._bits(item):
            self.bits[b >> 3] |= 1 << (b & 7)

    def contains(self, item: bytes) -> bool:
        """True when all the item's k bits are set: "maybe seen". False means "definitely new"."""
        return all(self.bits[b >> 3] & (1 << (b & 7)) for b in self._bits(item))

    def _bits(self, item: bytes) -> list[int]:
        """``bit_indexes(item)``, kept for the last item (for speed only: a first reading may skip it). Pass 2
        asks contains(d), then insert(d) for a new digest: the second call costs no hashing."""
        if self._last is None or self._last[0] != item:
            self._last = (bytes(item), self.bit_indexes(item))
        return self._last[1]
