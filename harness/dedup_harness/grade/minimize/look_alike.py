"""Texts that look alike but are not equal, told apart by the code points where they differ.

``'café'`` written with U+00E9 and ``'café'`` written with U+0065 U+0301 print the same, and so do a
space and a no-break space, or a word with and without a zero-width space: a student told that one
came back where the other was expected sees two equal texts. Two texts look alike here when they
differ but are equal once normalized (NFKC) and stripped of invisible format characters (category
Cf). Letters of other scripts that only resemble Latin ones (U+0430, the Cyrillic a) are not caught: that
takes a table of confusables, and no check of the course turns on them.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any

from dedup_harness.grade.minimize.case import MinimalCase


def looks(text: str) -> str:
    """What a reader sees of ``text``: its NFKC form without format characters."""
    return "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")


def code_points(text: str) -> str:
    return " ".join(f"U+{ord(c):04X}" for c in text) or "nothing"


def difference(one: str, other: str) -> str:
    """Where ``one`` and ``other`` differ, as code points: what is left once their common start and end go."""
    start = next((i for i, (a, b) in enumerate(zip(one, other, strict=False)) if a != b), min(len(one), len(other)))
    end = 0
    while end < min(len(one), len(other)) - start and one[-1 - end] == other[-1 - end]:
        end += 1
    return f"{code_points(one[start : len(one) - end])} against {code_points(other[start : len(other) - end])}"


def notes(texts: Iterable[str]) -> list[str]:
    """One line for each two of ``texts`` that look alike but differ, in the order they first appear."""
    by_look: dict[str, list[str]] = {}
    for text in dict.fromkeys(texts):
        by_look.setdefault(looks(text), []).append(text)
    return [
        f"{one!r} and {other!r} look alike but differ: {difference(one, other)}"
        for group in by_look.values()
        for one, other in itertools.combinations(group, 2)
    ]


def verdict_notes(expected: Any, got: Any) -> list[str]:
    """The look-alike texts of a failing verdict: those on one side only, expected or got (what came back in
    place of what was expected), paired with each other."""
    wanted, came = list(_strings(expected)), list(_strings(got))
    return notes([text for text in wanted if text not in came] + [text for text in came if text not in wanted])


def case_notes(case: MinimalCase) -> list[str]:
    """The look-alike texts of a minimal case: its documents, what was expected and what came back."""
    return notes(_strings([case.input, case.expected, case.got]))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)
