"""A minimal failing case in plain text: the input, then what was expected beside what came back."""

from __future__ import annotations

from typing import Any

from dedup_harness.grade.minimize.case import MinimalCase

WIDTH = 38  # characters of one column


def case_text(case: MinimalCase) -> str:
    lines = [_heading(case)]
    lines += _input_lines(case.input)
    lines += _side_by_side(case.expected, case.got)
    lines += ["what differs:", *(f"  - {d}" for d in case.differences)]
    if case.note:
        lines.append(f"({case.note})")
    return "\n".join(lines)


def _heading(case: MinimalCase) -> str:
    if not case.documents and not case.characters and not case.shrunk:
        return "The failing case:"
    size = f"{_count(case.documents, 'document')}, {_count(case.characters, 'character')}"
    if case.shrunk:
        before = f"{_count(case.origin['documents'], 'document')}, {_count(case.origin['characters'], 'character')}"
        return f"Smallest failing case found ({size}; the check's own input had {before}):"
    return f"Smallest failing case ({size}):"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _input_lines(inputs: dict[str, Any]) -> list[str]:
    lines = ["input:"]
    for key, value in inputs.items():
        if key == "docs":
            lines += [
                f"  {r['id']}: {_short(r['text'])}" + (f"  meta {r['meta']!r}" if r["meta"] else "") for r in value
            ] or ["  (no documents)"]
        else:
            lines.append(f"  {key.replace('_', ' ')}: {value!r}")
    return lines


def _side_by_side(expected: dict[str, Any], got: dict[str, Any]) -> list[str]:
    if not expected and not got:
        return []
    rows = [("", "expected", "got")]
    for key in dict.fromkeys([*expected, *got]):
        want, have = expected.get(key), got.get(key)
        if key == "output":
            rows += _output_rows(want or [], have or [])
        elif isinstance(want, dict) and isinstance(have, dict):
            rows += [(f"{key} {k}", _short(want.get(k)), _short(have.get(k))) for k in dict.fromkeys([*want, *have])]
        else:
            rows.append((key.replace("_", " "), _short(want), _short(have)))
    label_width = max(len(r[0]) for r in rows)
    return [
        f"  {'!' if i and r[1] != r[2] else ' '} {r[0]:<{label_width}}  {r[1]:<{WIDTH}}  {r[2]}"
        for i, r in enumerate(rows)
    ]


def _output_rows(want: list[dict[str, Any]], have: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    by_id_want, by_id_have = {r["id"]: r for r in want}, {r["id"]: r for r in have}
    rows = []
    for doc_id in dict.fromkeys([*by_id_want, *by_id_have]):
        rows.append((f"out {doc_id}", _doc(by_id_want.get(doc_id)), _doc(by_id_have.get(doc_id))))
    return rows or [("output", "(no documents)", "(no documents)")]


def _doc(record: dict[str, Any] | None) -> str:
    if record is None:
        return "(dropped)"
    return _short(record["text"]) + (f" {record['meta']!r}" if record["meta"] else "")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= WIDTH else text[: WIDTH - 1] + "…"
