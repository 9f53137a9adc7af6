"""The twelve checks of the suite (SPEC 5), by name, in the order the spec lists them.

The kill matrix, the mutant catalogue and the grader all refer to checks by these names.
"""

from __future__ import annotations

CHECKS: tuple[str, ...] = (
    "test_hand_example_three_documents",
    "test_fixture_duplicate_counts",
    "test_zero_false_drops_with_a_tiny_filter",
    "test_random_corpora_match_the_set_oracle",
    "test_paragraph_split_rules",
    "test_a_repeat_inside_one_document_is_removed",
    "test_untouched_documents_keep_their_exact_text",
    "test_bloom_is_sized_from_bytes_per_item",
    "test_false_positives_stay_within_the_budget",
    "test_stats_name_every_key",
    "test_the_spool_is_removed",
    "test_exact_dedup_is_a_stage",
)
