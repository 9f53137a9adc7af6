"""A buggy sample: counts the false positives with a confirm pass, then ignores it and drops every flagged paragraph.

It drops exactly what s04 drops (every paragraph the filter reports as seen, unconfirmed), but its
false_positives stat is right, where s04's is not: a stat no check it fails judges.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from corpus.bloom import BloomFilter
from corpus.doc import Doc

STATS_KEYS: tuple[str, ...] = (
    "docs_in",
    "paragraphs",
    "bloom_bits",
    "candidates",
    "false_positives",
    "duplicate_paragraphs",
    "docs_dropped",
    "docs_out",
)


def _is_blank(line: str) -> bool:
    return all(ch in " \t" for ch in line)


def paragraphs(text: str) -> list[str]:
    result: list[str] = []
    current: list[str] = []
    lines = text.split("\n")
    for number, line in enumerate(lines):
        content = line
        if number + 1 < len(lines) and content.endswith("\r"):
            content = content[:-1]  # the \r of a \r\n break
        if _is_blank(content):
            if current:
                result.append("\n".join(current))
            current = []
        else:
            current.append(line)
    if current:
        result.append("\n".join(current))
    stripped = [piece.strip() for piece in result]
    return [piece for piece in stripped if piece != ""]


def paragraph_hash(p: str) -> bytes:
    return hashlib.sha256(p.encode("utf-8")).digest()


def bloom_rate(bloom_bytes_per_item: float) -> float:
    value = bloom_bytes_per_item
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not ok or value != value or value in (math.inf, -math.inf) or value <= 0:
        raise ValueError(f"bloom_bytes_per_item should be a positive finite number, not {value!r}")
    bits_per_item = 8 * value
    return math.exp(-bits_per_item * math.log(2) ** 2)


def exact_dedup(
    docs: Iterable[Doc],
    bloom_bytes_per_item: float = 10,
    *,
    spool_dir: str | Path | None = None,
    stats: dict[str, Any] | None = None,
) -> Iterator[Doc]:
    rate = bloom_rate(bloom_bytes_per_item)
    return _stage(docs, rate, spool_dir, stats)


def _stage(
    docs: Iterable[Doc], rate: float, spool_dir: str | Path | None, stats: dict[str, Any] | None
) -> Iterator[Doc]:
    counts = {key: 0 for key in STATS_KEYS}
    folder = tempfile.mkdtemp(prefix="student-spool-", dir=spool_dir)
    try:
        spool = os.path.join(folder, "spool.jsonl")
        _write_spool(docs, spool, counts)
        bloom = BloomFilter(max(counts["paragraphs"], 1), rate)
        counts["bloom_bits"] = bloom.m
        maybe_seen = set()
        drop: set[tuple[int, int]] = set()
        for i, (_, _, digests) in enumerate(_read_spool(spool)):
            for j, digest in enumerate(digests):
                if bloom.contains(digest):
                    maybe_seen.add(digest)
                    drop.add((i, j))  # seen before, so a repeat
                else:
                    bloom.insert(digest)
        counts["candidates"] = len(maybe_seen)
        counts["false_positives"] = _false_positives(spool, maybe_seen)  # counted right, then not used
        counts["duplicate_paragraphs"] = len(drop)
        for i, (doc, pieces, _) in enumerate(_read_spool(spool)):
            keep = [piece for j, piece in enumerate(pieces) if (i, j) not in drop]
            if len(keep) == len(pieces):
                counts["docs_out"] += 1
                yield doc
            elif keep:
                counts["docs_out"] += 1
                yield Doc(doc.id, "\n\n".join(keep), doc.meta)
            else:
                counts["docs_dropped"] += 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if stats is not None:
        stats.update(counts)


def _false_positives(spool: str, flagged: set[bytes]) -> int:
    """How many flagged digests occur once only: the confirm pass's count, which the stage then ignores."""
    seen: dict[bytes, int] = {}
    for _, _, digests in _read_spool(spool):
        for digest in digests:
            if digest in flagged:
                seen[digest] = seen.get(digest, 0) + 1
    return sum(1 for times in seen.values() if times == 1)


def _write_spool(docs: Iterable[Doc], spool: str, counts: dict[str, int]) -> None:
    with open(spool, "w", encoding="utf-8") as out:
        for doc in docs:
            try:
                line = json.dumps({"id": doc.id, "text": doc.text, "meta": doc.meta}, allow_nan=False)
                pieces = paragraphs(doc.text)
                digests = [paragraph_hash(piece).hex() for piece in pieces]
            except (TypeError, ValueError) as problem:
                raise ValueError(f"cannot spool document {doc.id!r}: {problem}") from problem
            if json.loads(line)["meta"] != doc.meta:
                raise ValueError(f"cannot spool document {doc.id!r}: its meta changes in JSON")
            out.write(json.dumps({"doc": json.loads(line), "digests": digests}) + "\n")
            counts["docs_in"] += 1
            counts["paragraphs"] += len(digests)


def _read_spool(spool: str) -> Iterator[tuple[Doc, list[str], list[bytes]]]:
    with open(spool, encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            doc = Doc(record["doc"]["id"], record["doc"]["text"], record["doc"]["meta"])
            yield doc, paragraphs(doc.text), [bytes.fromhex(d) for d in record["digests"]]
