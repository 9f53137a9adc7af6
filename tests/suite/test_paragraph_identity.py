"""A paragraph's identity is its exact text: near copies both stay, exact copies go."""

from __future__ import annotations

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import oracle
from corpus.doc import Doc
from dedup_harness.core.hidden_cases import Cases
from dedup_harness.core.strategies import near_copies

from .conftest import Judge

# One filter that almost never errs, one that errs on most paragraphs: identity must not depend on it.
FILTER_SIZES = (10, 0.1)
# A paragraph whose first 80 characters, and one whose first 1,000, say nothing about the rest.
EIGHTY = "Terms of use: by reading this page you agree to the terms set out by the site owner"
THOUSAND = ("Chapter one. " * 77)[:1000]


def padded(p: str) -> str:
    """The same paragraph between other blank lines and padding: a split still finds exactly ``p``."""
    return f"\n \n  {p}\t\n\n"


@settings(max_examples=10)
@given(pair=near_copies(), bloom_bytes_per_item=st.sampled_from(FILTER_SIZES), swapped=st.booleans())
@example(pair=("The cat sat.", "the cat sat."), bloom_bytes_per_item=10, swapped=False)  # a lower-cased identity
@example(pair=("The cat  sat.", "The cat sat."), bloom_bytes_per_item=0.1, swapped=True)  # whitespace collapsed
@example(pair=(EIGHTY + " (2019).", EIGHTY + " (2024)."), bloom_bytes_per_item=10, swapped=False)  # 80-char prefix
@example(pair=(THOUSAND + "end.", THOUSAND + "End."), bloom_bytes_per_item=0.1, swapped=True)  # past the 1,000th
@example(pair=("café", "cafe\u0301"), bloom_bytes_per_item=10, swapped=False)  # one Unicode normal form and another
@example(pair=("Tokyo 東京", "Tokyo 東亰"), bloom_bytes_per_item=0.1, swapped=False)  # alike in any narrow codec
@example(pair=("Ā", "Ä\x80"), bloom_bytes_per_item=10, swapped=False)  # one's UTF-8 bytes are the other's Latin-1
def test_paragraph_identity_is_the_exact_text(
    judge: Judge, cases: Cases, pair: tuple[str, str], bloom_bytes_per_item: float, swapped: bool
) -> None:
    """Two paragraphs are one only when their stripped texts are equal code point for code point.

    A paragraph and a near copy of it both stay, whichever comes first (Hypothesis draws the order:
    one stage run per example keeps the check cheap); a third document holding an exact copy of the
    first, padded, is dropped.
    """
    p, q = pair
    assume(q != p and oracle.paragraphs(q) == [q])  # the edit left one paragraph, and a different one
    first, second = (q, p) if swapped else (p, q)
    judge(
        docs=[Doc("first", first), Doc("second", second), Doc("copy", padded(first))],
        bloom_bytes_per_item=bloom_bytes_per_item,
    )
