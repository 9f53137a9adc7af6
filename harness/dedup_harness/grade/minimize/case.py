"""A minimal failing case as plain data: its input, what was expected, what came back, what differs."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from dedup_harness.core import case_log
from dedup_harness.core.judges import Verdict


@dataclass
class MinimalCase:
    input: dict[str, Any]  # documents as records, and the options (B, the text split, the spool's ending)
    expected: dict[str, Any]
    got: dict[str, Any]
    differences: list[str]
    documents: int  # the input's size, as shown
    characters: int
    shrunk: bool  # False when the check's own input already was as small as it gets, or shrinking was cut short
    note: str = ""  # why shrinking stopped early, when it did
    tries: int = 0
    origin: dict[str, int] = field(default_factory=dict)  # the size of the check's own failing input
    held_back: bool = False  # shrunk from a case the course holds back: for staff, and students after the due date
    # The input itself (Doc objects), for trying it on the next failed check; never written out.
    raw_input: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def as_dict(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if key != "raw_input"}


def size(inputs: dict[str, Any]) -> tuple[int, int]:
    """(documents, characters) of an input: a split's text counts as one document."""
    if "docs" in inputs:
        return len(inputs["docs"]), sum(len(d.text) for d in inputs["docs"])
    if "text" in inputs:
        return 1, len(inputs["text"])
    return 0, 0


def minimal_case(
    inputs: dict[str, Any], verdict: Verdict, *, origin: dict[str, Any], tries: int, note: str
) -> MinimalCase:
    documents, characters = size(inputs)
    first = size(origin)
    return MinimalCase(
        input=case_log.shown(inputs),
        expected=verdict.expected,
        got=verdict.got,
        differences=verdict.differences,
        documents=documents,
        characters=characters,
        shrunk=(documents, characters) != first,
        note=note,
        tries=tries,
        origin={"documents": first[0], "characters": first[1]},
        raw_input=inputs,
    )
