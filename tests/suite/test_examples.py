"""The chapter's worked example and the 200-document fixture."""

from __future__ import annotations

from typing import Any

from corpus.doc import Doc
from dedup_harness.core import worked_example

from .conftest import Judge

HAND = [Doc(doc_id, text) for doc_id, text in worked_example.DOCUMENTS]
# The digest is SHA-256 of the UTF-8 text whatever the text holds: letters of Latin-1 (which a narrower
# codec would encode otherwise), other scripts, emoji and their joiners, combining marks (which no
# normal form may fold), a C1 control ('Ä\x80' is 'Ā' in Latin-1's bytes); and a text UTF-8 cannot
# encode (a lone surrogate, high or low, alone or inside words) is refused with a ValueError.
DIGESTED = [
    "café au lait",
    "Naïve façade, déjà vu: 5 µm ± 1 °C",
    "Ä\x80",
    "Ā",
    "東京タワーの夜景",
    "Привет, мир",
    "שלום עולם",
    "नमस्ते",
    "A smile 🙂, a thumb 👍🏽, a family 👨\u200d👩\u200d👧",
    "cafe\u0301 and noe\u0308l",
]
UNENCODABLE = ["\ud800", "half an emoji: \ud83d", "a lone low one \udcff in words"]


def test_hand_example_three_documents(judge: Judge) -> None:
    """Section 3 by hand: A comes out unchanged, B keeps only its bird, C is dropped; every stat and every
    paragraph's digest as the chapter has them; and the digest of any text is SHA-256 of its UTF-8 bytes."""
    judge(docs=HAND, bloom_bytes_per_item=worked_example.BLOOM_BYTES_PER_ITEM)
    judge(paragraphs=DIGESTED + UNENCODABLE)


def test_fixture_duplicate_counts(judge: Judge, fixture_docs: list[Doc], fixture_expected: dict[str, Any]) -> None:
    """On the 200-document fixture, the counts and every kept text are the ones its generator planted
    (tests/harness/test_fixture.py holds the plan to the oracle's answer)."""
    judge(docs=fixture_docs, bloom_bytes_per_item=fixture_expected["bloom_bytes_per_item"])
