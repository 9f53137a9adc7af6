"""The checks of the suite (docs/checks.md): one registry of their names, numbers, what each asserts and which judge
decides it.

A check is one test function of ``tests/suite``. The kill matrix, the mutant catalogue, the grader's
scores and feedback, and every report refer to checks by these names, in this order; nothing else
lists them. Each check is decided by one judge (``core/judges``), which its test calls on the check's
own inputs and the grader's shrinker calls on smaller ones.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    number: int  # its place in the suite's order (docs/checks.md), from 1
    name: str  # the test function's name
    asserts: str  # what it asserts, in words for a student reading a report
    judged_as: str  # the name of its judge in core.judges.JUDGES

    @property
    def shrinks(self) -> bool:
        """Can a failing input of this check be made smaller and still tell something? (Not the memory
        check's: its two corpora are the measurement.)"""
        return self.judged_as != "memory"


def _registry(*entries: tuple[str, str, str]) -> tuple[Check, ...]:
    return tuple(Check(n, name, asserts, kind) for n, (name, asserts, kind) in enumerate(entries, start=1))


REGISTRY: tuple[Check, ...] = _registry(
    (
        "test_hand_example_three_documents",
        "the chapter's worked example: A unchanged, B becomes 'A bird sang.', C dropped, every stat as in the chapter",
        "hand",
    ),
    (
        "test_fixture_duplicate_counts",
        "on the 200-document fixture: the paragraph, repeat and dropped counts and the exact text of every kept "
        "document",
        "output",
    ),
    (
        "test_zero_false_drops_with_a_tiny_filter",
        "with a tiny, error-prone filter (B=0.25) no unique paragraph is lost; candidates = repeated paragraphs + "
        "false positives",
        "tiny filter",
    ),
    (
        "test_random_corpora_match_the_set_oracle",
        "on random corpora at B = 0.1, 1 and 10 the output and counts equal the set oracle's",
        "output",
    ),
    (
        "test_paragraph_split_rules",
        "paragraphs split on blank lines (empty or spaces and tabs only, \\n or \\r\\n), pieces stripped, empty "
        "pieces skipped",
        "split",
    ),
    (
        "test_a_repeat_inside_one_document_is_removed",
        "a paragraph repeated inside one document is removed, and the document stays",
        "output",
    ),
    (
        "test_untouched_documents_keep_their_exact_text",
        "a document that loses nothing comes back exactly as it was: text, line breaks, spaces and meta",
        "documents",
    ),
    (
        "test_bloom_is_sized_from_bytes_per_item",
        "bloom_rate(B) = exp(-8B (ln 2)**2) and the filter holds about 8BN bits for N paragraphs; bad B is a "
        "ValueError",
        "sizing",
    ),
    (
        "test_false_positives_stay_within_the_budget",
        "the filter's false positives stay within what its sizing promises",
        "budget",
    ),
    (
        "test_stats_name_every_key",
        "every STATS_KEYS entry is filled with a whole number once the output is exhausted, also for empty input",
        "stats",
    ),
    (
        "test_the_spool_is_removed",
        "nothing is left under spool_dir, nor anywhere else the stage could write, after a full read, an early "
        "close() or an exception from the input",
        "spool",
    ),
    (
        "test_exact_dedup_is_a_stage",
        "exact_dedup composes like any stage; a partial document's paragraphs are joined by a blank line",
        "stage",
    ),
    (
        "test_paragraph_identity_is_the_exact_text",
        "two paragraphs are one only when their stripped texts are equal code point for code point: a near copy "
        "(one character changed, added or removed, case or inner spacing changed) stays; an exact copy goes",
        "documents",
    ),
    (
        "test_the_documents_are_spooled_not_held",
        "while the stage runs, the spool under spool_dir holds a full copy of the documents, and the stage's memory "
        "does not grow with them (memory holds the filter, the candidates and their occurrences, never the documents)",
        "memory",
    ),
)

CHECKS: tuple[str, ...] = tuple(check.name for check in REGISTRY)
BY_NAME: dict[str, Check] = {check.name: check for check in REGISTRY}
