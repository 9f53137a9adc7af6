"""Where a stage's time goes: its passes timed in one run, and the parts no exact dedup here can skip.

    python benchmarks/stage_parts.py passes external|reference IN.jsonl
    python benchmarks/stage_parts.py floor IN.jsonl

``passes`` runs the stage through ``stage_run.py``'s driver (output to /dev/null) with a timer around
each of its four passes: spool (the driver's reading of the input included), screen, confirm, emit
(the driver's writing excluded). The whole run is timed too, so the driver's writing is what is left.

``floor`` times, alone and on the whole corpus held in memory (the collector off), each part that the
baselines and the stages pay: reading a line into a record and a ``Doc`` (the harness's reader, and
json.loads alone as the plain script does), the paragraph split, SHA-256, a set of digests, a set of
texts, writing (the harness's ``write_record``, json.dumps as the plain script does, one encoder built
once); and what only a stage pays: the spool's JSON encoding of every document and its decoding in the
emit pass, the meta check, packing the occurrences, and the Bloom screen (the external stage's
batches). It prints CPU seconds per part, then the sums: the digests pass, the plain script, and
the least the external stage can cost before any sorting or merging.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import stage_run

from dedup_harness.core import jsonl, reference


def passes(which: str, source: str) -> dict[str, float]:
    dedup = reference.external_stage() if which == "external" else reference.reference_stage()
    timers: dict[str, float] = {}
    for name in ("spool_documents", "screen", "confirm"):
        setattr(dedup, name, _timed_call(getattr(dedup, name), timers, name))
    dedup.emit = _timed_generator(dedup.emit, timers, "emit")
    stage, make_doc = stage_run.load_stage(which)
    start, cpu = time.perf_counter(), time.process_time()
    stage_run.drive(stage, make_doc, source, os.devnull, {})
    timers["whole run"], timers["whole run, CPU"] = time.perf_counter() - start, time.process_time() - cpu
    timers["writing (the rest)"] = timers["whole run"] - sum(
        timers[n] for n in ("spool_documents", "screen", "confirm", "emit")
    )
    return timers


def _timed_call(function: Callable[..., Any], timers: dict[str, float], name: str) -> Callable[..., Any]:
    def timed(*args: Any) -> Any:
        start, cpu = time.perf_counter(), time.process_time()
        try:
            return function(*args)
        finally:
            timers[name] = time.perf_counter() - start
            timers[name + ", CPU"] = time.process_time() - cpu

    return timed


def _timed_generator(function: Callable[..., Iterator[Any]], timers: dict[str, float], name: str) -> Callable[..., Any]:
    """Each item's production timed (wall), not what the consumer does with it."""

    def timed(*args: Any) -> Iterator[Any]:
        items, timers[name] = function(*args), 0.0
        while True:
            start = time.perf_counter()
            item = next(items, None)
            timers[name] += time.perf_counter() - start
            if item is None:
                return
            yield item

    return timed


