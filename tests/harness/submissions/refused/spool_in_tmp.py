"""Correct but for where its spool lives: in a folder of its own under /tmp, whatever spool_dir says.

A student who reads "a spool on disk" and reaches for /tmp: the stage makes its spool folder with
tempfile.mkdtemp(dir="/tmp") and never looks at spool_dir. Its output and stats are right, and it
removes the folder however it ends; but the spool checks look under spool_dir. The grader, besides,
lets a submission write only under the spool_dir it is handed and its own temp folder.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import shutil
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

PARAGRAPH_BREAK = re.compile(r"\n(?:[ \t]*\r?\n)+")


def paragraphs(text: str) -> list[str]:
    pieces = (piece.strip() for piece in PARAGRAPH_BREAK.split(text))
    return [piece for piece in pieces if piece]


def paragraph_hash(p: str) -> bytes:
    return hashlib.sha256(p.encode("utf-8")).digest()


def bloom_rate(bloom_bytes_per_item: float) -> float:
    b = bloom_bytes_per_item
    if type(b) not in (int, float) or not math.isfinite(b) or b <= 0:
        raise ValueError(f"bloom_bytes_per_item must be a positive number, got {b!r}")
    return math.exp(-8 * b * math.log(2) ** 2)


def exact_dedup(
    docs: Iterable[Doc],
    bloom_bytes_per_item: float = 10,
    *,
    spool_dir: str | Path | None = None,
    stats: dict[str, Any] | None = None,
) -> Iterator[Doc]:
    rate = bloom_rate(bloom_bytes_per_item)
    return dedup(docs, rate, stats)


def dedup(docs: Iterable[Doc], rate: float, stats: dict[str, Any] | None) -> Iterator[Doc]:
    counts = dict.fromkeys(STATS_KEYS, 0)
    folder = Path(tempfile.mkdtemp(prefix="dedup-spool-", dir="/tmp"))
    try:
        spool = folder / "docs.jsonl"
        with open(spool, "w", encoding="utf-8") as f:
            for doc in docs:
                try:
                    line = json.dumps({"id": doc.id, "text": doc.text, "meta": doc.meta}, ensure_ascii=False, allow_nan=False)
                    f.write(line + "\n")
                except (TypeError, ValueError, UnicodeEncodeError) as error:
                    raise ValueError(f"document {doc.id!r} cannot be spooled: {error}") from error
                counts["docs_in"] += 1
                counts["paragraphs"] += len(paragraphs(doc.text))
        bloom = BloomFilter(counts["paragraphs"], rate)
        counts["bloom_bits"] = bloom.m
        candidates = set()
        for doc in load(spool):
            for p in paragraphs(doc.text):
                h = paragraph_hash(p)
                if bloom.contains(h):
                    candidates.add(h)
                else:
                    bloom.insert(h)
        counts["candidates"] = len(candidates)
        seen: dict[bytes, int] = {}
        repeats: set[tuple[int, int]] = set()
        for i, doc in enumerate(load(spool)):
            for j, p in enumerate(paragraphs(doc.text)):
                h = paragraph_hash(p)
                if h in candidates:
                    seen[h] = seen.get(h, 0) + 1
                    if seen[h] > 1:
                        repeats.add((i, j))
        counts["false_positives"] = sum(1 for n in seen.values() if n == 1)
        counts["duplicate_paragraphs"] = len(repeats)
        for i, doc in enumerate(load(spool)):
            ps = paragraphs(doc.text)
            kept = [p for j, p in enumerate(ps) if (i, j) not in repeats]
            if len(kept) == len(ps):
                counts["docs_out"] += 1
                yield doc
            elif kept:
                counts["docs_out"] += 1
                yield Doc(doc.id, "\n\n".join(kept), doc.meta)
            else:
                counts["docs_dropped"] += 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if stats is not None:
        stats.update(counts)


def load(spool: Path) -> Iterator[Doc]:
    with open(spool, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            yield Doc(record["id"], record["text"], record["meta"])
