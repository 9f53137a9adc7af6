"""The chapter: the stage spools to disk, not to memory; memory holds the filter, the candidates and
their occurrences, never the documents."""

from __future__ import annotations

from dedup_harness.core.judges.memory import CORPORA

from .conftest import Judge


def test_the_documents_are_spooled_not_held(judge: Judge) -> None:
    """While it runs, the spool holds a full copy of the documents, and memory does not grow with them
    (two corpora, one twice the other: core/judges/memory.py says how it is measured)."""
    judge(corpora=CORPORA)
