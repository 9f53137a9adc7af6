"""Where the bits of a filter that shows no index function can be read, and which holder is its bit array.

What is read, and nothing else: the filter's attributes (its ``__dict__`` and ``__slots__``), the
attributes of the objects they hold (two levels down), and the state it hands pickle: the value of
``__reduce_ex__(4)``, the call ``pickle.dumps`` makes, walked the same way. Nothing is unpickled, no
file is written and no other method of the filter is called. The filters audited this way are the
caller's own (trusted code, imported by the caller), but the audit still calls nothing that could
write, reach out or change the filter.

A holder of bits is a bytes-like object (bytes, bytearray, memoryview, array.array, a numpy array:
anything with the buffer protocol; bit b is bit ``b % 8`` of byte ``b // 8``, the lowest first), a
bitarray (read through its own indexing), an int used as a bit set, a set of ints, or a list or tuple
of booleans. Which holder is the bit array is seen rather than guessed from a name: a Bloom filter
never clears a bit, so its bit array is a holder whose set bits only ever grow as items go in; of
those, the one that has grown the most.
"""

from __future__ import annotations

import functools
import itertools
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

DEPTH = 3  # the filter's attributes, theirs, and theirs again
BREADTH = 64  # the items of a list, tuple or dict looked into (bits hide in the first few, not in a dataset)
PICKLE_PROTOCOL = 4
# Code, not state: never looked into (an object with __call__, such as a pipeline step, is state and is)
CODE = (type, types.ModuleType, types.FunctionType, types.MethodType, types.BuiltinFunctionType, functools.partial)
PICKLED = f".__reduce_ex__({PICKLE_PROTOCOL})"  # the path of the pickle state: what pickle.dumps asks for


@dataclass(frozen=True)
class Holder:
    """One place bits may live: its path from the filter, its kind, and the bits it has room for."""

    path: str  # as Python spells it after the filter: ".bits", ".backend.array_", ".__reduce_ex__(4)[2]['bits']"
    kind: str
    size: int | None  # None for an int or a set, whose type sets no size

    @property
    def name(self) -> str:
        """The path as the report names it (and as ``bits=`` takes it): ``bits``, ``backend.array_``."""
        return self.path.removeprefix(".")


def set_bits_of(value: Any) -> frozenset[int] | None:
    """The set bits of a holder, or None when ``value`` holds no bits this module can read."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return frozenset(i for i in range(value.bit_length()) if value >> i & 1) if value >= 0 else None
    if _is_bitarray(value):
        return frozenset(i for i, bit in enumerate(value) if bit)
    if isinstance(value, set | frozenset):
        return frozenset(value) if all(type(b) is int for b in value) else None
    if isinstance(value, list | tuple):
        return frozenset(i for i, b in enumerate(value) if b) if value and all(type(b) is bool for b in value) else None
    data = _bytes_of(value)
    return None if data is None else frozenset(bits_of(data))


def bits_of(data: bytes, *, high_bit_first: bool = False) -> set[int]:
    """The set bits of a byte string, bit b at byte b // 8 (its lowest bit first, unless ``high_bit_first``)."""
    order = range(7, -1, -1) if high_bit_first else range(8)
    return {i * 8 + place for i, byte in enumerate(data) if byte for place, bit in enumerate(order) if byte >> bit & 1}


def size_of(value: Any) -> int | None:
    """How many bits a holder has room for, where its type says so."""
    if _is_bitarray(value) or isinstance(value, list | tuple):
        return len(value)
    data = _bytes_of(value)
    return None if data is None else 8 * len(data)


def _is_bitarray(value: Any) -> bool:
    return any(cls.__name__ == "bitarray" and cls.__module__.startswith("bitarray") for cls in type(value).__mro__)


def _bytes_of(value: Any) -> bytes | None:
    if isinstance(value, str | int):
        return None
    try:
        return memoryview(value).cast("B").tobytes()
    except (TypeError, ValueError):
        return None


