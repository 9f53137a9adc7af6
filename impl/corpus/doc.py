"""Documents and stages: the two things every corpus module shares (course module data.02)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

Stage = Callable[[Iterable["Doc"]], Iterator["Doc"]]


@dataclass(frozen=True)
class Doc:
    """One document of a corpus: an id, its text, and free-form metadata."""

    id: str
    text: str
    meta: dict[str, Any] = field(default_factory=dict)


def compose(*stages: Stage) -> Stage:
    """Chain stages left to right: ``compose(a, b)(docs) == b(a(docs))``."""

    def pipeline(docs: Iterable[Doc]) -> Iterator[Doc]:
        stream: Iterable[Doc] = docs
        for stage in stages:
            stream = stage(stream)
        return iter(stream)

    return pipeline
