"""The filter's memory knob: B bytes per paragraph, and the false positives it buys."""

from __future__ import annotations

import math

import pytest

from corpus.doc import Doc
from dedup_harness.core.corpora import BUDGET_CASES, UNIQUE_PER_DOC, suite_corpus

from .conftest import Judge
from .support import docs_from

# The chapter's three sizes: p = 2.0e-17, 0.021 and 0.38 (tests/harness/test_judges.py holds
# core.bloom_sizing to those values).
CHAPTER_SIZES = (10, 1, 0.25)
BAD_SIZES = (0, -1, math.nan, math.inf)


@pytest.mark.parametrize("bloom_bytes_per_item", CHAPTER_SIZES)
def test_bloom_is_sized_from_bytes_per_item(judge: Judge, fixture_docs: list[Doc], bloom_bytes_per_item: float) -> None:
    """p = exp(-8B (ln 2)**2), the filter holds about 8BN bits for N paragraphs, and a bad B is refused."""
    judge(bloom_bytes_per_item=bloom_bytes_per_item, docs=fixture_docs)
    for bad in BAD_SIZES:
        judge(bloom_bytes_per_item=bad)


@pytest.mark.parametrize(("corpus", "bloom_bytes_per_item"), [*BUDGET_CASES, ("fixture", 10)])
def test_false_positives_stay_within_the_budget(
    judge: Judge, fixture_docs: list[Doc], corpus: int | str, bloom_bytes_per_item: float
) -> None:
    """The filter errs as often as its sizing promises (the count it meets while it fills, give or take four
    standard deviations), on the first N paragraphs of a seeded unique corpus; on the fixture at B = 10,
    not once."""
    if isinstance(corpus, int):
        docs = docs_from(suite_corpus("unique paragraphs"))[: corpus // UNIQUE_PER_DOC]
    else:
        docs = fixture_docs
    judge(docs=docs, bloom_bytes_per_item=bloom_bytes_per_item)
