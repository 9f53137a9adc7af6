"""The chapter's worked example (section 3): three documents, what comes out, and every stat.

Plain data, so both the check that asserts it (``tests/suite/test_examples.py``) and the grader's
preflight (``grade/preflight.py``) read it from here.
"""

from __future__ import annotations

DOCUMENTS: tuple[tuple[str, str], ...] = (
    ("s:0", "The cat sat.\n\nThe dog ran."),
    ("s:1", "The dog ran.\n\nA bird sang."),
    ("s:2", "The cat sat."),
)
# A comes out unchanged, B keeps only its bird, C is dropped.
KEPT: tuple[tuple[str, str], ...] = (DOCUMENTS[0], ("s:1", "A bird sang."))
STATS: dict[str, int] = {
    "docs_in": 3,
    "paragraphs": 5,
    "bloom_bits": 400,
    "candidates": 2,
    "false_positives": 0,
    "duplicate_paragraphs": 2,
    "docs_dropped": 1,
    "docs_out": 2,
}
BLOOM_BYTES_PER_ITEM = 10
