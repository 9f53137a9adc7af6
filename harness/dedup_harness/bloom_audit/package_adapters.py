"""Adapters for the Bloom filters people install from the package index, each driven as its README shows.

Every adapter builds the filter with the library's own constructor from a capacity and an error rate,
and reads back what the library exposes: its bit count and k, its index function or its bits, and
the memory its bit array occupies. None of them corrects anything: a fault the audit finds is the
library's own. Packages are imported by name at run time, so this module imports without them.
"""

from __future__ import annotations

import hashlib
import importlib
import operator
import random
from collections.abc import Sequence
from typing import Any

from dedup_harness.bloom_audit.adapters import CaseRefused, NamedCallsAdapter
from dedup_harness.bloom_audit.bit_sources import bits_of


def stable_hash128(item: Any) -> int:
    """A process-independent 128-bit signed hash: rbloom's default (``hash``) is salted per process."""
    data = item if isinstance(item, bytes) else repr(item).encode()
    return int.from_bytes(hashlib.blake2b(data, digest_size=16).digest(), "little", signed=True)


class PackageAdapter(NamedCallsAdapter):
    """A filter built by its package's own constructor from a capacity and an error rate.

    ``construct`` calls the constructor (``BloomFilter(capacity, error_rate)`` unless the library's
    differs), ``calls`` names its insert, contains and batch insert, and ``sizes`` reads m and k back
    (from the attributes ``size_names`` names, unless the library hides them elsewhere).
    """

    module = ""  # the module the package installs
    constructor = "BloomFilter"  # its filter class, as the module exports it
    calls: tuple[str, str, str | None] = ("add", "__contains__", None)  # insert, contains, batch insert
    size_names = ("", "")  # the attributes that hold its m and its k, where it has such attributes
    storage = ""  # the attribute holding its bit array (``backend.array_``), whose memory storage_bits reads

    def __init__(self, capacity: int, error_rate: float) -> None:
        self.use(self.construct(importlib.import_module(self.module), capacity, error_rate), *self.calls)
        self.m, self.k = self.sizes()

    def construct(self, module: Any, capacity: int, error_rate: float) -> Any:
        return getattr(module, self.constructor)(capacity, error_rate)

    def sizes(self) -> tuple[int, int | None]:
        """Its bit count and k, as the filter reports them."""
        m, k = self.size_names
        return int(getattr(self.filter, m)), int(getattr(self.filter, k))

    def storage_bits(self) -> int | None:
        return 8 * memoryview(operator.attrgetter(self.storage)(self.filter)).nbytes if self.storage else None


class RbloomAdapter(PackageAdapter):
    """rbloom's ``Bloom``. Its k and bits are read from ``save_bytes()``: an 8-byte little-endian k, then the bits."""

    module, constructor = "rbloom", "Bloom"
    calls = ("add", "__contains__", "update")

    def __init__(self, capacity: int, error_rate: float, *, own_hash: bool = False) -> None:
        self.own_hash = own_hash  # its built-in hash, for speed: k and the bits can then not be read
        super().__init__(capacity, error_rate)

    def construct(self, module: Any, capacity: int, error_rate: float) -> Any:
        hashing = {} if self.own_hash else {"hash_func": stable_hash128}
        return module.Bloom(capacity, error_rate, **hashing)

    def sizes(self) -> tuple[int, int | None]:
        k = None if self.own_hash else int.from_bytes(self.filter.save_bytes()[:8], "little")
        return int(self.filter.size_in_bits), k

    def set_bits(self) -> set[int]:
        return bits_of(self.filter.save_bytes()[8:])

    def storage_bits(self) -> int:
        return 8 * (len(self.filter.save_bytes()) - 8)


class PybloomLiveAdapter(PackageAdapter):
    """pybloom-live's ``BloomFilter``: k slices of ``bits_per_slice`` bits, one index per slice."""

    module = "pybloom_live"
    storage = "bitarray"
    size_names = ("num_bits", "num_slices")
    has_indexes = True

    def bit_indexes(self, item: bytes) -> list[int]:
        width = self.filter.bits_per_slice
        return [i * width + int(h) for i, h in enumerate(self.filter.make_hashes(item))]


