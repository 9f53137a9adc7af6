"""Running a stage to the end, and saying how two outputs or two sets of stats differ, in plain words."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any


def run_stage(
    impl: Any, docs: Iterable[Any], bloom_bytes_per_item: float, **options: Any
) -> tuple[list[Any], dict[str, Any]]:
    """The stage run to the end over a one-shot iterator, as a pipeline runs it: (output, stats).

    It gets its own copy of every document's meta, so a stage that changes a meta in place changes
    nothing the oracle or a later run sees. The grader's proxy reads a remote output to the end in a
    few round trips instead of one per document (``read_all``, ``RemoteOutput`` in grade/client/proxy.py); any other
    output is read as ``list()`` reads it.
    """
    stats: dict[str, Any] = {}
    fresh = [dataclasses.replace(d, meta=copy.deepcopy(d.meta)) for d in docs]
    output = impl.exact_dedup(iter(fresh), bloom_bytes_per_item, stats=stats, **options)
    read_all = getattr(type(output), "read_all", None)
    return (read_all(output) if read_all is not None else list(output)), stats


def fields(doc: Any) -> tuple[Any, Any, Any]:
    """A document as (id, text, meta): the two sides of a comparison may use Doc classes of different roots."""
    return doc.id, doc.text, doc.meta


def records(docs: Iterable[Any]) -> list[dict[str, Any]]:
    """Documents as plain records, for the reports."""
    return [{"id": d.id, "text": d.text, "meta": d.meta} for d in docs]


def output_differences(got: list[Any], want: list[Any]) -> list[str]:
    """How two outputs differ, document by document, in input order."""
    got_by_id, want_by_id = {d.id: fields(d) for d in got}, {d.id: fields(d) for d in want}
    lines = []
    for doc_id in dict.fromkeys([*(d.id for d in want), *(d.id for d in got)]):
        if doc_id not in got_by_id:
            lines.append(f"document {doc_id!r}: expected {want_by_id[doc_id][1]!r}, missing from the output")
        elif doc_id not in want_by_id:
            lines.append(f"document {doc_id!r}: expected to be dropped, came out as {got_by_id[doc_id][1]!r}")
        elif got_by_id[doc_id] != want_by_id[doc_id]:
            (_, want_text, want_meta), (_, got_text, got_meta) = want_by_id[doc_id], got_by_id[doc_id]
            what, want_value, got_value = (
                ("text", want_text, got_text) if want_text != got_text else ("meta", want_meta, got_meta)
            )
            lines.append(f"document {doc_id!r}: expected {what} {want_value!r}, got {got_value!r}")
    if not lines and [d.id for d in got] != [d.id for d in want]:
        lines.append(f"documents in another order: expected {[d.id for d in want]}, got {[d.id for d in got]}")
    return lines


def stats_differences(got: Mapping[str, Any], want: Mapping[str, Any]) -> list[str]:
    """Each stat of ``want`` that ``got`` holds otherwise: "name: expected x, got y"."""
    return [f"{key}: expected {value!r}, got {got.get(key)!r}" for key, value in want.items() if got.get(key) != value]
