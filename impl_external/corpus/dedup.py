"""Exact paragraph deduplication with an external merge sort (the chapter's "going further").

The same stage as the reference (``impl/corpus/dedup.py``): the same contract, the same output and the
same stats on every input. It takes the reference's paragraph rules, digests, rate and first pass
(imported from it as ``corpus.reference``) and differs where the candidates and their occurrences
live. It keeps the first occurrence of every paragraph, in input order, and removes the later ones; a
document that loses some paragraphs keeps the rest joined by a blank line, one that loses all of them
is dropped, one that loses none comes back as it was.

Why an external sort. The reference holds the candidate digests in a set and their occurrences in a
list that it sorts in memory, as the chapter teaches. Candidates are the repeated digests plus the
false positives, so where half the paragraphs are repeats that set and that list cost more than the
plain set of digests the Bloom filter was meant to replace. Here the only thing in memory that grows
with the corpus is the filter (8B bits a paragraph) and, beside it, a bit table a sixteenth of its
size. Whatever has to be sorted is cut into sorted runs of at most ``RUN_RECORDS`` records, written to
the spool folder and read back merged by ``heapq.merge`` through small buffers, at most ``FAN_IN``
runs at a time (more runs are first merged into longer ones).

The candidate set is the other thing that must not be held. The screen pass sets one bit per
candidate in ``CandidateBits``, a one-hash filter with no false negatives, and writes the filter's
answer for every occurrence to disk. The confirm pass rereads every occurrence and keeps those whose
bit is set: every occurrence of every candidate, its first one included (the filter called that one
"new" when it went by), and a few unique paragraphs whose bit another candidate set, which the walk
below keeps and does not count.

The four passes, over the spool folder:

1. spool:   the reference's pass: copy every document to disk as a JSON line and every
            paragraph's occurrence (digest, i, j) as a 44-byte record; count N.
2. screen:  ask a Bloom filter sized for N about every digest in input order. "Present" makes the
            digest a candidate (its bit is set); "new" inserts it. Every answer goes to disk.
3. confirm: write the occurrences whose bit is set, each with its answer, in sorted runs; merge
            them, so equal digests meet in input order, and walk the runs of equal digests: a run
            of one is a unique paragraph (a false positive if the filter flagged it) and stays; in a
            longer run the first occurrence stays and the others are marked. The marks (i, j) go to
            disk in sorted runs of their own.
4. emit:    reread the documents alongside the merged marks, which arrive in (i, j) order, and
            yield each document without its marked paragraphs.

Records are packed big-endian, so comparing two of them as bytes orders them exactly as the
chapter's tuples (digest, then i, then j): the sorts and merges compare plain bytes.
"""

from __future__ import annotations

import errno
import heapq
import itertools
import os
import struct
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from functools import partial
from operator import itemgetter
from pathlib import Path
from typing import Any

from corpus import reference
from corpus.bloom import BloomFilter
from corpus.doc import Doc
from corpus.reference import STATS_KEYS, bloom_rate, paragraph_hash, paragraphs, spool_documents, usable_rate

__all__ = ["STATS_KEYS", "Doc", "bloom_rate", "exact_dedup", "paragraph_hash", "paragraphs"]

# Pass 2 a batch at a time in numpy (bloom_numpy.py beside this file) when numpy is installed: exactly
# the answers of the loop in _screen_batch, which runs otherwise (and where a test sets this to None).
_numpy_screen_batch: Callable[[bytearray, int, int, Sequence[bytes]], list[bool]] | None = None
with suppress(ImportError):  # numpy is not installed: the loop
    from corpus import bloom_numpy

    _numpy_screen_batch = bloom_numpy.screen_batch

# An occurrence (digest, i, j) as the reference spools it: paragraph j of document i has this digest.
OCCURRENCE = reference.Spool.RECORD
DIGEST_SIZE = 32
# A screened occurrence: the occurrence and one byte, the filter's answer when it went by.
PRESENT, NEW = b"\x01", b"\x00"
SCREENED_SIZE = OCCURRENCE.size + 1
# A mark: paragraph j of document i is a repeat and goes. Bytes 32 to 44 of its occurrence.
MARK = struct.Struct(">QI")
_MARK_OF = itemgetter(slice(DIGEST_SIZE, OCCURRENCE.size))
_DIGEST_OF = itemgetter(slice(0, DIGEST_SIZE))


