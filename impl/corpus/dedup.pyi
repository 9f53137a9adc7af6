"""Exact paragraph deduplication: the module students write (docs/contract.md says it in full).

A stage over documents that keeps the first occurrence of every paragraph, in input order, and
removes the later ones, in four passes over a spool on disk: spool, screen, confirm, emit.
"""

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from corpus.bloom import BloomFilter
from corpus.doc import Doc

STATS_KEYS: tuple[str, ...]

def paragraphs(text: str) -> list[str]:
    """The paragraphs of ``text``: the pieces between blank lines, each stripped, empty pieces skipped.

    A line ends at "\\n" or "\\r\\n"; a blank line is empty or holds only spaces and tabs (a lone "\\r",
    a non-breaking space or any other character makes it a line of text). The text inside a
    paragraph, its single line breaks included, stays as it was.
    """

def paragraph_hash(p: str) -> bytes:
    """The paragraph's identity: the 32-byte SHA-256 digest of its UTF-8 encoding."""

def bloom_rate(bloom_bytes_per_item: float) -> float:
    """The false-positive rate of a filter of B bytes (8B bits) per item: exp(-8B (ln 2)**2).

    B must be a positive finite int or float (not a bool); anything else is a ValueError.
    """

def exact_dedup(
    docs: Iterable[Doc],
    bloom_bytes_per_item: float = 10,
    *,
    spool_dir: str | Path | None = None,
    stats: dict[str, Any] | None = None,
) -> Iterator[Doc]:
    """Yield ``docs`` in order without repeated paragraphs: the first occurrence of each stays.

    A document that loses none comes back exactly as it was; one that loses some keeps the rest
    joined by "\\n\\n"; one that loses all is dropped. Four passes over a spool: (1) spool every
    document and its paragraphs' digests to a tempfile.TemporaryDirectory under ``spool_dir``,
    counting N; (2) screen the digests in input order through a BloomFilter sized for max(N, 1) at
    bloom_rate(B): "present" makes a candidate, "new" inserts; (3) confirm: sort the candidates'
    occurrences (digest, i, j) and mark every occurrence after the first of each run; (4) emit:
    reread the spool and yield each document without its marked paragraphs. The spool is removed
    when the output is exhausted, closed early, or anything raises. ``stats``, when given, gets
    every key of STATS_KEYS once the output is exhausted. A bad B is a ValueError before any input
    is read.
    """
