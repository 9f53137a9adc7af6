"""Exact paragraph deduplication: the reference for the course's module data.03.

A stage over documents that keeps the first occurrence of every paragraph, in input order, and
removes the later ones. A document that loses some paragraphs keeps the rest joined by a blank
line; a document that loses all of them is dropped; a document that loses none comes back as it was.

The stage must see its whole input before it can emit anything, so it works in four passes:

1. spool:   copy every document to disk, with the SHA-256 digest of each of its paragraphs; count N.
2. screen:  ask a Bloom filter sized for N about every digest in input order. "Present" makes the
            digest a candidate; "new" inserts it. Candidates = the repeated digests + false positives.
3. confirm: collect the occurrences (digest, i, j) of the candidates, sort them so equal digests sit
            together in input order, and walk the runs: a run of one is a false positive and stays;
            in a longer run the first occurrence stays and the others are marked for removal.
4. emit:    reread the spool and yield each document without its marked paragraphs.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
import struct
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import IO, Any

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

# A line break, then one or more blank lines' worth of spaces or tabs each ended by a line break.
# A line break is \n or \r\n; a lone \r or any other character makes a line non-blank. (The \r of
# the first break stays on the piece before it, and strip() removes it: starting at \n is faster.)
_BLANK_LINES = re.compile(r"\n(?:[ \t]*\r?\n)+")

LN2 = math.log(2)

# The spool's JSON: UTF-8 text as it is (the file's encoding refuses what UTF-8 cannot encode), made by
# one encoder for every line (json.dumps would build a new one per call).
SPOOL_JSON = json.JSONEncoder(ensure_ascii=False)


def paragraphs(text: str) -> list[str]:
    """The paragraphs of ``text``: the pieces between blank lines, stripped, empty pieces skipped."""
    return [piece for piece in map(str.strip, _BLANK_LINES.split(text)) if piece]


def paragraph_hash(p: str) -> bytes:
    """The paragraph's identity: the 32-byte SHA-256 digest of its UTF-8 encoding."""
    return hashlib.sha256(p.encode("utf-8")).digest()


def bloom_rate(bloom_bytes_per_item: float) -> float:
    """The false-positive rate a filter of B bytes (8B bits) per item delivers: exp(-8B (ln 2)**2)."""
    b = bloom_bytes_per_item
    if isinstance(b, bool) or not isinstance(b, (int, float)) or not math.isfinite(b) or b <= 0:
        raise ValueError(f"bloom_bytes_per_item must be a positive finite number, got {b!r}")
    return math.exp(-8 * b * LN2**2)


def exact_dedup(
    docs: Iterable[Doc],
    bloom_bytes_per_item: float = 10,
    *,
    spool_dir: str | Path | None = None,
    stats: dict[str, Any] | None = None,
) -> Iterator[Doc]:
    """The stage: yields ``docs`` in order without repeated paragraphs (see the module docstring).

    ``spool_dir`` is where the temporary spool lives (the system's temp folder by default);
    ``stats``, when given, is filled with every key of ``STATS_KEYS`` once the output is exhausted.
    """
    rate = usable_rate(bloom_bytes_per_item)  # bad options fail here, before any input is read
    return _run(docs, rate, spool_dir, stats)


def _run(docs: Iterable[Doc], rate: float, spool_dir: str | Path | None, stats: dict[str, Any] | None) -> Iterator[Doc]:
    tally = dict.fromkeys(STATS_KEYS, 0)
    # The spool is a full copy of the corpus: the with-block removes it when the output is
    # exhausted, when the consumer calls close(), and when anything raises (KeyboardInterrupt too).
    with tempfile.TemporaryDirectory(prefix="exact-dedup-", dir=spool_dir) as folder:
        spool = Spool(Path(folder))
        tally["docs_in"], tally["paragraphs"] = spool_documents(docs, spool)
        bloom = BloomFilter(tally["paragraphs"], rate)  # sized for max(N, 1) items
        tally["bloom_bits"] = bloom.m
        candidates = screen(spool, bloom)
        tally["candidates"] = len(candidates)
        marked = confirm(spool, candidates)
        tally["false_positives"] = marked.false_positives
        tally["duplicate_paragraphs"] = marked.count
        yield from emit(spool, marked, tally)
    if stats is not None:
        stats.update(tally)


