"""The stage under test against the set oracle: correctness must not depend on the filter's size."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings

from dedup_harness.core.corpora import suite_corpus
from dedup_harness.core.hidden_cases import Cases
from dedup_harness.core.strategies import corpora

from .conftest import Judge
from .support import docs_from


def test_zero_false_drops_with_a_tiny_filter(judge: Judge, cases: Cases) -> None:
    """At a quarter byte per paragraph the filter errs often (over 50 times here), and still no unique
    paragraph is lost; the candidates are the repeated paragraphs plus the false positives."""
    judge(docs=docs_from(suite_corpus("200 documents, 20% repeats", cases.seed)), bloom_bytes_per_item=0.25)


# From a filter that errs on most paragraphs to one that almost never does.
FILTER_SIZES = (0.1, 1, 10)


@settings(max_examples=40)
@given(records=corpora())
def test_random_corpora_match_the_set_oracle(judge: Judge, cases: Cases, records: list[dict[str, Any]]) -> None:
    """Whatever the corpus and the filter size, the output is the oracle's. Each corpus meets every filter
    size: Hypothesis draws (and, on a failure, shrinks) it once, and the oracle answers once."""
    judge(docs=docs_from(records), bloom_bytes_per_item=FILTER_SIZES)