def floor(source: str) -> dict[str, Any]:
    ext = reference.external_stage()
    ref = reference.reference_stage()
    gc.disable()  # everything is held here, which a streaming run never does: no collector walks over it
    with open(source, "rb") as corpus:
        raw = corpus.readlines()
    parts: dict[str, float] = {}

    def clock(name: str, work: Callable[[], Any]) -> Any:
        start = time.process_time()
        result = work()
        parts[name] = time.process_time() - start
        return result

    docs = clock(
        "read: jsonl.read_records + Doc",
        lambda: [ext.Doc(r["id"], r["text"], r["meta"]) for r in jsonl.read_records(raw, source=source)],
    )
    clock("read: json.loads alone", lambda: [json.loads(line) for line in raw])
    split = clock("split", lambda: [ext.paragraphs(d.text) for d in docs])
    digests = clock("SHA-256", lambda: [hashlib.sha256(p.encode("utf-8")).digest() for found in split for p in found])
    texts = [p for found in split for p in found]
    clock("set of digests", lambda: _first_seen(digests))
    clock("set of texts", lambda: _first_seen(texts))
    records = [{"id": d.id, "text": d.text, "meta": d.meta} for d in docs]  # the dicts the writers take
    with open(os.devnull, "wb") as out:
        clock("write: jsonl.write_record", lambda: [jsonl.write_record(out, r) for r in records])
        clock(
            "write: json.dumps(ensure_ascii=False)",
            lambda: [out.write(json.dumps(r, ensure_ascii=False).encode() + b"\n") for r in records],
        )
        clock(
            "write: one encoder, built once",
            lambda: [out.write(ref.SPOOL_JSON.encode(r).encode() + b"\n") for r in records],
        )
    lines = clock("spool: JSON encoding", lambda: [ref.SPOOL_JSON.encode(r) + "\n" for r in records])
    clock("spool: meta check", lambda: [ref._json_exact(d.meta) for d in docs])
    clock("spool: occurrences packed", lambda: [ref.Spool.RECORD.pack(h, i, 0) for i, h in enumerate(digests)])
    clock("emit: JSON decoding", lambda: [ext.Doc(r["id"], r["text"], r["meta"]) for r in map(json.loads, lines)])
    bloom = ext.BloomFilter(len(digests), ext.bloom_rate(10))
    batch = ext.SCREEN_BATCH
    clock(
        "Bloom screen",
        lambda: [ext._screen_batch(bloom, digests[s : s + batch]) for s in range(0, len(digests), batch)],
    )
    return {
        "parts": parts,
        "bloom_k": bloom.k,
        "bloom_bytes": bloom.m // 8,
        "paragraphs": len(digests),
        "docs": len(docs),
    }


def _first_seen(items: list[Any]) -> int:
    seen: set[Any] = set()
    for item in items:
        if item not in seen:
            seen.add(item)
    return len(seen)


SUMS = {
    "digests pass": (
        "read: jsonl.read_records + Doc",
        "split",
        "SHA-256",
        "set of digests",
        "write: jsonl.write_record",
    ),
    "plain script": ("read: json.loads alone", "split", "set of texts", "write: json.dumps(ensure_ascii=False)"),
    "external stage, least": (
        "read: jsonl.read_records + Doc",
        "split",
        "SHA-256",
        "write: jsonl.write_record",
        "spool: JSON encoding",
        "spool: meta check",
        "spool: occurrences packed",
        "emit: JSON decoding",
        "Bloom screen",
    ),
}


def floor_table(found: dict[str, Any]) -> str:
    parts = found["parts"]
    lines = [
        f"{found['paragraphs']:,} paragraphs in {found['docs']:,} documents; Bloom filter k = {found['bloom_k']}, "
        f"{found['bloom_bytes'] / 1e6:.1f} MB",
        "",
        "| part | CPU s |",
        "|---|---:|",
        *(f"| {name} | {seconds:.2f} |" for name, seconds in parts.items()),
    ]
    sums = {name: sum(parts[p] for p in members) for name, members in SUMS.items()}
    lines += [f"| **{name}** (sum of {len(SUMS[name])} parts) | **{seconds:.2f}** |" for name, seconds in sums.items()]
    lines += [
        "",
        f"external stage, least / digests pass: {sums['external stage, least'] / sums['digests pass']:.2f}; "
        f"/ plain script: {sums['external stage, least'] / sums['plain script']:.2f}",
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv[:1] == ["passes"] and len(argv) == 3:
        timers = passes(argv[1], argv[2])
        print(json.dumps(timers))
        print(", ".join(f"{name} {seconds:.2f} s" for name, seconds in timers.items()), file=sys.stderr)
        return 0
    if argv[:1] == ["floor"] and len(argv) == 2:
        found = floor(argv[1])
        print(json.dumps(found))
        print(floor_table(found), file=sys.stderr)
        return 0
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
