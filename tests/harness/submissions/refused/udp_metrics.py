"""Correct but refused by the grader: sends its stats to a local metrics daemon over UDP when it ends.

A student who likes dashboards: once the output is exhausted, the stage sends one statsd line per
count to 127.0.0.1:8125. On their machine nothing listens there and a UDP datagram to nobody fails
silently, so the stage is right and passes `dedup-harness check`; the grader gives no sockets.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import socket
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from corpus.bloom import BloomFilter
from corpus.doc import Doc

STATS_KEYS = (
    "docs_in",
    "paragraphs",
    "bloom_bits",
    "candidates",
    "false_positives",
    "duplicate_paragraphs",
    "docs_dropped",
    "docs_out",
)
METRICS = ("127.0.0.1", 8125)  # statsd's usual port; nothing needs to listen

BLANK = re.compile(r"\n[ \t]*\r?\n(?:[ \t]*\r?\n)*")


def paragraphs(text: str) -> list[str]:
    return [piece.strip() for piece in BLANK.split(text) if piece.strip()]


def paragraph_hash(p: str) -> bytes:
    return hashlib.sha256(p.encode("utf-8")).digest()


def bloom_rate(bloom_bytes_per_item: float) -> float:
    if isinstance(bloom_bytes_per_item, bool) or not isinstance(bloom_bytes_per_item, (int, float)):
        raise ValueError(f"bloom_bytes_per_item must be a number, got {bloom_bytes_per_item!r}")
    if not math.isfinite(bloom_bytes_per_item) or bloom_bytes_per_item <= 0:
        raise ValueError(f"bloom_bytes_per_item must be positive, got {bloom_bytes_per_item!r}")
    return math.exp(-8 * bloom_bytes_per_item * math.log(2) ** 2)


def report(counts: dict[str, int]) -> None:
    """One statsd gauge per count, fire and forget."""
    lines = "\n".join(f"dedup.{key}:{value}|g" for key, value in counts.items())
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as metrics:
        metrics.sendto(lines.encode("ascii"), METRICS)


def exact_dedup(
    docs: Iterable[Doc],
    bloom_bytes_per_item: float = 10,
    *,
    spool_dir: str | Path | None = None,
    stats: dict[str, Any] | None = None,
) -> Iterator[Doc]:
    rate = bloom_rate(bloom_bytes_per_item)
    return run(docs, rate, spool_dir, stats)


def run(docs: Iterable[Doc], rate: float, spool_dir: Any, stats: dict[str, Any] | None) -> Iterator[Doc]:
    counts = dict.fromkeys(STATS_KEYS, 0)
    with tempfile.TemporaryDirectory(dir=spool_dir) as folder:
        spool = Path(folder) / "docs.jsonl"
        with open(spool, "w", encoding="utf-8") as out:
            for doc in docs:
                try:
                    out.write(json.dumps([doc.id, doc.text, doc.meta], ensure_ascii=False, allow_nan=False) + "\n")
                except (TypeError, ValueError, UnicodeEncodeError) as error:
                    raise ValueError(f"cannot spool document {doc.id!r}: {error}") from error
                counts["docs_in"] += 1
                counts["paragraphs"] += len(paragraphs(doc.text))
        bloom = BloomFilter(counts["paragraphs"], rate)
        counts["bloom_bits"] = bloom.m
        candidates = set()
        for doc in read(spool):
            for p in paragraphs(doc.text):
                h = paragraph_hash(p)
                if bloom.contains(h):
                    candidates.add(h)
                else:
                    bloom.insert(h)
        counts["candidates"] = len(candidates)
        seen: dict[bytes, list[tuple[int, int]]] = {}
        for i, doc in enumerate(read(spool)):
            for j, p in enumerate(paragraphs(doc.text)):
                h = paragraph_hash(p)
                if h in candidates:
                    seen.setdefault(h, []).append((i, j))
        drop = set()
        for places in seen.values():
            if len(places) == 1:
                counts["false_positives"] += 1
            drop.update(sorted(places)[1:])
        counts["duplicate_paragraphs"] = len(drop)
        for i, doc in enumerate(read(spool)):
            ps = paragraphs(doc.text)
            kept = [p for j, p in enumerate(ps) if (i, j) not in drop]
            if kept or not ps:
                counts["docs_out"] += 1
                yield doc if len(kept) == len(ps) else Doc(doc.id, "\n\n".join(kept), doc.meta)
            else:
                counts["docs_dropped"] += 1
    if stats is not None:
        stats.update(counts)
    report(counts)


def read(spool: Path) -> Iterator[Doc]:
    with open(spool, encoding="utf-8") as lines:
        for line in lines:
            doc_id, text, meta = json.loads(line)
            yield Doc(doc_id, text, meta)
