"""Delta debugging (Zeller's ddmin): the smallest sublist that still fails, within a budget of tries.

Deterministic: the same list and the same answers give the same result. The list is cut into n
chunks; a chunk that fails alone replaces the list, else a list without one chunk that still fails
does; when neither, the chunks get smaller. It ends at single items or when the budget runs out,
with the smallest failing list found so far.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")


@dataclass
class Tries:
    """How many more tries, and until when: shrinking stops at whichever runs out first."""

    tries: int
    seconds: float
    deadline: float = field(init=False)
    used: int = 0

    def __post_init__(self) -> None:
        self.deadline = time.monotonic() + self.seconds

    def spend(self) -> bool:
        """Take one try; False when none is left."""
        if self.used >= self.tries or time.monotonic() >= self.deadline:
            return False
        self.used += 1
        return True

    @property
    def exhausted(self) -> bool:
        return self.used >= self.tries or self.timed_out

    @property
    def timed_out(self) -> bool:
        return time.monotonic() >= self.deadline


class OutOfBudget(Exception):
    pass


def ddmin(items: Sequence[T], fails: Callable[[list[T]], bool], budget: Tries, *, least: int = 0) -> list[T]:
    """The smallest sublist of ``items`` (in order, at least ``least`` long) for which ``fails`` holds.

    ``items`` itself must fail. Each call of ``fails`` spends one try of ``budget``.
    """
    current = list(items)

    def tried(candidate: list[T]) -> bool:
        if len(candidate) < least:
            return False
        if not budget.spend():
            raise OutOfBudget
        return fails(candidate)

    chunks = 2
    try:
        while len(current) >= 2 and len(current) > least:
            parts = _split(current, chunks)
            smaller = next((part for part in parts if tried(part)), None)
            if smaller is None and chunks > 2:
                complements = ([x for j, p in enumerate(parts) if j != i for x in p] for i in range(len(parts)))
                smaller = next((c for c in complements if tried(c)), None)
                if smaller is not None:
                    chunks = max(chunks - 1, 2)
            elif smaller is not None:
                chunks = 2
            if smaller is not None:
                current = smaller
            elif chunks >= len(current):
                break
            else:
                chunks = min(len(current), chunks * 2)
    except OutOfBudget:
        pass
    return current


def _split(items: list[T], n: int) -> list[list[T]]:
    size, extra = divmod(len(items), n)
    parts, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        parts.append(items[start:end])
        start = end
    return [p for p in parts if p]