class Spool:
    """The stage's copy of its input: documents as JSON lines, digests as fixed-size records.

    Document lines are UTF-8, so an id, text or meta that UTF-8 cannot encode is refused.
    A digest record is (digest, i, j): the digest of paragraph j of document i.
    """

    RECORD = struct.Struct(">32sQI")
    BATCH = 1 << 14  # records read at a time

    def __init__(self, folder: Path) -> None:
        self.docs_path = folder / "docs.jsonl"
        self.digests_path = folder / "digests.bin"

    def documents(self) -> Iterator[Doc]:
        with open(self.docs_path, encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                yield Doc(record["id"], record["text"], record["meta"])

    def record_batches(self) -> Iterator[list[tuple[bytes, int, int]]]:
        size = self.RECORD.size * self.BATCH
        with open(self.digests_path, "rb") as records:
            while chunk := records.read(size):
                yield list(self.RECORD.iter_unpack(chunk))


def spool_documents(docs: Iterable[Doc], spool: Spool) -> tuple[int, int]:
    """Pass 1: write every document and its paragraph digests to the spool. Returns (documents, paragraphs)."""
    n_docs = n_paragraphs = 0
    with open(spool.docs_path, "w", encoding="utf-8") as lines, open(spool.digests_path, "wb") as records:
        for i, doc in enumerate(docs):
            digests = _spool_one(i, doc, lines)
            records.write(b"".join([spool.RECORD.pack(d, i, j) for j, d in enumerate(digests)]))
            n_docs += 1
            n_paragraphs += len(digests)
    return n_docs, n_paragraphs


def _spool_one(i: int, doc: Doc, lines: IO[str]) -> list[bytes]:
    """Writes one document as a JSON line; returns its paragraph digests. Bad documents name themselves."""
    doc_id = getattr(doc, "id", None)
    if not isinstance(doc_id, str) or not isinstance(getattr(doc, "text", None), str):
        raise TypeError(f"input item {i} is not a Doc with a str id and str text: {doc!r:.200}")
    if not _json_exact(doc.meta):
        raise ValueError(f"document {doc_id!r}: meta does not survive a JSON round trip: {doc.meta!r:.200}")
    try:
        digests = [paragraph_hash(p) for p in paragraphs(doc.text)]
        lines.write(SPOOL_JSON.encode({"id": doc_id, "text": doc.text, "meta": doc.meta}) + "\n")
    except (UnicodeEncodeError, ValueError) as exc:
        raise ValueError(f"document {doc_id!r} cannot be spooled: {exc}") from exc
    return digests


def _json_exact(value: Any) -> bool:
    """Does ``value`` come back equal from JSON? (No tuples, no non-str keys, no NaN or infinity.)"""
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_json_exact(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_exact(v) for k, v in value.items())
    return False


def screen(spool: Spool, bloom: BloomFilter) -> set[bytes]:
    """Pass 2: the candidates, every digest the filter reports present at some occurrence.

    Every digest that occurs twice becomes a candidate at its second occurrence (no false
    negatives); a few unique digests become candidates too (the false positives).
    """
    candidates: set[bytes] = set()
    for batch in spool.record_batches():
        for digest, _, _ in batch:
            if bloom.contains(digest):  # "maybe seen": a repeat, or a false positive
                candidates.add(digest)
            else:  # "definitely new": remember it
                bloom.insert(digest)
    return candidates


@dataclass
class Marked:
    """What the confirm pass decided: the paragraphs j of document i to remove, by i."""

    by_doc: dict[int, set[int]] = field(default_factory=dict)
    false_positives: int = 0

    @property
    def count(self) -> int:
        return sum(len(js) for js in self.by_doc.values())


def confirm(spool: Spool, candidates: set[bytes]) -> Marked:
    """Pass 3: sort-merge the candidates' occurrences; mark every occurrence after a run's first."""
    occurrences = [record for batch in spool.record_batches() for record in batch if record[0] in candidates]
    occurrences.sort()  # equal digests become adjacent; within a digest, input order (i, then j)
    marked = Marked()
    for _, run in itertools.groupby(occurrences, key=itemgetter(0)):
        first, *repeats = run
        if not repeats:
            marked.false_positives += 1  # a unique paragraph the filter mistook for a repeat
        for _, i, j in repeats:
            marked.by_doc.setdefault(i, set()).add(j)
    return marked


def emit(spool: Spool, marked: Marked, tally: dict[str, Any]) -> Iterator[Doc]:
    """Pass 4: yield each document without its marked paragraphs; untouched ones exactly as they came."""
    for i, doc in enumerate(spool.documents()):
        gone = marked.by_doc.get(i)
        if gone is None:
            tally["docs_out"] += 1
            yield doc
            continue
        kept = [p for j, p in enumerate(paragraphs(doc.text)) if j not in gone]
        if not kept:
            tally["docs_dropped"] += 1
            continue
        tally["docs_out"] += 1
        yield Doc(doc.id, "\n\n".join(kept), doc.meta)


# Below the four passes: what they need and a first reading may skip.


def usable_rate(bloom_bytes_per_item: float) -> float:
    """``bloom_rate(B)``, refused when it is too small for a float (no filter can be sized for 0)."""
    rate = bloom_rate(bloom_bytes_per_item)
    if rate == 0.0:
        raise ValueError(
            f"bloom_bytes_per_item={bloom_bytes_per_item!r} asks for a false-positive rate "
            "below the smallest float; use a smaller value"
        )
    return rate
