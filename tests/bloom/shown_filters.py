"""Filters as their maintainers write them: no ``bit_indexes``, their bits wherever they chose to keep them.

Each keeps its bits in another holder (a bytearray, an int, a list of booleans, an object inside it,
nothing but its pickle state, or nowhere the audit can read), and each holder comes right, masked
(``h & m_bytes``, datatrove's line) or skewed (the sum of four digest bytes: a bell over the bits).
They stand apart from the reference and from broken_filters.py, which show ``bit_indexes``.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any


def _digest(item: bytes) -> bytes:
    return hashlib.blake2b(item, digest_size=32).digest()


class BytesFilter:
    """Sized by the textbook rule; bits in a bytearray, indexed by a private method of its own name."""

    def __init__(self, capacity: int, error_rate: float) -> None:
        n = max(capacity, 1)
        self.m = max(1, math.ceil(-n * math.log(error_rate) / math.log(2) ** 2))
        self.k = max(1, round(self.m / n * math.log(2)))
        self.count = 0  # grows with every insert, but is no bit array: the audit must not read it
        self.bits = bytearray(-(-self.m // 8))

    def _positions(self, item: bytes) -> list[int]:
        digest = _digest(item)
        h1, h2 = int.from_bytes(digest[:8], "little"), int.from_bytes(digest[8:16], "little") | 1
        return [self._reduce(h1 + i * h2) for i in range(self.k)]

    def _reduce(self, h: int) -> int:
        return h % self.m

    def _set(self, p: int) -> None:
        self.bits[p >> 3] |= 1 << (p & 7)

    def _has(self, p: int) -> bool:
        return bool(self.bits[p >> 3] >> (p & 7) & 1)

    def add(self, item: bytes) -> None:
        self.count += 1
        for p in self._positions(item):
            self._set(p)

    def __contains__(self, item: bytes) -> bool:
        return all(self._has(p) for p in self._positions(item))


class MaskedBytesFilter(BytesFilter):
    def _reduce(self, h: int) -> int:
        return h & len(self.bits)  # the size in bytes, ANDed


class SkewedBytesFilter(BytesFilter):
    def _positions(self, item: bytes) -> list[int]:
        digest = _digest(item)
        return [sum(digest[4 * i : 4 * i + 4]) * self.m // 1021 for i in range(self.k)]


class IntFilter(BytesFilter):
    """Bits in one Python int."""

    def __init__(self, capacity: int, error_rate: float) -> None:
        super().__init__(capacity, error_rate)
        self.ints = 0
        del self.bits

    def _set(self, p: int) -> None:
        self.ints |= 1 << p

    def _has(self, p: int) -> bool:
        return bool(self.ints >> p & 1)


class MaskedIntFilter(IntFilter):
    def _reduce(self, h: int) -> int:
        return h & (self.m // 8)


class Store:
    """An object holding a list of booleans: the filter's bits one level down."""

    def __init__(self, m: int) -> None:
        self.flags = [False] * m


class NestedListFilter(BytesFilter):
    """Bits as a list of booleans inside an object it holds; its index function is ``positions``."""

    def __init__(self, capacity: int, error_rate: float) -> None:
        super().__init__(capacity, error_rate)
        del self.bits
        self.store = Store(self.m)

    def positions(self, item: bytes) -> list[int]:
        return self._positions(item)

    def _set(self, p: int) -> None:
        self.store.flags[p] = True

    def _has(self, p: int) -> bool:
        return self.store.flags[p]


class Sealed(BytesFilter):
    """Bits in a closure: no attribute holds them. ``__getstate__`` can hand them to pickle (``Pickled``)."""

    def __init__(self, capacity: int, error_rate: float) -> None:
        super().__init__(capacity, error_rate)
        del self.bits
        store = bytearray(-(-self.m // 8))
        self._store = lambda: store

    def _set(self, p: int) -> None:
        self._store()[p >> 3] |= 1 << (p & 7)

    def _has(self, p: int) -> bool:
        return bool(self._store()[p >> 3] >> (p & 7) & 1)


class SealedMasked(Sealed):
    def _reduce(self, h: int) -> int:
        return h & (self.m // 8)


class SealedEvenBits(Sealed):
    """Only even bits: half of them never used, and nowhere to read that from."""

    def _reduce(self, h: int) -> int:
        return 2 * (h % (self.m // 2))


class Pickled(Sealed):
    """The closure's bits, handed to pickle as bytes: its pickle state is the one place they show."""

    def __getstate__(self) -> dict[str, Any]:
        return {"m": self.m, "k": self.k, "bits": bytes(self._store())}


class PickledMasked(Pickled, SealedMasked):
    pass


class BitsAndHashes:
    """Built from its bit count and hash count, as ``Filter(m_bits, k)``; its bits in a bytearray."""

    def __init__(self, m_bits: int, hashes: int) -> None:
        self.width, self.rounds = m_bits, hashes  # names the audit does not look for: m and k stay hidden
        self.bits = bytearray(-(-m_bits // 8))

    def _positions(self, item: bytes) -> list[int]:
        digest = _digest(item)
        h1, h2 = int.from_bytes(digest[:8], "little"), int.from_bytes(digest[8:16], "little") | 1
        return [(h1 + i * h2) % self.width for i in range(self.rounds)]

    def add(self, item: bytes) -> None:
        for p in self._positions(item):
            self.bits[p >> 3] |= 1 << (p & 7)

    def __contains__(self, item: bytes) -> bool:
        return all(self.bits[p >> 3] >> (p & 7) & 1 for p in self._positions(item))


class OneHashLess(BitsAndHashes):
    """Shows its k, one below the k it was built with."""

    def __init__(self, m_bits: int, hashes: int) -> None:
        super().__init__(m_bits, max(1, hashes - 1))
        self.k = self.rounds


class HashedFilter(BytesFilter):
    """Indexed by Python's own hash(), salted per process: its bits differ from one run to the next."""

    def _positions(self, item: bytes) -> list[int]:
        return [hash((i, item)) % self.m for i in range(self.k)]


class FullAtCapacity(BytesFilter):
    """Refuses an insert past the capacity it was built for, as pybloom-live does."""

    def __init__(self, capacity: int, error_rate: float) -> None:
        super().__init__(capacity, error_rate)
        self.capacity = capacity

    def add(self, item: bytes) -> None:
        if self.count >= self.capacity:
            raise IndexError("BloomFilter is at capacity")
        super().add(item)


class TextOnly(BytesFilter):
    """Takes str items only: the audit's bytes are refused."""

    def add(self, item: bytes) -> None:
        if not isinstance(item, str):
            raise TypeError(f"expected str, got {type(item).__name__}")
        super().add(item)
