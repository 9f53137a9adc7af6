"""The checks of the suite (docs/checks.md): one registry of their names, numbers, kinds, what each asserts, why
it matters downstream, which judge decides it, and why the course added it where the chapter has no such test.

A check is one test function of ``tests/suite``. The kill matrix, the mutant catalogue, the grader's
scores and feedback, ``dedup-harness tests`` (the chapter's catalogue) and every report refer to
checks by these names, in this order; nothing else lists them. Each check is decided by one judge
(``core/judges``), which its test calls on the check's own inputs and the grader's shrinker calls on
smaller ones.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    number: int  # its place in the suite's order (docs/checks.md), from 1
    name: str  # the test function's name
    asserts: str  # what it asserts, in words for a student reading a report
    judged_as: str  # the name of its judge in core.judges.JUDGES
    kind: str  # the chapter's kinds: unit, conformance, property, boundary, regression, resource
    why: str  # why it matters downstream, for a student reading the catalogue before writing code
    added: str = ""  # why the course added it to the chapter's tests ("": one of the chapter's own)

    @property
    def shrinks(self) -> bool:
        """Can a failing input of this check be made smaller and still tell something? (Not the memory
        check's: its two corpora are the measurement.)"""
        return self.judged_as != "memory"


KINDS = ("unit", "conformance", "property", "boundary", "regression", "resource")


def _registry(*entries: tuple[str, ...]) -> tuple[Check, ...]:
    return tuple(Check(n, *entry) for n, entry in enumerate(entries, start=1))


REGISTRY: tuple[Check, ...] = _registry(
    (
        "test_hand_example_three_documents",
        "the chapter's worked example: A unchanged, B becomes 'A bird sang.', C dropped, every stat as in the chapter; "
        "paragraph_hash is SHA-256 of the UTF-8 text on any text, and refuses a lone surrogate with a ValueError",
        "hand",
        "unit",
        "the worked example fixes what 'first occurrence' means and what each stat counts: whatever reads the "
        "stats, or expects the earliest copy of a paragraph to be the one kept, relies on exactly these answers",
    ),
    (
        "test_fixture_duplicate_counts",
        "on the 200-document fixture: the paragraph, repeat and dropped counts and the exact text of every kept "
        "document",
        "output",
        "conformance",
        "the counts a data team reports for a deduplicated corpus are these counts, and a kept text that differs "
        "by one character is a document changed on its way into a training set",
    ),
    (
        "test_zero_false_drops_with_a_tiny_filter",
        "with a tiny, error-prone filter (B=0.25) no unique paragraph is lost; candidates = repeated paragraphs + "
        "false positives, exactly as many as the course's filter makes (a filter of one's own: some, where dozens "
        "are expected)",
        "tiny filter",
        "property",
        "a Bloom filter errs by design: a stage that trusts its positives deletes unique paragraphs, a loss "
        "nobody downstream can see or undo",
    ),
    (
        "test_random_corpora_match_the_set_oracle",
        "on random corpora at B = 0.1, 1 and 10 the output and counts equal the set oracle's",
        "output",
        "property",
        "correctness must not hang on the filter's size or on a lucky input: the corpus downstream is whatever "
        "mix the crawl produced",
    ),
    (
        "test_paragraph_split_rules",
        "paragraphs(text) splits on blank lines (empty or spaces and tabs only, \\n or \\r\\n), strips the pieces "
        "and skips empty ones",
        "split",
        "unit",
        "the split decides what a paragraph is: one that misses blank lines holding spaces, or \\r\\n breaks, "
        "merges paragraphs, and the repeats inside them are never found",
    ),
    (
        "test_a_repeat_inside_one_document_is_removed",
        "a paragraph repeated inside one document is removed, and the document stays",
        "output",
        "boundary",
        "boilerplate repeated within one page (a footer, a menu) is the commonest repeat on the web; removing "
        "only repeats across documents leaves it in the data",
    ),
    (
        "test_untouched_documents_keep_their_exact_text",
        "a document that loses nothing comes back exactly as it was: text, line breaks, spaces and meta",
        "documents",
        "unit",
        "later stages (tokenizers, other filters, provenance digests) must see a document that lost nothing "
        "exactly as it came in, text and meta",
    ),
    (
        "test_bloom_is_sized_from_bytes_per_item",
        "bloom_rate(B) = exp(-8B (ln 2)**2) and the filter holds about 8BN bits for N paragraphs; bad B is a "
        "ValueError",
        "sizing",
        "unit",
        "B is the stage's memory knob: it must buy the rate the chapter promises, or the filter either wastes "
        "memory or sends more paragraphs to the confirm pass than it should",
    ),
    (
        "test_false_positives_stay_within_the_budget",
        "the filter's false positives stay within what its sizing promises: the count a filter sized by the rule "
        "meets as it fills, give or take four standard deviations",
        "budget",
        "regression",
        "a filter whose index reaches few of its bits (datatrove's `& m_bytes`) stays correct on small tests "
        "while it sends most unique paragraphs to the confirm pass at scale",
        "the sizing check holds the arithmetic, never which bits a filter reaches: an index that reaches few of "
        "them passes every test the chapter lists",
    ),
    (
        "test_stats_name_every_key",
        "every STATS_KEYS entry is filled with a whole number once the output is exhausted, also for empty input",
        "stats",
        "unit",
        "the stats are how a pipeline reports what a stage did: a key missing, or filled only when documents "
        "came, breaks what reads them, an empty shard included",
    ),
    (
        "test_the_spool_is_removed",
        "nothing is left under spool_dir, nor anywhere else the stage could write, after a full read, an early "
        "close() or an exception from the input",
        "spool",
        "unit",
        "a spool left behind fills the disk of a long run one shard at a time, and a consumer that stops reading "
        "early (close()) must not leave one either",
    ),
    (
        "test_exact_dedup_is_a_stage",
        "exact_dedup composes like any stage; a partial document's paragraphs are joined by a blank line",
        "stage",
        "unit",
        "a stage is useful only if it composes: with compose, with partial, with itself; a partial document must "
        "keep the blank line the next stage splits on",
    ),
    (
        "test_paragraph_identity_is_the_exact_text",
        "two paragraphs are one only when their stripped texts are equal code point for code point: a near copy "
        "(one character changed, added or removed, case or inner spacing changed) stays; an exact copy goes",
        "documents",
        "property",
        "near copies are not copies: merging paragraphs that differ by case, spacing or one character deletes "
        "real content; this stage promises exact identity",
        "the chapter promises exact identity but puts no near copy to a stage: one that hashes a normalized "
        "paragraph passes all its tests",
    ),
    (
        "test_the_documents_are_spooled_not_held",
        "while the stage runs, the spool under spool_dir holds a full copy of the documents, and the stage's memory "
        "does not grow with them (memory holds the filter, the candidates and their occurrences, never the documents)",
        "memory",
        "resource",
        "the stage must run on corpora far larger than memory: holding the documents works on a sample and fails "
        "on the real corpus",
        "the chapter keeps the documents on disk, not in memory, but none of its tests measures memory: this "
        "check makes that promise one a stage can fail",
    ),
)

CHECKS: tuple[str, ...] = tuple(check.name for check in REGISTRY)
BY_NAME: dict[str, Check] = {check.name: check for check in REGISTRY}
