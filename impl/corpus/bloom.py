"""A Bloom filter with the course's shared bit-sizing and hash rules (formats/bloom.md).

Sizing, for ``n = max(capacity, 1)`` items at false-positive rate ``p``::

    m = ceil(-n ln p / (ln 2)**2)  bits (at least 1)
    k = max(1, round(m / n * ln 2)) hashes

An item's k bits come from SplitMix64 seeded by FNV-1a: with ``h = fnv1a_64(item)``, bit ``i`` is
``splitmix64(h + i * GOLDEN_GAMMA) mod m``. Every one of the m bits is reachable, whatever m is.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence

from corpus.hashing import GOLDEN_GAMMA, MASK64, fnv1a_64, splitmix64

LN2 = math.log(2)

# The batch path: numpy when it is installed, else none (the per-item loop below is the definition).
_numpy_screen: Callable[[bytearray, int, int, Sequence[bytes]], list[bool]] | None
try:
    from corpus.bloom_numpy import MAX_BITS as _NUMPY_MAX_BITS
    from corpus.bloom_numpy import screen_batch as _numpy_screen
except ImportError:
    _numpy_screen, _NUMPY_MAX_BITS = None, 0

# False runs the per-item loop even where numpy is installed; CORPUS_BLOOM_PURE=1 sets it at import.
USE_NUMPY = os.environ.get("CORPUS_BLOOM_PURE", "") in ("", "0")


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
        self._bits = bytearray((self.m + 7) // 8)

    def bit_indexes(self, item: bytes) -> list[int]:
        """The k bit positions of ``item``, each in ``range(m)``."""
        h = fnv1a_64(item)
        return [splitmix64((h + i * GOLDEN_GAMMA) & MASK64) % self.m for i in range(self.k)]

    def insert(self, item: bytes) -> None:
        """Set the item's k bits."""
        self._set_all(self.bit_indexes(item))

    def contains(self, item: bytes) -> bool:
        """True when all the item's k bits are set: "maybe seen". False means "definitely new"."""
        return self._all_set(self.bit_indexes(item))

    def _all_set(self, positions: list[int]) -> bool:
        """Is every bit in ``positions`` set? (Bit b is bit b & 7 of byte b >> 3.)"""
        return all(self._bits[b >> 3] & (1 << (b & 7)) for b in positions)

    def _set_all(self, positions: list[int]) -> None:
        for b in positions:
            self._bits[b >> 3] |= 1 << (b & 7)

    def screen_batch(self, items: Sequence[bytes]) -> list[bool]:
        """For each item in order: was it reported present? Items reported new are inserted.

        Exactly ``[self.contains(x) or self.insert(x) ... ]`` item by item, so an item inserted
        early in the batch can make a later one in the same batch read as present.
        """
        if USE_NUMPY and _numpy_screen is not None and self.m <= _NUMPY_MAX_BITS:
            return _numpy_screen(self._bits, self.m, self.k, items)  # the same answers, a batch at a time
        answers = []
        for item in items:  # contains() then insert(), with the item's bit positions computed once
            positions = self.bit_indexes(item)
            present = self._all_set(positions)
            if not present:
                self._set_all(positions)
            answers.append(present)
        return answers
