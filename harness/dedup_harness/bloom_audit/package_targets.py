"""The installed packages audit-bloom knows, and what each one's own sizing rule promises.

Each rule is written here from the library's documentation and constructor, not imported from it:
the sizing check compares the bits the filter allocated with the bits its own rule gives. Where a
library states no rule for k, the k check asks for the optimum within one instead. The promised
false-positive rate is always the rate the filter was constructed with. What differs from one
library to the next is data (a ``Library`` each, in ``PACKAGE_TARGETS``); one class drives them all.
"""

from __future__ import annotations

import importlib
import math
import struct
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from importlib.metadata import version

from dedup_harness.bloom_audit import package_adapters as pa
from dedup_harness.bloom_audit.adapters import BloomAdapter
from dedup_harness.bloom_audit.cases import Case, Promise
from dedup_harness.bloom_audit.target import AuditTarget
from dedup_harness.core.bloom_sizing import LN2

CONSTRUCTED_WITH = "the error rate it was constructed with"


def textbook_bits(capacity: int, error_rate: float) -> float:
    """The real-valued ``-n ln p / (ln 2)**2`` that every library here starts from."""
    return -capacity * math.log(error_rate) / LN2**2


def whole_words(bits: int, word: int = 64) -> int:
    return -(-bits // word) * word


Rule = Callable[[int, float], int]  # (capacity, error rate) -> bits or hashes


@dataclass(frozen=True)
class Library:
    """What differs from one installed package to the next: its name, adapter and own sizing rule."""

    name: str  # the distribution, as pip names it
    adapter: type[pa.PackageAdapter]
    what: str  # what the description says after the package and its version
    bits: Rule | None = None  # its rule for m; None where it states none
    k: Rule | None = None  # its rule for k; None: the k check asks for the optimum within one
    basis: str = CONSTRUCTED_WITH  # where the promise comes from, in the table's words
    timed: Callable[[int, float], BloomAdapter] | None = None  # what the throughput run times, if not the build
    timed_how: str = ""  # said after the throughput case's sizing when ``timed`` is given

    @property
    def module(self) -> str:
        """The module it installs."""
        return self.adapter.module


class PackageTarget(AuditTarget):
    """A filter from an installed package, built as ``adapter(capacity, error_rate)``."""

    def __init__(self, library: Library) -> None:
        importlib.import_module(library.module)  # not installed: an ImportError names it before any case runs
        self.library, self.name, self.version = library, library.name, version(library.name)
        self.description = f"{self.name} {self.version} {library.what}"

    def build(self, case: Case) -> BloomAdapter:
        assert case.error_rate is not None
        return self.library.adapter(case.capacity, case.error_rate)

    def throughput_case(self, capacity: int, error_rate: float) -> tuple[Case, str]:
        case, how = super().throughput_case(capacity, error_rate)
        return case, how + self.library.timed_how

    def build_for_speed(self, case: Case) -> BloomAdapter:
        if self.library.timed is None:
            return self.build(case)
        assert case.error_rate is not None
        return self.library.timed(case.capacity, case.error_rate)

    def promise(self, case: Case, adapter: BloomAdapter) -> Promise:
        assert case.error_rate is not None
        bits, k = self.library.bits, self.library.k
        m = bits(case.capacity, case.error_rate) if bits else None
        hashes = k(case.capacity, case.error_rate) if k else None
        return Promise(m, hashes, case.error_rate, self.library.basis)


def sliced_bits(capacity: int, error_rate: float, k: int) -> int:
    """k slices of ``ceil(n |ln p| / (k (ln 2)**2))`` bits, one per hash (pybloom-live, pybloomfiltermmap3)."""
    return k * math.ceil(capacity * abs(math.log(error_rate)) / (k * LN2**2))


def _pybloom_live_k(capacity: int, error_rate: float) -> int:
    # Its constructor's comments: k = ceil(log2(1/P)) slices of ceil(n |ln P| / (k ln(2)**2)) bits.
    return math.ceil(math.log2(1 / error_rate))


def _mmap_k(capacity: int, error_rate: float) -> int:
    # Rounded down on purpose, its constructor says, citing fewer hashes for speed.
    return max(math.floor(math.log2(1 / error_rate)), 1)


PACKAGE_TARGETS: tuple[Library, ...] = (
    # The stable hash the audit passes rbloom is a Python function: timing it would time that, not rbloom.
    Library(
        "rbloom",
        pa.RbloomAdapter,
        "Bloom (a stable 128-bit hash_func, for repeatable runs)",
        timed=partial(pa.RbloomAdapter, own_hash=True),
        timed_how=", its built-in hash",
    ),
    Library(
        "pybloom-live",
        pa.PybloomLiveAdapter,
        "BloomFilter",
        bits=lambda n, p: sliced_bits(n, p, _pybloom_live_k(n, p)),
        k=_pybloom_live_k,
        basis="its constructor's formula; 'no more than error_rate'",
    ),
    Library(
        "bloom-filter2",
        pa.BloomFilter2Adapter,
        "BloomFilter (in memory)",
        bits=lambda n, p: math.ceil(textbook_bits(n, p)),
        basis="m = ceil(-n ln p / (ln 2)**2), its comments; " + CONSTRUCTED_WITH,
    ),
    Library(
        "bloomfilter-py",
        pa.BloomfilterPyAdapter,
        "BloomFilter (Guava's strategy, BYTE_ARRAY_FUNNEL)",
        # Guava's rule: the formula truncated to an integer, then whole 64-bit words, at least one.
        bits=lambda n, p: max(64, whole_words(int(textbook_bits(max(n, 1), p)))),
        basis="Guava's m in whole 64-bit words; " + CONSTRUCTED_WITH,
    ),
    Library(
        "pyprobables",
        pa.PyprobablesAdapter,
        "BloomFilter (default FNV-1a hashes)",
        # It rounds the rate to a 32-bit float first, "to mimic the c version".
        bits=lambda n, p: math.ceil(textbook_bits(n, struct.unpack("f", struct.pack("f", p))[0])),
        basis="m = ceil(-n ln p / (ln 2)**2) at p as a 32-bit float; " + CONSTRUCTED_WITH,
    ),
    Library(
        "pybloomfiltermmap3",
        pa.PybloomfiltermmapAdapter,
        "BloomFilter (in memory, hash seeds drawn from a seeded random)",
        bits=lambda n, p: max(math.ceil(sliced_bits(n, p, _mmap_k(n, p)) / 8) * 8, 128),
        k=_mmap_k,
        basis="its constructor's k = floor(log2(1/p)) and bits per hash; 'keeping the rate under error_rate'",
    ),
    Library(
        "fastbloom-rs",
        pa.FastbloomAdapter,
        "BloomFilter (bytes through add_bytes_batch and contains_bytes_batch)",
        bits=lambda n, p: whole_words(math.ceil(textbook_bits(n, p))),
        basis="its optimal m in whole 64-bit words; " + CONSTRUCTED_WITH,
    ),
)
