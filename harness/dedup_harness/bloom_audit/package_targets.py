"""The installed packages audit-bloom knows, and what each one's own sizing rule promises.

Each rule is written here from the library's documentation and constructor, not imported from it:
the sizing check compares the bits the filter allocated with the bits its own rule gives. Where a
library states no rule for k, the k check asks for the optimum within one instead. The promised
false-positive rate is always the rate the filter was constructed with.
"""

from __future__ import annotations

import importlib
import math
import struct
from importlib.metadata import version

from dedup_harness.bloom_audit import package_adapters as pa
from dedup_harness.bloom_audit.adapters import BloomAdapter
from dedup_harness.bloom_audit.cases import Case, Promise
from dedup_harness.bloom_audit.formulas import LN2
from dedup_harness.bloom_audit.target import Target

CONSTRUCTED_WITH = "the error rate it was constructed with"


def textbook_bits(capacity: int, error_rate: float) -> float:
    """The real-valued ``-n ln p / (ln 2)**2`` that every library here starts from."""
    return -capacity * math.log(error_rate) / LN2**2


def whole_words(bits: int, word: int = 64) -> int:
    return -(-bits // word) * word


class PackageTarget(Target):
    """A filter from an installed package, built as ``adapter(capacity, error_rate)``."""

    module = ""  # the module it installs
    what = ""  # what the description says after the package and its version
    adapter: type[BloomAdapter]

    def __init__(self) -> None:
        importlib.import_module(self.module)  # not installed: an ImportError names it before any case runs
        self.version = version(self.name)
        self.description = f"{self.name} {self.version} {self.what}"

    def build(self, case: Case) -> BloomAdapter:
        assert case.error_rate is not None
        return self.adapter(case.capacity, case.error_rate)  # type: ignore[call-arg]

    def promise(self, case: Case, adapter: BloomAdapter) -> Promise:
        assert case.error_rate is not None
        m = self.promised_bits(case.capacity, case.error_rate)
        k = self.promised_k(case.capacity, case.error_rate)
        return Promise(m, k, case.error_rate, self.basis())

    def promised_bits(self, capacity: int, error_rate: float) -> int | None:
        return None

    def promised_k(self, capacity: int, error_rate: float) -> int | None:
        return None

    def basis(self) -> str:
        return CONSTRUCTED_WITH


class RbloomTarget(PackageTarget):
    name = "rbloom"
    module = "rbloom"
    what = "Bloom (a stable 128-bit hash_func, for repeatable runs)"
    adapter = pa.RbloomAdapter

    def throughput_case(self, capacity: int, error_rate: float) -> tuple[Case, str]:
        case, how = super().throughput_case(capacity, error_rate)
        return case, how + ", its built-in hash"

    def build_for_speed(self, case: Case) -> BloomAdapter:
        # The stable hash the audit passes is a Python function: timing it would time that, not rbloom.
        assert case.error_rate is not None
        return pa.RbloomAdapter(case.capacity, case.error_rate, own_hash=True)


class PybloomLiveTarget(PackageTarget):
    name = "pybloom-live"
    module = "pybloom_live"
    what = "BloomFilter"
    adapter = pa.PybloomLiveAdapter

    def promised_bits(self, capacity: int, error_rate: float) -> int:
        k = self.promised_k(capacity, error_rate)
        return k * math.ceil(capacity * abs(math.log(error_rate)) / (k * LN2**2))

    def promised_k(self, capacity: int, error_rate: float) -> int:
        # Its constructor's comments: k = ceil(log2(1/P)) slices of ceil(n |ln P| / (k ln(2)**2)) bits.
        return math.ceil(math.log2(1 / error_rate))

    def basis(self) -> str:
        return "its constructor's formula; 'no more than error_rate'"


class BloomFilter2Target(PackageTarget):
    name = "bloom-filter2"
    module = "bloom_filter2"
    what = "BloomFilter (in memory)"
    adapter = pa.BloomFilter2Adapter

    def promised_bits(self, capacity: int, error_rate: float) -> int:
        return math.ceil(textbook_bits(capacity, error_rate))

    def basis(self) -> str:
        return "m = ceil(-n ln p / (ln 2)**2), its comments; " + CONSTRUCTED_WITH


class BloomfilterPyTarget(PackageTarget):
    name = "bloomfilter-py"
    module = "bloomfilter"
    what = "BloomFilter (Guava's strategy, BYTE_ARRAY_FUNNEL)"
    adapter = pa.BloomfilterPyAdapter

    def promised_bits(self, capacity: int, error_rate: float) -> int:
        # Guava's rule: the formula truncated to an integer, then whole 64-bit words, at least one.
        return max(64, whole_words(int(textbook_bits(max(capacity, 1), error_rate))))

    def basis(self) -> str:
        return "Guava's m in whole 64-bit words; " + CONSTRUCTED_WITH


class PyprobablesTarget(PackageTarget):
    name = "pyprobables"
    module = "probables"
    what = "BloomFilter (default FNV-1a hashes)"
    adapter = pa.PyprobablesAdapter

    def promised_bits(self, capacity: int, error_rate: float) -> int:
        # It rounds the rate to a 32-bit float first, "to mimic the c version".
        single = struct.unpack("f", struct.pack("f", error_rate))[0]
        return math.ceil(textbook_bits(capacity, single))

    def basis(self) -> str:
        return "m = ceil(-n ln p / (ln 2)**2) at p as a 32-bit float; " + CONSTRUCTED_WITH


class PybloomfiltermmapTarget(PackageTarget):
    name = "pybloomfiltermmap3"
    module = "pybloomfilter"
    what = "BloomFilter (in memory, hash seeds drawn from a seeded random)"
    adapter = pa.PybloomfiltermmapAdapter

    def promised_k(self, capacity: int, error_rate: float) -> int:
        # Rounded down on purpose, its constructor says, citing fewer hashes for speed.
        return max(math.floor(math.log2(1 / error_rate)), 1)

    def promised_bits(self, capacity: int, error_rate: float) -> int:
        k = self.promised_k(capacity, error_rate)
        per_hash = math.ceil(capacity * abs(math.log(error_rate)) / (k * LN2**2))
        return max(math.ceil(k * per_hash / 8) * 8, 128)

    def basis(self) -> str:
        return "its constructor's k = floor(log2(1/p)) and bits per hash; 'keeping the rate under error_rate'"


class FastbloomTarget(PackageTarget):
    name = "fastbloom-rs"
    module = "fastbloom_rs"
    what = "BloomFilter (bytes through add_bytes_batch and contains_bytes_batch)"
    adapter = pa.FastbloomAdapter

    def promised_bits(self, capacity: int, error_rate: float) -> int:
        return whole_words(math.ceil(textbook_bits(capacity, error_rate)))

    def basis(self) -> str:
        return "its optimal m in whole 64-bit words; " + CONSTRUCTED_WITH


PACKAGE_TARGETS: tuple[type[PackageTarget], ...] = (
    RbloomTarget,
    PybloomLiveTarget,
    BloomFilter2Target,
    BloomfilterPyTarget,
    PyprobablesTarget,
    PybloomfiltermmapTarget,
    FastbloomTarget,
)
