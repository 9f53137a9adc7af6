"""Correct but refused by the grader: hashes each document's paragraphs in a multiprocessing pool.

A student's idea of speed: SHA-256 is the expensive part, so the spool pass hands every document's
paragraphs to a pool of two worker processes. On the student's machine it is right and passes
`dedup-harness check`; the grader runs submissions without child processes.
"""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing
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

SPLIT = re.compile(r"\n(?:[ \t]*\r?\n)+")


def paragraphs(text: str) -> list[str]:
    return [p.strip() for p in SPLIT.split(text) if p.strip()]


def paragraph_hash(p: str) -> bytes:
    return hashlib.sha256(p.encode("utf-8")).digest()


def bloom_rate(bloom_bytes_per_item: float) -> float:
    b = bloom_bytes_per_item
    if isinstance(b, bool) or not isinstance(b, (int, float)) or not math.isfinite(b) or b <= 0:
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
    return _stage(docs, rate, spool_dir, stats)


def _stage(docs: Iterable[Doc], rate: float, spool_dir: Any, stats: dict[str, Any] | None) -> Iterator[Doc]:
    counts = dict.fromkeys(STATS_KEYS, 0)
    folder = Path(tempfile.mkdtemp(prefix="dedup-", dir=spool_dir))
    try:
        spool = folder / "spool.jsonl"
        # pass 1: spool each document with its digests, hashed by the pool
        with multiprocessing.Pool(processes=2) as pool, open(spool, "w", encoding="utf-8") as out:
            for doc in docs:
                digests = pool.map(paragraph_hash, paragraphs(doc.text))
                record = {"id": doc.id, "text": doc.text, "meta": doc.meta, "digests": [d.hex() for d in digests]}
                try:
                    out.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
                except (TypeError, ValueError, UnicodeEncodeError) as error:
                    raise ValueError(f"document {doc.id!r} cannot be spooled: {error}") from error
                counts["docs_in"] += 1
                counts["paragraphs"] += len(digests)
        # pass 2: screen
        bloom = BloomFilter(counts["paragraphs"], rate)
        counts["bloom_bits"] = bloom.m
        candidates = set()
        for _, digests in _records(spool):
            for h in digests:
                if bloom.contains(h):
                    candidates.add(h)
                else:
                    bloom.insert(h)
        counts["candidates"] = len(candidates)
        # pass 3: confirm
        occurrences = sorted(
            (h, i, j) for i, (_, digests) in enumerate(_records(spool)) for j, h in enumerate(digests) if h in candidates
        )
        remove = set()
        for k, (h, i, j) in enumerate(occurrences):
            if k > 0 and occurrences[k - 1][0] == h:
                remove.add((i, j))
            elif k + 1 == len(occurrences) or occurrences[k + 1][0] != h:
                counts["false_positives"] += 1
        counts["duplicate_paragraphs"] = len(remove)
        # pass 4: emit
        for i, (doc, _) in enumerate(_records(spool)):
            ps = paragraphs(doc.text)
            kept = [p for j, p in enumerate(ps) if (i, j) not in remove]
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


def _records(spool: Path) -> Iterator[tuple[Doc, list[bytes]]]:
    with open(spool, encoding="utf-8") as lines:
        for line in lines:
            r = json.loads(line)
            yield Doc(r["id"], r["text"], r["meta"]), [bytes.fromhex(d) for d in r["digests"]]
