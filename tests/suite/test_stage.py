"""The stage's contract with the pipeline: its stats, its spool, and how it composes."""

from __future__ import annotations

import pytest

from corpus.doc import Doc
from dedup_harness.core.judges.spool import ENDINGS

from .conftest import Judge

DOCS = [Doc("a", "One.\n\nTwo.\n\nThree."), Doc("b", "Zero.\n\nTwo.\n\nFour."), Doc("c", "Three.")]


@pytest.mark.parametrize("docs", [[], DOCS], ids=["empty input", "three documents"])
def test_stats_name_every_key(judge: Judge, docs: list[Doc]) -> None:
    """Once the output is exhausted every stat is there as a whole number, even when no document came in;
    an empty input still sizes the filter for one paragraph, and B defaults to 10."""
    judge(docs=docs, bloom_bytes_per_item=10)


@pytest.mark.parametrize("ending", ENDINGS)
def test_the_spool_is_removed(judge: Judge, ending: str) -> None:
    """Nothing is left under spool_dir however the stage ends; while it runs, its spool lives there."""
    judge(docs=DOCS, ending=ending)


def test_exact_dedup_is_a_stage(judge: Judge) -> None:
    """It composes like any stage, options bound with partial: b comes out as 'Zero.\\n\\nFour.' (its
    paragraphs joined by a blank line), c is dropped; it returns an iterator; a second run removes nothing."""
    judge(docs=DOCS, bloom_bytes_per_item=1)
