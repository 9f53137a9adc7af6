"""A minimal failing case in plain text: the input, then what was expected beside what came back.

The rows are data first (``input_rows``, ``rows``), so the HTML page lays out the same rows as the
terminal; ``case_text`` writes them for the terminal, Gradescope and JUnit, a ``!`` before each row
whose two sides differ; given a width (the terminal's), every line fits it: the columns narrow, long
values are cut, and sentences wrap. Texts that print the same but are not equal get a line naming the code
points that differ (``look_alike``). Checks lost to one bug often shrink to the same case: ``repeats``
says which check's case an earlier check already shows, so a report prints it once.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dedup_harness.grade.minimize import look_alike
from dedup_harness.grade.minimize.case import MinimalCase

WIDTH = 38  # characters of one column, at most
NARROWEST = 12  # characters of one column, however narrow the terminal


@dataclass(frozen=True)
class CaseRow:
    """One line of expected beside got: what it is about, both sides as shown, and whether they differ."""

    label: str
    expected: str
    got: str
    differs: bool  # the values, not their shown text: two texts that print alike may still differ


def case_text(case: MinimalCase, width: int | None = None) -> str:
    """The case for a reader; ``width``: the characters a line may take (None: no limit)."""
    lines = [*wrapped(heading(case), width), "input:"]
    found = [f"  {label}: {value}" for label, value in input_rows(case.input)] or ["  (nothing)"]
    lines += [cut(line, width) for line in found]
    lines += _side_by_side(rows(case), width)
    lines.append("what differs:")
    for said in [*case.differences, *look_alike.case_notes(case)]:
        lines += wrapped(f"  - {said}", width, "    ")
    if case.note:
        lines += wrapped(f"({case.note})", width)
    return "\n".join(lines)


def wrapped(line: str, width: int | None, indent: str = "") -> list[str]:
    """``line`` as lines of at most ``width`` characters (as it is when there is no width)."""
    if width is None or len(line) <= width:
        return [line]
    return textwrap.wrap(line, width, subsequent_indent=indent, break_long_words=True, break_on_hyphens=False)


def cut(line: str, width: int | None) -> str:
    return line if width is None or len(line) <= width else line[: width - 1] + "…"


def same_case_text(number: int) -> str:
    """What a check says in place of a case an earlier check already showed."""
    return f"Smallest failing case: the same as check {number}'s, above."


def repeats(cases: Sequence[tuple[int, MinimalCase | None]]) -> dict[int, int]:
    """For each check (by number) whose case an earlier check's case shows whole: that earlier check's number.

    Whole: the same input, the same differences, and every row of expected beside got among the
    earlier one's (a check that compares fewer counts repeats one that compares more).
    """
    shown: list[tuple[int, MinimalCase]] = []
    found = {}
    for number, case in cases:
        if case is None:
            continue
        earlier = next((n for n, s in shown if _covers(s, case)), None)
        if earlier is None:
            shown.append((number, case))
        else:
            found[number] = earlier
    return found


def _covers(shown: MinimalCase, case: MinimalCase) -> bool:
    same = shown.input == case.input and shown.differences == case.differences
    return same and set(rows(case)) <= set(rows(shown))


def heading(case: MinimalCase) -> str:
    if not case.documents and not case.characters and not case.shrunk:
        return "The failing case:"
    size = f"{_count(case.documents, 'document')}, {_count(case.characters, 'character')}"
    if case.shrunk:
        before = f"{_count(case.origin['documents'], 'document')}, {_count(case.origin['characters'], 'character')}"
        return f"Smallest failing case found ({size}; the check's own input had {before}):"
    return f"Smallest failing case ({size}):"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def input_rows(inputs: dict[str, Any]) -> list[tuple[str, str]]:
    """The input, one (label, value) a line: each document by its id, then each option."""
    found: list[tuple[str, str]] = []
    for key, value in inputs.items():
        if key == "docs":
            documents = [
                (str(r["id"]), short(r["text"]) + (f"  meta {r['meta']!r}" if r["meta"] else "")) for r in value
            ]
            found += documents or [("documents", "(none)")]
        else:
            found.append((key.replace("_", " "), repr(value)))
    return found


def rows(case: MinimalCase) -> list[CaseRow]:
    """What was expected beside what came back: each output document by id, then each count."""
    expected, got = case.expected, case.got
    found: list[CaseRow] = []
    for key in dict.fromkeys([*expected, *got]):
        want, have = expected.get(key), got.get(key)
        if key == "output":
            found += _output_rows(want or [], have or [])
        elif isinstance(want, dict) and isinstance(have, dict):
            found += [_row(f"{key} {k}", want.get(k), have.get(k)) for k in dict.fromkeys([*want, *have])]
        else:
            found.append(_row(key.replace("_", " "), want, have))
    return found


def _row(label: str, want: Any, have: Any) -> CaseRow:
    return CaseRow(label, short(want), short(have), want != have)


def _side_by_side(found: list[CaseRow], width: int | None) -> list[str]:
    """Expected beside got, a row a line: within ``width``, the two columns share what the labels leave. None where
    no row differs (a spool kept outside spool_dir): what differs, below, says it."""
    if not any(r.differs for r in found):
        return []
    label = max(len(r.label) for r in found)
    column = WIDTH if width is None else max(NARROWEST, min(WIDTH, (width - label - 8) // 2))
    lines = [f"    {'':<{label}}  {'expected':<{column}}  got"]
    for r in found:
        mark, want, have = "!" if r.differs else " ", cut(r.expected, column), cut(r.got, column)
        lines.append(f"  {mark} {r.label:<{label}}  {want:<{column}}  {have}".rstrip())
    return lines


def _output_rows(want: list[dict[str, Any]], have: list[dict[str, Any]]) -> list[CaseRow]:
    by_id_want, by_id_have = {r["id"]: r for r in want}, {r["id"]: r for r in have}
    found = [
        CaseRow(f"out {doc_id}", _doc(by_id_want.get(doc_id)), _doc(by_id_have.get(doc_id)), a != b)
        for doc_id in dict.fromkeys([*by_id_want, *by_id_have])
        for a, b in [(by_id_want.get(doc_id), by_id_have.get(doc_id))]
    ]
    return found or [CaseRow("output", "(no documents)", "(no documents)", False)]


def _doc(record: dict[str, Any] | None) -> str:
    if record is None:
        return "(dropped)"
    return short(record["text"]) + (f" {record['meta']!r}" if record["meta"] else "")


def short(value: Any) -> str:
    """``value`` as Python writes it, cut to one column's width."""
    text = repr(value)
    return text if len(text) <= WIDTH else text[: WIDTH - 1] + "…"