class BloomFilter2Adapter(PackageAdapter):
    """bloom-filter2's ``BloomFilter(max_elements, error_rate)`` in memory (its array backend).

    Its index function is the ``probe_bitnoer`` attribute that ``add`` and ``in`` call.
    """

    module = "bloom_filter2"
    storage = "backend.array_"
    size_names = ("num_bits_m", "num_probes_k")
    has_indexes = True

    def construct(self, module: Any, capacity: int, error_rate: float) -> Any:
        return module.BloomFilter(max_elements=capacity, error_rate=error_rate)

    def bit_indexes(self, item: bytes) -> list[int]:
        return [int(b) for b in self.filter.probe_bitnoer(self.filter, item)]


class BloomfilterPyAdapter(PackageAdapter):
    """bloomfilter-py's ``BloomFilter(expected_insertions, err_rate)``, Guava's layout and strategy.

    Its default funnel takes only ints and strings; bytes go through its own ``BYTE_ARRAY_FUNNEL``
    (Guava's byte-array funnel), which hashes them unchanged.
    """

    module = "bloomfilter"
    calls = ("put", "might_contain", None)

    def construct(self, module: Any, capacity: int, error_rate: float) -> Any:
        return module.BloomFilter(capacity, error_rate, funnel=module.BYTE_ARRAY_FUNNEL)

    def sizes(self) -> tuple[int, int | None]:
        return len(self.filter.data), int(self.filter.num_hash_functions)

    def set_bits(self) -> set[int]:
        return bits_of(self.filter.data.tobytes(), high_bit_first=True)  # "logical bit zero is the high bit"

    def storage_bits(self) -> int:
        return len(self.filter.data)  # its own BitArray: no buffer to measure


class PyprobablesAdapter(PackageAdapter):
    """pyprobables' ``BloomFilter(est_elements, false_positive_rate)`` with its default FNV-1a hashes."""

    module = "probables"
    storage = "bloom"
    calls = ("add", "check", None)
    size_names = ("number_bits", "number_hashes")

    def construct(self, module: Any, capacity: int, error_rate: float) -> Any:
        refusal = importlib.import_module("probables.exceptions").InitializationError
        try:
            return module.BloomFilter(est_elements=capacity, false_positive_rate=error_rate)
        except refusal as exc:
            raise CaseRefused(f"its constructor refuses: {exc}") from exc

    def set_bits(self) -> set[int]:
        return bits_of(bytes(self.filter.bloom))


class PybloomfiltermmapAdapter(PackageAdapter):
    """pybloomfiltermmap3's ``BloomFilter(capacity, error_rate)`` in memory (no file).

    It draws its k hash seeds from the global ``random`` module. The adapter seeds that module from
    the case for the construction only, and puts its state back, so a run repeats and nothing else
    sees the change; the seeds are still drawn by the library's own code.
    """

    module = "pybloomfilter"
    storage = "data_array"
    calls = ("add", "__contains__", "update")
    size_names = ("num_bits", "num_hashes")

    def construct(self, module: Any, capacity: int, error_rate: float) -> Any:
        state = random.getstate()
        random.seed(f"pybloomfiltermmap3:{capacity}:{error_rate!r}")
        try:
            return module.BloomFilter(capacity, error_rate)
        finally:
            random.setstate(state)

    def set_bits(self) -> set[int]:
        return bits_of(self.filter.data_array)  # 32-bit words, bit b & 31 of word b >> 5: little-endian bytes


class FastbloomAdapter(PackageAdapter):
    """fastbloom-rs's ``BloomFilter(expected_elements, false_positive_probability)``; bytes through its batch calls."""

    module = "fastbloom_rs"
    calls = ("add_bytes", "contains_bytes", "add_bytes_batch")
    has_indexes = True

    def sizes(self) -> tuple[int, int | None]:
        return int(self.filter.config().size()), int(self.filter.hashes())

    def contains_many(self, items: Sequence[bytes]) -> list[bool]:
        return [bool(answer) for answer in self.filter.contains_bytes_batch(list(items))]

    def bit_indexes(self, item: bytes) -> list[int]:
        return [int(b) for b in self.filter.get_hash_indices(item)]

    def storage_bits(self) -> int:
        return 8 * len(self.filter.get_bytes())
