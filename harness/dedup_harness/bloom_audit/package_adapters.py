"""Adapters for the Bloom filters people install from the package index, each driven as its README shows.

Every adapter builds the filter with the library's own constructor from a capacity and an error rate,
and reads back what the library exposes: its bit count and k, its index function or its bits, and
the memory its bit array occupies. None of them corrects anything: a fault the audit finds is the
library's own. Packages are imported by name at run time, so this module imports without them.
"""

from __future__ import annotations

import hashlib
import importlib
import random
from collections.abc import Sequence
from typing import Any

from dedup_harness.bloom_audit.adapters import BloomAdapter, CaseRefused


def bits_of(data: bytes, *, high_bit_first: bool = False) -> set[int]:
    """The set bits of a byte string, bit b at byte b // 8 (its lowest bit first, unless ``high_bit_first``)."""
    order = range(7, -1, -1) if high_bit_first else range(8)
    return {i * 8 + place for i, byte in enumerate(data) if byte for place, bit in enumerate(order) if byte >> bit & 1}


def stable_hash128(item: Any) -> int:
    """A process-independent 128-bit signed hash: rbloom's default (``hash``) is salted per process."""
    data = item if isinstance(item, bytes) else repr(item).encode()
    return int.from_bytes(hashlib.blake2b(data, digest_size=16).digest(), "little", signed=True)


class RbloomAdapter(BloomAdapter):
    """rbloom's ``Bloom``. Its k and bits are read from ``save_bytes()``: an 8-byte little-endian k, then the bits."""

    def __init__(self, capacity: int, error_rate: float, *, own_hash: bool = False) -> None:
        rbloom = importlib.import_module("rbloom")
        if own_hash:  # its built-in hash, for speed: k and the bits can then not be read
            self.filter = rbloom.Bloom(capacity, error_rate)
            self.m = int(self.filter.size_in_bits)
            return
        self.filter = rbloom.Bloom(capacity, error_rate, hash_func=stable_hash128)
        self.m = int(self.filter.size_in_bits)
        self.k = int.from_bytes(self.filter.save_bytes()[:8], "little")

    def insert(self, item: bytes) -> None:
        self.filter.add(item)

    def insert_many(self, items: Sequence[bytes]) -> None:
        self.filter.update(items)

    def contains(self, item: bytes) -> bool:
        return item in self.filter

    def set_bits(self) -> set[int]:
        return bits_of(self.filter.save_bytes()[8:])

    def storage_bits(self) -> int:
        return 8 * (len(self.filter.save_bytes()) - 8)


class PybloomLiveAdapter(BloomAdapter):
    """pybloom-live's ``BloomFilter``: k slices of ``bits_per_slice`` bits, one index per slice."""

    has_indexes = True

    def __init__(self, capacity: int, error_rate: float) -> None:
        pybloom = importlib.import_module("pybloom_live")
        self.filter = pybloom.BloomFilter(capacity, error_rate)
        self.m = int(self.filter.num_bits)
        self.k = int(self.filter.num_slices)

    def insert(self, item: bytes) -> None:
        self.filter.add(item)

    def contains(self, item: bytes) -> bool:
        return item in self.filter

    def bit_indexes(self, item: bytes) -> list[int]:
        width = self.filter.bits_per_slice
        return [i * width + int(h) for i, h in enumerate(self.filter.make_hashes(item))]

    def storage_bits(self) -> int:
        return len(self.filter.bitarray)


class BloomFilter2Adapter(BloomAdapter):
    """bloom-filter2's ``BloomFilter(max_elements, error_rate)`` in memory (its array backend).

    Its index function is the ``probe_bitnoer`` attribute that ``add`` and ``in`` call.
    """

    has_indexes = True

    def __init__(self, capacity: int, error_rate: float) -> None:
        module = importlib.import_module("bloom_filter2")
        self.filter = module.BloomFilter(max_elements=capacity, error_rate=error_rate)
        self.m = int(self.filter.num_bits_m)
        self.k = int(self.filter.num_probes_k)

    def insert(self, item: bytes) -> None:
        self.filter.add(item)

    def contains(self, item: bytes) -> bool:
        return item in self.filter

    def bit_indexes(self, item: bytes) -> list[int]:
        return [int(b) for b in self.filter.probe_bitnoer(self.filter, item)]

    def storage_bits(self) -> int:
        words = self.filter.backend.array_
        return 8 * int(words.itemsize) * len(words)


