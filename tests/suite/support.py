"""Helpers the checks share: the stage under test against the oracle, in plain words."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import oracle
from corpus.doc import Doc

ORACLE_KEYS = ("docs_in", "paragraphs", "duplicate_paragraphs", "docs_dropped", "docs_out")

Run = Callable[..., tuple[list[Doc], dict[str, Any]]]


def docs_from(records: Iterable[dict[str, Any]]) -> list[Doc]:
    return [Doc(r["id"], r["text"], r["meta"]) for r in records]


def oracle_run(docs: Iterable[Doc]) -> tuple[list[Doc], dict[str, Any]]:
    stats: dict[str, Any] = {}
    return list(oracle.exact_dedup(docs, stats=stats)), stats


def differences(got: list[Doc], want: list[Doc]) -> str:
    """The first few ways two outputs differ, in plain words."""
    got_by_id = {d.id: d for d in got}
    want_by_id = {d.id: d for d in want}
    lines = [f"document {i!r} should have been dropped" for i in got_by_id.keys() - want_by_id.keys()]
    lines += [f"document {i!r} is missing from the output" for i in want_by_id.keys() - got_by_id.keys()]
    for i in want_by_id.keys() & got_by_id.keys():
        if got_by_id[i] != want_by_id[i]:
            lines.append(f"document {i!r}: expected {want_by_id[i]!r}, got {got_by_id[i]!r}")
    if not lines and [d.id for d in got] != [d.id for d in want]:
        lines.append(f"documents out of input order: {[d.id for d in got]}")
    return "; ".join(sorted(lines)[:5])
