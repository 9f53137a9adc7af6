"""The chapter's worked example and the 200-document fixture."""

from __future__ import annotations

import hashlib
from typing import Any

from corpus.doc import Doc

from .support import Run

HAND = [
    Doc("s:0", "The cat sat.\n\nThe dog ran."),
    Doc("s:1", "The dog ran.\n\nA bird sang."),
    Doc("s:2", "The cat sat."),
]
HAND_STATS = {
    "docs_in": 3,
    "paragraphs": 5,
    "bloom_bits": 400,
    "candidates": 2,
    "false_positives": 0,
    "duplicate_paragraphs": 2,
    "docs_dropped": 1,
    "docs_out": 2,
}


def test_hand_example_three_documents(impl: Any, run: Run) -> None:
    """Section 3 by hand: A comes out unchanged, B keeps only its bird, C is dropped."""
    prefixes = [impl.paragraph_hash(p).hex()[:8] for p in ("The cat sat.", "The dog ran.", "A bird sang.")]
    assert prefixes == ["84549cfa", "0ea960d6", "c2c47b92"], "paragraph_hash is not SHA-256 of the UTF-8 text"
    out, stats = run(HAND, 10)
    assert out == [HAND[0], Doc("s:1", "A bird sang.")], (
        "the first occurrence of each paragraph must stay and later ones go: "
        f"expected A unchanged, B as 'A bird sang.', C dropped; got {out!r}"
    )
    assert {key: stats.get(key) for key in HAND_STATS} == HAND_STATS, "the stats differ from the worked example"


def test_fixture_duplicate_counts(run: Run, fixture_docs: list[Doc], fixture_expected: dict[str, Any]) -> None:
    """On the 200-document fixture, the counts and every kept text match what the generator planted."""
    out, stats = run(fixture_docs, fixture_expected["bloom_bytes_per_item"])
    want = fixture_expected["counts"]
    assert {key: stats.get(key) for key in want} == want, "paragraph, repeat or dropped counts are off"
    kept = {d.id: hashlib.sha256(d.text.encode("utf-8")).hexdigest() for d in out}
    assert list(kept) == list(fixture_expected["kept_sha256"]), "the kept documents differ (or their order does)"
    wrong = [doc_id for doc_id, digest in fixture_expected["kept_sha256"].items() if kept[doc_id] != digest]
    assert not wrong, f"{len(wrong)} kept documents have the wrong text, e.g. {wrong[:3]}"
