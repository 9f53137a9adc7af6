"""The chapter: the stage spools to disk, not to memory; memory holds the filter, the candidates and
their occurrences, never the documents."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from corpus.doc import Doc
from dedup_harness.core.case_log import record
from dedup_harness.core.memory_probe import MemoryProbe
from dedup_harness.core.removal import allocated_bytes

# A long paragraph (about 16 KiB): a few documents of these make megabytes while the filter, the
# candidates and their occurrences stay tiny, so what grows with the corpus is the documents alone.
BLOCK = "A long paragraph of plain words that says the same thing again and again to fill space. " * 185
SMALL, LARGE = 48, 96  # documents in the two corpora (about 1.6 and 3.1 MB)


class SpooledRun(NamedTuple):
    corpus_bytes: int  # the UTF-8 size of every document's text
    spool_bytes: int  # what lay under spool_dir once the first document came out
    peak: int | None  # the stage's peak memory growth, as the probe measured it
    documents_out: int


def big_documents(count: int, sizes: list[int]) -> Iterator[Doc]:
    """``count`` documents of two long paragraphs each, made one at a time (this test holds none of them)."""
    for i in range(count):
        doc = Doc(f"big{i}", f"{i}a {BLOCK}\n\n{i}b {BLOCK}", {"n": i})
        sizes.append(len(doc.text.encode("utf-8")))
        yield doc


def folder_bytes(folder: Path) -> int:
    """The disk under ``folder``: allocated blocks, so a sparse file the size of the corpus is no copy of it."""
    return allocated_bytes(folder)


def spooled_run(impl: Any, probe: Callable[[], MemoryProbe], folder: Path, count: int) -> SpooledRun:
    folder.mkdir()
    sizes: list[int] = []
    with probe() as measured:
        stage = impl.exact_dedup(big_documents(count, sizes), 10, spool_dir=folder)
        next(stage)  # every pass before the emit is done: the whole input is in the spool
        on_disk = folder_bytes(folder)
        out = 1 + sum(1 for _ in stage)  # one at a time, as a pipeline reads it
    return SpooledRun(sum(sizes), on_disk, measured.peak, out)


def test_the_documents_are_spooled_not_held(impl: Any, memory_probe: Callable[[], MemoryProbe], tmp_path: Path) -> None:
    """While it runs, the spool holds a full copy of the documents, and memory does not grow with them.

    Two corpora, one twice the other: what a stage needs whatever the corpus (buffers, a batch in
    flight) is the same in both, so the difference in peak memory is what it holds per document.
    """
    record(corpora=f"{SMALL} and then {LARGE} documents, each of two unique paragraphs of {len(BLOCK):,} characters")
    small = spooled_run(impl, memory_probe, tmp_path / "small", SMALL)
    large = spooled_run(impl, memory_probe, tmp_path / "large", LARGE)
    assert (small.documents_out, large.documents_out) == (SMALL, LARGE), "every document is unique and must come out"
    for run in (small, large):
        assert run.spool_bytes >= run.corpus_bytes, (
            f"while the stage ran, spool_dir held {run.spool_bytes:,} bytes for {run.corpus_bytes:,} bytes of "
            "documents: the spool should hold a full copy of them"
        )
    assert small.peak is not None and large.peak is not None, "the stage's memory could not be measured"
    grown, more = large.peak - small.peak, large.corpus_bytes - small.corpus_bytes
    assert grown <= more / 4, (
        f"for {more:,} more bytes of documents the stage's peak memory grew by {grown:,} bytes: it holds the "
        "documents in memory instead of reading them back from its spool"
    )