def values(filter: Any) -> dict[str, Any]:
    """Every value the filter shows through its attributes and its pickle state, by path, read now."""
    seen: set[int] = set()  # shared: the pickle state of a plain object is its own __dict__, read once
    found = dict(_walk(filter, "", DEPTH, seen))
    del found[""]  # the filter itself
    try:
        state = filter.__reduce_ex__(PICKLE_PROTOCOL)
    except Exception:  # a filter that refuses pickle (C types often do) has no state to read
        return found
    found.update(_walk(state, PICKLED, DEPTH, seen))
    return found


def holders(filter: Any) -> list[Holder]:
    """Every holder of bits the filter shows, each object once (its pickle state repeats its attributes)."""
    seen: set[int] = set()
    found = []
    for path, value in values(filter).items():
        if set_bits_of(value) is None or (not isinstance(value, int) and id(value) in seen):
            continue
        seen.add(id(value))
        found.append(Holder(path, type(value).__name__, size_of(value)))
    return found


def _walk(value: Any, path: str, depth: int, seen: set[int]) -> Iterator[tuple[str, Any]]:
    """Each value reachable from ``value`` through attributes, dict values and sequence items, with its path."""
    if isinstance(value, int | float | str | bytes | type(None)):
        yield path, value  # an atom: small ints are shared objects, so never skipped as seen
        return
    if id(value) in seen:
        return
    seen.add(id(value))
    yield path, value
    if depth == 0 or set_bits_of(value) is not None or isinstance(value, CODE):
        return
    if hasattr(value, "__dict__"):
        seen.add(id(vars(value)))
    for step, child in itertools.islice(_children(value), BREADTH):
        yield from _walk(child, path + step, depth - 1, seen)


def _children(value: Any) -> Iterator[tuple[str, Any]]:
    """Each child with the step Python spells to reach it: ``.name``, ``['key']``, ``[0]``."""
    if isinstance(value, dict):
        yield from ((f"[{key!r}]", child) for key, child in value.items() if isinstance(key, str | int))
    elif isinstance(value, list | tuple):
        yield from ((f"[{i}]", child) for i, child in enumerate(value))
    else:
        attributes = vars(value) if hasattr(value, "__dict__") else {}
        yield from ((f".{name}", child) for name, child in attributes.items() if name.isidentifier())
        for name in getattr(type(value), "__slots__", ()):
            if hasattr(value, name):
                yield f".{name}", getattr(value, name)


class BitArrayWatch:
    """Which of a fresh filter's holders is its bit array, decided by watching them as items go in.

    ``read`` is called after each batch of inserts: a holder stays a candidate while its set bits
    only grow, and the candidate that has grown the most since the filter was empty is the bit array.
    """

    def __init__(self, filter: Any, *, only: str | None = None) -> None:
        self.filter = filter
        self.holders = holders(filter)
        if only is not None:
            named = [h for h in self.holders if h.name == only]
            if not named:
                found = ", ".join(h.name for h in self.holders) or "none"
                raise TypeError(f"{type(filter).__name__} has no holder of bits named {only!r} (found: {found})")
            self.holders = named
        shown = values(filter)
        self.start = {h.path: set_bits_of(shown[h.path]) or frozenset() for h in self.holders}
        self.last = dict(self.start)
        self.chosen: Holder | None = None

    def read(self) -> frozenset[int] | None:
        """The bit array's set bits now, or None while no holder has grown (or none ever can)."""
        shown = values(self.filter)
        alive = {}
        for path, before in self.last.items():
            now = set_bits_of(shown.get(path))
            if now is not None and now >= before:
                alive[path] = now
        self.last = alive
        grown = {path: len(bits - self.start[path]) for path, bits in alive.items() if bits != self.start[path]}
        if not grown:
            self.chosen = None
            return None
        best = max(grown, key=lambda path: grown[path])
        self.chosen = next(h for h in self.holders if h.path == best)
        return alive[best]

    def describe(self) -> str:
        """What was read, in the report's words."""
        return "no bits" if self.chosen is None else f"its bits: the {self.chosen.kind} {self.chosen.name}"

    def tried(self) -> str:
        """What could hold bits, for a report that found none that grew."""
        if not self.holders:
            return "no bytes-like, bitarray, int, set or bool-list attribute, and none in its pickle state"
        names = ", ".join(f"{h.name} ({h.kind})" for h in self.holders[:6])
        return f"none of {names} only grew as items went in"
