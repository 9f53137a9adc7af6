"""The chapter's worked example and the 200-document fixture."""

from __future__ import annotations

import hashlib
from typing import Any

from corpus.doc import Doc
from dedup_harness.core import worked_example
from dedup_harness.core.case_log import record

from .support import Run

HAND = [Doc(doc_id, text) for doc_id, text in worked_example.DOCUMENTS]
HAND_STATS = worked_example.STATS


def test_hand_example_three_documents(impl: Any, run: Run) -> None:
    """Section 3 by hand: A comes out unchanged, B keeps only its bird, C is dropped."""
    record(docs=HAND, bloom_bytes_per_item=worked_example.BLOOM_BYTES_PER_ITEM)
    prefixes = [impl.paragraph_hash(p).hex()[:8] for p in worked_example.DIGEST_PREFIXES]
    expected = list(worked_example.DIGEST_PREFIXES.values())
    assert prefixes == expected, (
        f"the digests of the three paragraphs should begin {', '.join(expected)} (SHA-256 of the UTF-8 text); "
        f"paragraph_hash gave {', '.join(prefixes)}"
    )
    out, stats = run(HAND, worked_example.BLOOM_BYTES_PER_ITEM)
    assert out == [Doc(doc_id, text) for doc_id, text in worked_example.KEPT], (
        "expected A unchanged, B as 'A bird sang.' and C dropped (the first occurrence of each paragraph stays, "
        f"later ones go); got {out!r}"
    )
    got = {key: stats.get(key) for key in HAND_STATS}
    wrong = {key: (HAND_STATS[key], got[key]) for key in HAND_STATS if got[key] != HAND_STATS[key]}
    assert not wrong, "stats that differ from the worked example (expected, got): " + ", ".join(
        f"{key} {want!r}, {have!r}" for key, (want, have) in wrong.items()
    )


def test_fixture_duplicate_counts(run: Run, fixture_docs: list[Doc], fixture_expected: dict[str, Any]) -> None:
    """On the 200-document fixture, the counts and every kept text match what the generator planted."""
    record(docs=fixture_docs, bloom_bytes_per_item=fixture_expected["bloom_bytes_per_item"])
    out, stats = run(fixture_docs, fixture_expected["bloom_bytes_per_item"])
    want = fixture_expected["counts"]
    got = {key: stats.get(key) for key in want}
    assert got == want, "counts that differ from the fixture's (expected, got): " + ", ".join(
        f"{key} {want[key]!r}, {got[key]!r}" for key in want if got[key] != want[key]
    )
    kept = {d.id: hashlib.sha256(d.text.encode("utf-8")).hexdigest() for d in out}
    planted = list(fixture_expected["kept_sha256"])
    missing, unexpected = [i for i in planted if i not in kept], [i for i in kept if i not in planted]
    assert list(kept) == planted, f"expected {len(planted)} documents kept, in input order; got {len(kept)}" + (
        f": missing {missing[:5]}, unexpected {unexpected[:5]}" if missing or unexpected else ", in another order"
    )
    wrong = [doc_id for doc_id, digest in fixture_expected["kept_sha256"].items() if kept[doc_id] != digest]
    assert not wrong, f"{len(wrong)} kept documents have another text than expected, e.g. {wrong[:3]}"
