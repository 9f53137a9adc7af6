"""A buggy sample: each paragraph keeps the line breaks it was read with (``splitlines(keepends=True)``).

It keeps the first occurrence of every paragraph, as it should; but "The cat sat.\n" at the end of one
paragraph and "The cat sat." at the end of a text are two paragraphs to it, and every line-break
character Python knows (\v, \f, \u2028...) splits a line. It fails the checks keep-the-last fails, and the
split check besides, which puts paragraphs() to the test alone.
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


def paragraphs(text: str) -> list[str]:
    """Lines with their line breaks, gathered until a blank one; each paragraph keeps its breaks."""
    result: list[str] = []
    current: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.strip(" \t\r\n") == "":
            if current:
                result.append("".join(current))
            current = []
        else:
            current.append(line.lstrip(" \t"))
    if current:
        result.append("".join(current))
    return [piece for piece in result if piece.strip()]


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
        for _, _, digests in _read_spool(spool):
            for digest in digests:
                if bloom.contains(digest):
                    maybe_seen.add(digest)
                else:
                    bloom.insert(digest)
        counts["candidates"] = len(maybe_seen)
        first_seen: dict[bytes, tuple[int, int]] = {}
        seen_twice: set[bytes] = set()
        drop: set[tuple[int, int]] = set()
        for i, (_, _, digests) in enumerate(_read_spool(spool)):
            for j, digest in enumerate(digests):
                if digest not in maybe_seen:
                    continue
                if digest in first_seen:
                    drop.add((i, j))
                    seen_twice.add(digest)
                else:
                    first_seen[digest] = (i, j)
        counts["false_positives"] = len(maybe_seen - seen_twice)
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
