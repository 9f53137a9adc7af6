"""The filter's memory knob: B bytes per paragraph, and the false positives it buys."""

from __future__ import annotations

import math
from typing import Any

import pytest

from corpus.doc import Doc
from dedup_harness.core.case_log import record
from dedup_harness.core.corpora import suite_corpus

from .support import Run, docs_from

LN2_SQUARED = math.log(2) ** 2


@pytest.mark.parametrize(("bloom_bytes_per_item", "chapter_value"), [(10, 2.0e-17), (1, 0.021), (0.25, 0.38)])
def test_bloom_is_sized_from_bytes_per_item(
    impl: Any,
    run: Run,
    fixture_docs: list[Doc],
    fixture_expected: dict[str, Any],
    bloom_bytes_per_item: float,
    chapter_value: float,
) -> None:
    """p = exp(-8B (ln 2)**2), and the filter holds about 8BN bits for N paragraphs."""
    record(bloom_bytes_per_item=bloom_bytes_per_item)
    rate = impl.bloom_rate(bloom_bytes_per_item)
    assert rate == pytest.approx(math.exp(-8 * bloom_bytes_per_item * LN2_SQUARED), rel=1e-9), (
        f"bloom_rate({bloom_bytes_per_item}) should be exp(-8B (ln 2)**2) = {chapter_value:.2g}, got {rate!r}"
    )
    assert rate == pytest.approx(chapter_value, rel=0.03), (
        f"bloom_rate({bloom_bytes_per_item}) should be about {chapter_value:.2g}, got {rate!r}"
    )
    paragraphs = fixture_expected["counts"]["paragraphs"]
    record(docs=fixture_docs, bloom_bytes_per_item=bloom_bytes_per_item)
    _, stats = run(fixture_docs, bloom_bytes_per_item)
    want = 8 * bloom_bytes_per_item * paragraphs
    assert abs(stats["bloom_bits"] - want) <= 1, (
        f"for {paragraphs} paragraphs at B={bloom_bytes_per_item} the filter should have about 8BN = {want:g} bits, "
        f"got {stats['bloom_bits']}"
    )
    for bad in (0, -1, math.nan, math.inf):
        record(bloom_bytes_per_item=bad)
        with pytest.raises(ValueError):  # pytest's own message names the missing ValueError
            list(impl.exact_dedup([], bad))


@pytest.mark.parametrize(("corpus", "bloom_bytes_per_item"), [("20k unique", 1), ("20k unique", 0.5), ("fixture", 10)])
def test_false_positives_stay_within_the_budget(
    impl: Any, run: Run, fixture_docs: list[Doc], corpus: str, bloom_bytes_per_item: float
) -> None:
    """The filter errs no more often than its sizing promises (with four standard deviations of slack)."""
    docs = fixture_docs if corpus == "fixture" else docs_from(suite_corpus("20k unique paragraphs"))
    record(docs=docs, bloom_bytes_per_item=bloom_bytes_per_item)
    _, stats = run(docs, bloom_bytes_per_item)
    n, p = stats["paragraphs"], impl.bloom_rate(bloom_bytes_per_item)
    # Each unique paragraph is asked once, while the filter fills; at full load it errs with
    # probability about p, so n * p bounds the expected count from above.
    budget = n * p + 4 * math.sqrt(n * p * (1 - p))
    assert stats["false_positives"] <= budget, (
        f"{stats['false_positives']} false positives among {n} paragraphs at B={bloom_bytes_per_item}; "
        f"the sizing promises at most about {budget:.0f}"
    )
    if corpus == "fixture":
        assert stats["false_positives"] == 0, (
            f"at B=10 the fixture should see no false positive at all, got {stats['false_positives']}"
        )
