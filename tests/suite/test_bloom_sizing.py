"""The filter's memory knob: B bytes per paragraph, and the false positives it buys."""

from __future__ import annotations

import math

import pytest

from corpus.doc import Doc
from dedup_harness.core.corpora import suite_corpus

from .conftest import Judge
from .support import docs_from

# The chapter's three sizes: p = 2.0e-17, 0.021 and 0.38 (tests/harness/test_bloom_sizing_rules.py
# holds core.bloom_sizing to those values).
CHAPTER_SIZES = (10, 1, 0.25)
BAD_SIZES = (0, -1, math.nan, math.inf)


@pytest.mark.parametrize("bloom_bytes_per_item", CHAPTER_SIZES)
def test_bloom_is_sized_from_bytes_per_item(judge: Judge, fixture_docs: list[Doc], bloom_bytes_per_item: float) -> None:
    """p = exp(-8B (ln 2)**2), the filter holds about 8BN bits for N paragraphs, and a bad B is refused."""
    judge(bloom_bytes_per_item=bloom_bytes_per_item, docs=fixture_docs)
    for bad in BAD_SIZES:
        judge(bloom_bytes_per_item=bad)


@pytest.mark.parametrize(("corpus", "bloom_bytes_per_item"), [("20k unique", 1), ("20k unique", 0.5), ("fixture", 10)])
def test_false_positives_stay_within_the_budget(
    judge: Judge, fixture_docs: list[Doc], corpus: str, bloom_bytes_per_item: float
) -> None:
    """The filter errs no more often than its sizing promises (with four standard deviations of slack):
    on the fixture at B = 10, not once."""
    docs = fixture_docs if corpus == "fixture" else docs_from(suite_corpus("20k unique paragraphs"))
    judge(docs=docs, bloom_bytes_per_item=bloom_bytes_per_item)
