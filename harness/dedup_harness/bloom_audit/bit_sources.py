"""Where the bits of a filter that shows no index function can be read, and which holder is its bit array.

Read, and nothing else: its attributes (``__dict__``, ``__slots__``) two levels down, and the state it
hands pickle (``__reduce_ex__(4)``, never unpickled), walked the same way. A holder is read only where it
is the whole array of the filter's m bits, with no guess: its length times its element's width accounts
for m, less than one element to spare (bytes-like, a bitarray, an int below ``2**m``, a list or buffer of
1-, 8-, 32- or 64-bit ints; one int of a list is never taken for the filter). A Bloom filter never clears
a bit, so its bit array is a holder whose set bits only grow as items go in: where two that grow show
other bits, neither is read.
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
WORDS = (1, 8, 32, 64)  # the widths a list's ints may have: flags, bytes, 32- and 64-bit words
PICKLE_PROTOCOL = 4
# Code, not state: never looked into (an object with __call__, such as a pipeline step, is state and is)
CODE = (type, types.ModuleType, types.FunctionType, types.MethodType, types.BuiltinFunctionType, functools.partial)
PICKLED = f".__reduce_ex__({PICKLE_PROTOCOL})"  # the path of the pickle state: what pickle.dumps asks for


@dataclass(frozen=True)
class Holder:
    """One place the whole bit array may live: its path from the filter, and its kind."""

    path: str  # as Python spells it after the filter: ".bits", ".backend.array_", ".__reduce_ex__(4)[2]['bits']"
    kind: str

    @property
    def name(self) -> str:
        """The path as the report names it (and as ``bits=`` takes it): ``bits``, ``backend.array_``."""
        return self.path.removeprefix(".")


def set_bits_of(value: Any, m: int) -> frozenset[int] | None:
    """The set bits of ``value`` where it is a whole array of m bits; None where it holds no bits, or other than m."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return None
    if isinstance(value, int):
        return _word_bits([value], m) if 0 <= value < 1 << m else None
    if _is_bitarray(value):
        return frozenset(i for i, bit in enumerate(value) if bit) if len(value) == m else None
    if isinstance(value, list | tuple):
        if not value or not all(isinstance(word, int) for word in value):
            return None
        width = next((w for w in WORDS if -(-m // w) == len(value) and all(0 <= x < 1 << w for x in value)), None)
        return None if width is None else _word_bits(value, width)
    try:
        view = memoryview(value)
        if view.ndim == 1 and len(view) == m:  # a flag an element: numpy booleans, a bytearray of m
            return set_bits_of(view.tolist(), m)
        if view.itemsize * 8 * (view.nbytes // view.itemsize) - m not in range(view.itemsize * 8):
            return None
        return frozenset(bits_of(view.cast("B").tobytes()))
    except (TypeError, ValueError, NotImplementedError):  # no buffer, or one that cannot be read as numbers
        return None


def _word_bits(words: Any, width: int) -> frozenset[int]:
    return frozenset(i * width + b for i, word in enumerate(words) for b in range(word.bit_length()) if word >> b & 1)


def bits_of(data: bytes, *, high_bit_first: bool = False) -> set[int]:
    """The set bits of a byte string, bit b at byte b // 8 (its lowest bit first, unless ``high_bit_first``)."""
    order = range(7, -1, -1) if high_bit_first else range(8)
    return {i * 8 + place for i, byte in enumerate(data) if byte for place, bit in enumerate(order) if byte >> bit & 1}


def _is_bitarray(value: Any) -> bool:
    return any(cls.__name__ == "bitarray" and cls.__module__.startswith("bitarray") for cls in type(value).__mro__)


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


def holders(filter: Any, m: int) -> list[Holder]:
    """Every whole array of m bits the filter shows, each object once (its pickle state repeats its attributes)."""
    seen: set[int] = set()
    found = []
    for path, value in values(filter).items():
        if set_bits_of(value, m) is None or (not isinstance(value, int) and id(value) in seen):
            continue
        seen.add(id(value))
        found.append(Holder(path, type(value).__name__))
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
    if depth == 0 or isinstance(value, CODE):
        return
    if hasattr(value, "__dict__"):
        seen.add(id(vars(value)))
    for step, child in itertools.islice(_children(value), BREADTH):
        yield from _walk(child, path + step, depth - 1, seen)


def _children(value: Any) -> Iterator[tuple[str, Any]]:
    """Each child with the step Python spells to reach it: ``.name``, ``['key']``, ``[0]`` (never a list's int)."""
    if isinstance(value, dict):
        yield from ((f"[{key!r}]", child) for key, child in value.items() if isinstance(key, str | int))
    elif isinstance(value, list | tuple):
        yield from ((f"[{i}]", child) for i, child in enumerate(value) if not isinstance(child, int))
    else:
        attributes = vars(value) if hasattr(value, "__dict__") else {}
        yield from ((f".{name}", child) for name, child in attributes.items() if name.isidentifier())
        for name in getattr(type(value), "__slots__", ()):
            if hasattr(value, name):
                yield f".{name}", getattr(value, name)


class BitArrayWatch:
    """Which of a fresh filter's whole arrays of m bits is its bit array, decided by watching them as items go in.

    ``read`` is called as items go in: a holder stays a candidate while its set bits only grow (a counter
    does not: 1 to 2 clears a bit). Where candidates that grew ever showed other bits, which is the bit array
    would be a guess (even once both are full): ``rivals`` names them, and the filter is judged by its rate.
    """

    def __init__(self, filter: Any, m: int, *, only: str | None = None) -> None:
        self.filter, self.m = filter, m
        self.holders = [h for h in holders(filter, m) if only in (None, h.name)]
        if not self.holders and only is not None:
            found = ", ".join(h.name for h in holders(filter, m)) or "none"
            raise TypeError(f"{type(filter).__name__} has no array of its {m} bits named {only!r} (found: {found})")
        shown = values(filter)
        self.start = {h.path: set_bits_of(shown[h.path], m) or frozenset() for h in self.holders}
        self.last = dict(self.start)
        self.chosen: Holder | None = None
        self.rivals: list[Holder] = []  # candidates still growing that once showed other bits than another
        self.apart: set[tuple[str, str]] = set()

    def read(self) -> frozenset[int] | None:
        """The set bits of the candidate grown the most, or None while none has grown (or none ever can)."""
        shown = values(self.filter)
        now = {path: set_bits_of(shown.get(path), self.m) for path in self.last}
        self.last = {path: bits for path, bits in now.items() if bits is not None and bits >= self.last[path]}
        grown = [h for h in self.holders if self.last.get(h.path, self.start[h.path]) != self.start[h.path]]
        self.apart |= {(a.path, b.path) for a in grown for b in grown if self.last[a.path] != self.last[b.path]}
        self.rivals = [h for h in grown if any((h.path, other.path) in self.apart for other in grown)]
        self.chosen = max(grown, key=lambda h: len(self.last[h.path] - self.start[h.path]), default=None)
        return None if self.chosen is None else self.last[self.chosen.path]

    def describe(self) -> str:
        """What was read, in the report's words."""
        return "no bits" if self.chosen is None else f"its bits: the {self.chosen.kind} {self.chosen.name}"

    def tried(self) -> str:
        """What could hold bits, for a report that read none."""
        if not self.holders:
            return f"nothing it shows (nor its pickle state) is an array of exactly its {self.m} bits"
        if self.rivals:
            names = " and ".join(f"{h.name} ({h.kind})" for h in self.rivals[:6])
            return f"{names} each grew as items went in, with other bits (name its bit array with bits=)"
        names = ", ".join(f"{h.name} ({h.kind})" for h in self.holders[:6])
        return f"none of {names} only grew as items went in"