# The fixed buffers. These module constants are read at every call, so a test may set them.
# RUN_RECORDS: records gathered in memory, then sorted and written as one run (65,536 occurrences
# with their answers take about 6 MB as Python bytes objects, once the filter has been freed).
# FAN_IN: runs merged at once, each through a READ_BUFFER-byte buffer (2 MB for 128 runs); fewer when
# the open-file limit is low (see _fan_in). One run of 65,536 records and 128 of them merge 8M
# occurrences in one pass; more are first merged FAN_IN at a time into longer runs.
RUN_RECORDS = 1 << 16
FAN_IN = 128
READ_BUFFER = 1 << 14
# Occurrences read from the spool at a time by the confirm pass (176 KB).
BLOCK_RECORDS = 1 << 12
# Digests per call of the filter's batch path. At k = 55 (B = 10), 256 digests keep numpy's working
# arrays near 1 MB, small enough for the CPU's cache, and measured fastest here: 4,096 take 10 MB and
# larger batches add a helper thread with arrays of its own (25 MB at 16,384), for no gain per digest.
SCREEN_BATCH = 256


def _fan_in() -> int:
    """``FAN_IN``, or a quarter of the open-file limit when that is lower (a merge opens a file a run)."""
    sysconf = getattr(os, "sysconf", None)  # POSIX only
    limit = sysconf("SC_OPEN_MAX") if sysconf is not None else -1
    return max(2, min(FAN_IN, limit // 4)) if limit > 0 else FAN_IN


class SpoolFullError(OSError):
    """The disk that holds the spool folder filled up; the folder has been removed."""


def exact_dedup(
    docs: Iterable[Doc],
    bloom_bytes_per_item: float = 10,
    *,
    spool_dir: str | Path | None = None,
    stats: dict[str, Any] | None = None,
) -> Iterator[Doc]:
    """The stage: yields ``docs`` in order without repeated paragraphs (see the module docstring).

    ``spool_dir`` is where the temporary spool folder lives (the system's temp folder by default);
    ``stats``, when given, is filled with every key of ``STATS_KEYS`` once the output is exhausted.
    """
    rate = usable_rate(bloom_bytes_per_item)  # bad options fail here, before any input is read
    return _four_passes(docs, rate, spool_dir, stats)


def _four_passes(
    docs: Iterable[Doc], rate: float, spool_dir: str | Path | None, stats: dict[str, Any] | None
) -> Iterator[Doc]:
    """The passes in order, inside a spool folder that goes however the generator ends."""
    tally = dict.fromkeys(STATS_KEYS, 0)
    # The with-block removes the folder, every run in it included, when the output is exhausted,
    # when the consumer calls close(), and when anything raises (KeyboardInterrupt too).
    with tempfile.TemporaryDirectory(prefix="exact-dedup-", dir=spool_dir) as folder, _disk_full_names(folder):
        spool = Spool(Path(folder))
        tally["docs_in"], tally["paragraphs"] = spool_documents(docs, spool)
        bloom = BloomFilter(tally["paragraphs"], rate)  # sized for max(N, 1) items
        tally["bloom_bits"] = bloom.m
        candidates = screen(spool, bloom)
        del bloom  # its work is done: the confirm pass needs only the candidates' bits and the disk
        marked = confirm(spool, candidates)
        tally["candidates"] = marked.candidates
        tally["false_positives"] = marked.false_positives
        tally["duplicate_paragraphs"] = marked.duplicate_paragraphs
        yield from emit(spool, marked.mark_runs, tally)
    if stats is not None:
        stats.update(tally)


@contextmanager
def _disk_full_names(folder: str) -> Iterator[None]:
    """Turn "no space left on device" into an error that names the spool folder."""
    try:
        yield
    except OSError as exc:
        if exc.errno != errno.ENOSPC or isinstance(exc, SpoolFullError):
            raise
        raise SpoolFullError(
            errno.ENOSPC,
            f"exact_dedup: no space left on device for the spool folder {folder} (it holds a copy of "
            "the corpus and about 100 bytes per paragraph; it has been removed). "
            "Pass spool_dir= on a disk with more room",
            folder,
        ) from exc


class Spool(reference.Spool):
    """The reference's spool (documents as JSON lines, occurrences as records), and the sorted runs.

    Beside the reference's two files: the filter's answers, one byte an occurrence, and the runs,
    sorted fixed-size records, each deleted once merged.
    """

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.folder = folder
        self.answers_path = folder / "answers.bin"
        self._names = itertools.count()

    def occurrence_blocks(self, count: int) -> Iterator[bytes]:
        """The spooled occurrences in input order, ``count`` records (one bytes object) at a time."""
        with open(self.digests_path, "rb") as records:
            while block := records.read(count * OCCURRENCE.size):
                yield block

    def screened_blocks(self, count: int) -> Iterator[tuple[bytes, bytes]]:
        """The occurrences in input order with the filter's answers, ``count`` at a time."""
        with open(self.answers_path, "rb") as answers:
            for block in self.occurrence_blocks(count):
                yield block, answers.read(len(block) // OCCURRENCE.size)

    def forget_screened(self) -> None:
        """Delete the occurrences and answers in input order (the runs hold what is still needed)."""
        self.digests_path.unlink()
        self.answers_path.unlink()

    def write_run(self, records: list[bytes]) -> Path:
        """Sort ``records`` (in place) and write them as one run; returns its path."""
        records.sort()
        path = self.folder / f"run-{next(self._names):06d}.bin"
        with open(path, "wb") as run:
            run.writelines(records)
        return path

    @contextmanager
    def merged(self, runs: list[Path], width: int) -> Iterator[Iterator[bytes]]:
        """The records of ``runs`` (each sorted, ``width`` bytes a record) as one sorted stream.

        Runs beyond ``FAN_IN`` are first merged into longer ones; each open run costs one read buffer.
        The runs are deleted once the stream has been read.
        """
        runs = self._narrowed(runs, width)
        with ExitStack() as files:
            readers = [files.enter_context(open(path, "rb", buffering=READ_BUFFER)) for path in runs]
            yield heapq.merge(*[iter(partial(reader.read, width), b"") for reader in readers])
        for path in runs:
            path.unlink()

    def _narrowed(self, runs: list[Path], width: int) -> list[Path]:
        """At most ``_fan_in()`` runs holding the records of ``runs``: merge them a group at a time."""
        fan_in = _fan_in()
        while len(runs) > fan_in:
            runs = [self._merged_into_one(runs[s : s + fan_in], width) for s in range(0, len(runs), fan_in)]
        return runs

    def _merged_into_one(self, group: list[Path], width: int) -> Path:
        if len(group) == 1:
            return group[0]
        path = self.folder / f"run-{next(self._names):06d}.bin"
        with self.merged(group, width) as records, open(path, "wb") as run:
            run.writelines(records)
        return path


@dataclass
class SortedRuns:
    """Records gathered into batches of ``RUN_RECORDS``; each full batch goes to disk as a sorted run."""

    spool: Spool
    paths: list[Path] = field(default_factory=list, init=False)
    _batch: list[bytes] = field(default_factory=list, init=False)

    def add(self, record: bytes) -> None:
        self._batch.append(record)
        if len(self._batch) >= RUN_RECORDS:
            self.flush()

    def extend(self, records: list[bytes]) -> None:
        self._batch += records
        while len(self._batch) >= RUN_RECORDS:
            self.paths.append(self.spool.write_run(self._batch[:RUN_RECORDS]))
            del self._batch[:RUN_RECORDS]

    def flush(self) -> list[Path]:
        """Write what is gathered as a run; returns every run written so far."""
        if self._batch:
            self.paths.append(self.spool.write_run(self._batch))
            self._batch = []
        return self.paths


class CandidateBits:
    """A one-hash bit table over the candidates: no false negatives, a few false positives.

    It stands in for the set of candidate digests. A digest's bit comes from its bytes 8 to 16 (SHA-256
    output is uniform, so no further hashing is needed). The table has a sixteenth of the filter's
    bits, rounded down to a power of two (at least ``MIN_BITS``); it lives beside the filter during
    the screen pass, so the screen pass holds 1/16 more than the filter.
    """

    MIN_BITS = 1 << 10
    KEY = struct.Struct(">8xQ28x")  # bytes 8 to 16 of an occurrence, as a number

    def __init__(self, filter_bits: int) -> None:
        wanted = max(self.MIN_BITS, filter_bits // 16)
        size = 1 << (wanted.bit_length() - 1)  # the largest power of two not above it
        self.shift = 64 - (size.bit_length() - 1)  # a 64-bit key >> shift is a bit index
        self.table = bytearray(size // 8)

    def add(self, digests: Iterable[bytes]) -> None:
        """Set the bit of every digest."""
        table, shift = self.table, self.shift
        for digest in digests:
            bit = int.from_bytes(digest[8:16]) >> shift
            table[bit >> 3] |= 1 << (bit & 7)

    def suspects(self, block: bytes, answers: bytes) -> list[bytes]:
        """The occurrences of ``block`` whose bit is set, each with its answer from ``answers``.

        That is every occurrence of every candidate in the block, and a few others.
        """
        table, shift, width = self.table, self.shift, OCCURRENCE.size
        picked = []
        for k, (key,) in enumerate(self.KEY.iter_unpack(block)):
            bit = key >> shift
            if table[bit >> 3] >> (bit & 7) & 1:
                picked.append(block[k * width : (k + 1) * width] + answers[k : k + 1])
        return picked


def screen(spool: Spool, bloom: BloomFilter) -> CandidateBits:
    """Pass 2: ask the filter about every digest in input order. Returns the candidates' bit table.

    A digest the filter reports present is a candidate: every repeated digest at its second
    occurrence (no false negatives), and a few unique ones (the false positives). The candidates
    are not gathered: each sets its bit in the table, and every answer goes to disk, one byte an
    occurrence, for the confirm pass to tell a false positive from a paragraph nobody flagged.
    """
    candidates = CandidateBits(bloom.m)
    width = OCCURRENCE.size
    with open(spool.answers_path, "wb") as answers:
        for block in spool.occurrence_blocks(SCREEN_BATCH):
            digests = [block[s : s + DIGEST_SIZE] for s in range(0, len(block), width)]
            present = _screen_batch(bloom, digests)
            answers.write(bytes(present))
            candidates.add(itertools.compress(digests, present))
    return candidates


def _screen_batch(bloom: BloomFilter, digests: list[bytes]) -> list[bool]:
    """The filter's answer for each digest in order: "present", or "new" (and then it is inserted)."""
    if _numpy_screen_batch is not None:
        return _numpy_screen_batch(bloom.bits, bloom.m, bloom.k, digests)
    answers = []
    for digest in digests:
        present = bloom.contains(digest)
        if not present:
            bloom.insert(digest)
        answers.append(present)
    return answers


@dataclass
class Marked:
    """What the confirm pass decided: the marks, in sorted runs on disk, and the counts for the stats."""

    mark_runs: list[Path] = field(default_factory=list)
    candidates: int = 0
    false_positives: int = 0
    duplicate_paragraphs: int = 0


def confirm(spool: Spool, candidates: CandidateBits) -> Marked:
    """Pass 3: sort the candidates' occurrences on disk, merge them, and walk the runs of equal digests.

    The occurrences whose digest has its bit set (every occurrence of every candidate, the first
    ones included, and a few others) are written in sorted runs and merged, so that equal digests
    meet in input order (i, then j). A run of one is a unique paragraph and stays; if the filter
    flagged it, it was a false positive. A longer run is a confirmed repeat: its first occurrence
    stays and every later one is marked. The marks stream into sorted runs of their own.
    """
    suspects = SortedRuns(spool)
    for block, answers in spool.screened_blocks(BLOCK_RECORDS):
        suspects.extend(candidates.suspects(block, answers))
    spool.forget_screened()
    marks = SortedRuns(spool)
    marked = Marked()
    with spool.merged(suspects.flush(), SCREENED_SIZE) as occurrences:
        for _, run in itertools.groupby(occurrences, key=_DIGEST_OF):
            first, repeats = _first_and_count_rest(run, marks)
            if repeats:
                marked.candidates += 1
                marked.duplicate_paragraphs += repeats
            elif first[-1:] == PRESENT:
                marked.candidates += 1  # a unique paragraph the filter mistook for a repeat
                marked.false_positives += 1
    marked.mark_runs = marks.flush()
    return marked


def _first_and_count_rest(run: Iterator[bytes], marks: SortedRuns) -> tuple[bytes, int]:
    """A run's first occurrence; every later one is marked. Returns (first, how many were marked)."""
    first = next(run)
    repeats = 0
    for later in run:
        marks.add(_MARK_OF(later))
        repeats += 1
    return first, repeats


def emit(spool: Spool, mark_runs: list[Path], tally: dict[str, Any]) -> Iterator[Doc]:
    """Pass 4: yield each document without its marked paragraphs; untouched ones exactly as they came.

    The marks arrive merged in (i, j) order, so document i takes the marks at the head of the stream.
    """
    with spool.merged(mark_runs, MARK.size) as marks:
        upcoming = _next_mark(marks)
        for i, doc in enumerate(spool.documents()):
            if upcoming[0] != i:
                tally["docs_out"] += 1
                yield doc
                continue
            gone: set[int] = set()
            while upcoming[0] == i:
                gone.add(upcoming[1])
                upcoming = _next_mark(marks)
            kept = [p for j, p in enumerate(paragraphs(doc.text)) if j not in gone]
            if not kept:
                tally["docs_dropped"] += 1
                continue
            tally["docs_out"] += 1
            yield Doc(doc.id, "\n\n".join(kept), doc.meta)


def _next_mark(marks: Iterator[bytes]) -> tuple[int, int]:
    """The next mark as (i, j); (-1, -1) once the marks are used up (no document has index -1)."""
    record = next(marks, None)
    if record is None:
        return -1, -1
    i, j = MARK.unpack(record)
    return i, j
