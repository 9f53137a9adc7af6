"""The names of the contract every implementation keeps: its module's surface and its stats.

The checks, the worked example and the reports take them from here; the grading worker, which runs
where the harness cannot be imported, keeps its own copy of the surface (``grade/worker/protocol.py``),
and a test holds the two together.
"""

from __future__ import annotations

# What ``corpus.dedup`` must define.
SURFACE = ("STATS_KEYS", "paragraphs", "paragraph_hash", "bloom_rate", "exact_dedup")
# The stats ``exact_dedup`` fills once its output is exhausted, in this order.
STATS_KEYS = (
    "docs_in",
    "paragraphs",
    "bloom_bits",
    "candidates",
    "false_positives",
    "duplicate_paragraphs",
    "docs_dropped",
    "docs_out",
)
