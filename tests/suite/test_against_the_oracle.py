"""The stage under test against the set oracle: correctness must not depend on the filter's size."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings

import oracle
from dedup_harness.core.case_log import record
from dedup_harness.core.corpora import suite_corpus
from dedup_harness.core.strategies import corpora

from .support import ORACLE_KEYS, Run, differences, docs_from, oracle_run


def test_zero_false_drops_with_a_tiny_filter(run: Run) -> None:
    """At a quarter byte per paragraph the filter errs often, and still no unique paragraph is lost."""
    docs = docs_from(suite_corpus("200 documents, 20% repeats"))
    record(docs=docs, bloom_bytes_per_item=0.25)
    out, stats = run(docs, 0.25)
    want, _ = oracle_run(docs)
    assert out == want, f"the output differs from the set oracle's: {differences(out, want)}"
    assert stats["false_positives"] > 50, (
        f"a filter at B=0.25 should err over 50 times here, got {stats['false_positives']}"
    )
    counts = Counter(p for d in docs for p in oracle.paragraphs(d.text))
    repeated = sum(1 for n in counts.values() if n > 1)
    assert stats["candidates"] == repeated + stats["false_positives"], (
        f"candidates should be the {repeated} repeated paragraphs plus the false positives "
        f"({stats['false_positives']}), got {stats['candidates']}"
    )


# From a filter that errs on most paragraphs to one that almost never does.
FILTER_SIZES = (0.1, 1, 10)


@settings(max_examples=40)
@given(records=corpora())
def test_random_corpora_match_the_set_oracle(run: Run, records: list[dict[str, Any]]) -> None:
    """Whatever the corpus and the filter size, the output is the oracle's.

    Each corpus meets every filter size: Hypothesis draws (and, on a failure, shrinks) it once, and the
    oracle answers once.
    """
    want, want_stats = oracle_run(docs_from(records))
    for bloom_bytes_per_item in FILTER_SIZES:
        docs = docs_from(records)  # fresh documents for every run
        record(docs=docs, bloom_bytes_per_item=bloom_bytes_per_item)
        out, stats = run(docs, bloom_bytes_per_item)
        assert out == want, (
            f"at B={bloom_bytes_per_item} the output differs from the set oracle's: {differences(out, want)}"
        )
        got = {key: stats.get(key) for key in ORACLE_KEYS}
        assert got == want_stats, (
            f"at B={bloom_bytes_per_item} stats that differ from the oracle's (expected, got): "
            + (
                ", ".join(
                    f"{key} {want_stats[key]!r}, {got[key]!r}" for key in ORACLE_KEYS if got[key] != want_stats[key]
                )
            )
        )