class BloomfilterPyAdapter(BloomAdapter):
    """bloomfilter-py's ``BloomFilter(expected_insertions, err_rate)``, Guava's layout and strategy.

    Its default funnel takes only ints and strings; bytes go through its own ``BYTE_ARRAY_FUNNEL``
    (Guava's byte-array funnel), which hashes them unchanged.
    """

    def __init__(self, capacity: int, error_rate: float) -> None:
        module = importlib.import_module("bloomfilter")
        self.filter = module.BloomFilter(capacity, error_rate, funnel=module.BYTE_ARRAY_FUNNEL)
        self.m = len(self.filter.data)
        self.k = int(self.filter.num_hash_functions)

    def insert(self, item: bytes) -> None:
        self.filter.put(item)

    def contains(self, item: bytes) -> bool:
        return bool(self.filter.might_contain(item))

    def set_bits(self) -> set[int]:
        return bits_of(self.filter.data.tobytes(), high_bit_first=True)  # "logical bit zero is the high bit"

    def storage_bits(self) -> int:
        return len(self.filter.data)


class PyprobablesAdapter(BloomAdapter):
    """pyprobables' ``BloomFilter(est_elements, false_positive_rate)`` with its default FNV-1a hashes."""

    def __init__(self, capacity: int, error_rate: float) -> None:
        module = importlib.import_module("probables")
        refusal = importlib.import_module("probables.exceptions").InitializationError
        try:
            self.filter = module.BloomFilter(est_elements=capacity, false_positive_rate=error_rate)
        except refusal as exc:
            raise CaseRefused(f"its constructor refuses: {exc}") from exc
        self.m = int(self.filter.number_bits)
        self.k = int(self.filter.number_hashes)

    def insert(self, item: bytes) -> None:
        self.filter.add(item)

    def contains(self, item: bytes) -> bool:
        return bool(self.filter.check(item))

    def set_bits(self) -> set[int]:
        return bits_of(bytes(self.filter.bloom))

    def storage_bits(self) -> int:
        bloom = self.filter.bloom
        return 8 * int(bloom.itemsize) * len(bloom)


class PybloomfiltermmapAdapter(BloomAdapter):
    """pybloomfiltermmap3's ``BloomFilter(capacity, error_rate)`` in memory (no file).

    It draws its k hash seeds from the global ``random`` module. The adapter seeds that module from
    the case for the construction only, and puts its state back, so a run repeats and nothing else
    sees the change; the seeds are still drawn by the library's own code.
    """

    def __init__(self, capacity: int, error_rate: float) -> None:
        module = importlib.import_module("pybloomfilter")
        state = random.getstate()
        random.seed(f"pybloomfiltermmap3:{capacity}:{error_rate!r}")
        try:
            self.filter = module.BloomFilter(capacity, error_rate)
        finally:
            random.setstate(state)
        self.m = int(self.filter.num_bits)
        self.k = int(self.filter.num_hashes)

    def insert(self, item: bytes) -> None:
        self.filter.add(item)

    def insert_many(self, items: Sequence[bytes]) -> None:
        self.filter.update(items)

    def contains(self, item: bytes) -> bool:
        return item in self.filter

    def set_bits(self) -> set[int]:
        return bits_of(self.filter.data_array)  # 32-bit words, bit b & 31 of word b >> 5: little-endian bytes

    def storage_bits(self) -> int:
        return 8 * len(self.filter.data_array)


class FastbloomAdapter(BloomAdapter):
    """fastbloom-rs's ``BloomFilter(expected_elements, false_positive_probability)``; bytes through its batch calls."""

    has_indexes = True

    def __init__(self, capacity: int, error_rate: float) -> None:
        module = importlib.import_module("fastbloom_rs")
        self.filter = module.BloomFilter(capacity, error_rate)
        self.m = int(self.filter.config().size())
        self.k = int(self.filter.hashes())

    def insert(self, item: bytes) -> None:
        self.filter.add_bytes(item)

    def insert_many(self, items: Sequence[bytes]) -> None:
        self.filter.add_bytes_batch(list(items))

    def contains(self, item: bytes) -> bool:
        return bool(self.filter.contains_bytes(item))

    def contains_many(self, items: Sequence[bytes]) -> list[bool]:
        return [bool(answer) for answer in self.filter.contains_bytes_batch(list(items))]

    def bit_indexes(self, item: bytes) -> list[int]:
        return [int(b) for b in self.filter.get_hash_indices(item)]

    def storage_bits(self) -> int:
        return 8 * len(self.filter.get_bytes())
