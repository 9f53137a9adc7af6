"""The filter's memory knob: B bytes per paragraph, and the false positives it buys."""

from __future__ import annotations

import math

import pytest

from corpus.doc import Doc
from dedup_harness.core.corpora import BUDGET_CASES, UNIQUE_PER_DOC, suite_corpus
from dedup_harness.core.hidden_cases import Cases

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
    judge: Judge, fixture_docs: list[Doc], cases: Cases, corpus: int | str, bloom_bytes_per_item: float
) -> None:
    """The filter errs as often as its sizing promises (the count it meets while it fills, give or take four
    standard deviations), on the first N paragraphs of a seeded unique corpus; on the fixture at B = 10,
    not once. (The fixture is public: its held-back run is the 200 documents of the tiny-filter check's
    corpus, drawn from the course's seed.)"""
    if isinstance(corpus, int):
        docs = docs_from(suite_corpus("unique paragraphs", cases.seed))[: corpus // UNIQUE_PER_DOC]
    elif cases.held_back:
        docs = docs_from(suite_corpus("200 documents, 20% repeats", cases.seed))
    else:
        docs = fixture_docs
    judge(docs=docs, bloom_bytes_per_item=bloom_bytes_per_item)
