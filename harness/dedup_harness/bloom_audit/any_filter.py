"""A filter of any class, the caller's own: built by its class or a factory, and read through what it shows.

Built as ``build(capacity, error_rate)`` or ``build(m_bits, k)`` (``takes``), driven through the methods
it has, its m and k read from the first attribute of the usual names; reachability from its index
function, else from its bits (``bit_sources``), else judged by the rate, saying what was tried.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dedup_harness.bloom_audit.adapters import NamedCallsAdapter
from dedup_harness.bloom_audit.bit_sources import BitArrayWatch
from dedup_harness.bloom_audit.cases import RATE_SIZED_GRID, Case
from dedup_harness.bloom_audit.target import TargetError

TAKES = {"rate": "build(capacity, error_rate)", "bits": "build(m_bits, k)"}
DEFAULT_INDEX = "bit_indexes"
INSERT_NAMES = ("insert", "add", "put")
CONTAINS_NAMES = ("contains", "__contains__", "might_contain")
M_NAMES = ("m", "num_bits", "size_in_bits", "bit_count", "m_bits")
K_NAMES = ("k", "num_hashes", "hash_count", "num_slices", "hashes")
UNREAD = "bits not read: judged by the rate"
FAMILIES = tuple(dict.fromkeys(family for family, _, _ in RATE_SIZED_GRID))


@dataclass(frozen=True)
class Driving:
    """How the audit builds and reads a filter of any class."""

    takes: str = "rate"  # a key of TAKES
    index: str | None = None  # its index function (item -> bit positions); None: bit_indexes, where it has one
    bits: str | None = None  # the attribute holding its bits (``bits``, ``store.array``); None: watched for

    def __post_init__(self) -> None:
        if self.takes not in TAKES:
            raise TargetError(f"takes={self.takes!r}: expected one of {', '.join(map(repr, TAKES))}")


def _first_name(obj: Any, names: Sequence[str]) -> str | None:
    return next((name for name in names if hasattr(obj, name)), None)


def _int_attribute(obj: Any, names: Sequence[str]) -> tuple[str | None, int | None]:
    name = _first_name(obj, names)
    value = getattr(obj, name) if name else None
    return (name, int(value)) if isinstance(value, int) and not isinstance(value, bool) else (None, None)


class AnyFilterAdapter(NamedCallsAdapter):
    """A filter built by the caller's class or factory for one case, read through what it shows."""

    def __init__(self, build: Callable[..., Any], driving: Driving, case: Case) -> None:
        self.driving, self.given_m = driving, case.size if driving.takes == "bits" else None
        built = build(case.size, case.k) if driving.takes == "bits" else build(case.capacity, case.error_rate)
        self.insert_name, self.contains_name = _first_name(built, INSERT_NAMES), _first_name(built, CONTAINS_NAMES)
        if self.insert_name is None or self.contains_name is None:
            made = type(built).__name__
            raise TypeError(f"{made} has no {'/'.join(INSERT_NAMES)} or no {'/'.join(CONTAINS_NAMES)} method")
        self.use(built, self.insert_name, self.contains_name)
        self.m_name, self.m = _int_attribute(built, M_NAMES)
        self.k_name, self.k = _int_attribute(built, K_NAMES)
        self.index_name = driving.index or (DEFAULT_INDEX if hasattr(built, DEFAULT_INDEX) else None)
        self._indexes: Any = getattr(built, self.index_name, None) if self.index_name else None
        if driving.index is not None and not callable(self._indexes):
            raise TypeError(f"{type(built).__name__} has no method {driving.index!r} (given as its index function)")
        self.has_indexes = callable(self._indexes)
        m = self.bits_to_reach()
        self.watch = None if self.has_indexes or m is None else BitArrayWatch(built, m, only=driving.bits)

    def bit_indexes(self, item: bytes) -> list[int]:
        return [int(b) for b in self._indexes(item)]  # asked only where it has them (has_indexes)

    def shows_bits(self) -> bool:
        return self.watch is not None and bool(self.watch.holders) and not self.watch.rivals

    def set_bits(self) -> set[int] | None:
        bits = self.watch.read() if self.watch is not None else None
        return None if bits is None else set(bits)

    def bits_to_reach(self) -> int | None:
        """Its own m, else the m it was built with: the bits its bit array must account for to be read."""
        return self.m if self.m is not None else self.given_m

    def read_from(self) -> str:
        if self.has_indexes:
            return f"read from its index function {self.index_name}"
        return "read from " + (self.watch.describe() if self.watch is not None else "no bits")

    def unread(self) -> str:
        index = f"no method {DEFAULT_INDEX} (name its index function with index=)"
        if self.watch is None:
            return f"{UNREAD}: {index}, and it shows no m ({', '.join(M_NAMES)}) for its bits to account for"
        return f"{UNREAD}: {index}, and {self.watch.tried()}"
