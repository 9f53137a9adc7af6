"""The judges take what they expect from trusted sources only: the oracle, the sizing rules, the course's filter.

Each check is decided by one judge (``core/judges``); these tests hold the trusted side to the
chapter's numbers, and show that what an implementation says about itself (its stats, its
``bloom_rate``, a sparse spool) cannot buy it a pass.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core import bloom_sizing, reference, worked_example
from dedup_harness.core.corpora import suite_corpus
from dedup_harness.core.judges import JUDGES, Subject
from dedup_harness.core.judges.expected import Expected
from dedup_harness.core.removal import allocated_bytes

REFERENCE = reference.reference_stage()
Doc = REFERENCE.Doc


def docs_of(records: list[dict[str, Any]]) -> list[Any]:
    return [Doc(r["id"], r["text"], r["meta"]) for r in records]


class TestTheTrustedSide:
    def test_the_worked_example_is_what_the_trusted_side_expects(self) -> None:
        docs = [Doc(doc_id, text) for doc_id, text in worked_example.DOCUMENTS]
        expected = Expected(docs, worked_example.BLOOM_BYTES_PER_ITEM)
        assert expected.every_stat() == worked_example.STATS
        assert [(d.id, d.text) for d in expected.output] == list(worked_example.KEPT)

    @pytest.mark.parametrize(("b", "chapter"), [(10, 2.0e-17), (1, 0.021), (0.25, 0.38)])
    def test_the_rate_is_the_chapters(self, b: float, chapter: float) -> None:
        assert bloom_sizing.rate(b) == pytest.approx(chapter, rel=0.03)

    @pytest.mark.parametrize("n", [0, 1, 5, 620, 20_000])
    @pytest.mark.parametrize("b", [0.1, 0.25, 1, 10])
    def test_the_trusted_sizing_agrees_with_the_course_filter(self, n: int, b: float) -> None:
        """Two homes of one rule: the course's filter (students get it) and the trusted side (checks use it)."""
        course = REFERENCE.BloomFilter(n, bloom_sizing.rate(b))
        assert (course.m, course.k) == (bloom_sizing.bits(n, bloom_sizing.rate(b)), bloom_sizing.hashes(course.m, n))

    def test_the_budget_allows_no_false_positive_at_ten_bytes_a_paragraph(self) -> None:
        assert bloom_sizing.budget(1_000_000, bloom_sizing.rate(10)) == 0

    def test_the_tiny_filter_check_meets_over_fifty_false_positives(self) -> None:
        """Its corpus is a real test of the confirm pass: the course's filter at B = 0.25 errs often on it."""
        expected = Expected(docs_of(suite_corpus("200 documents, 20% repeats")), 0.25)
        assert expected.screen["false_positives"] > 50


class Boasting:
    """The reference behind a filter sized for documents (too small), which says it holds far more
    paragraphs and promises a far higher rate than it does: the forged pass a budget computed from the
    implementation's own word would give."""

    STATS_KEYS = REFERENCE.STATS_KEYS
    paragraphs = staticmethod(REFERENCE.paragraphs)
    paragraph_hash = staticmethod(REFERENCE.paragraph_hash)

    def bloom_rate(self, b: float) -> float:
        return 0.99

    def exact_dedup(self, docs: Any, b: float = 10, **options: Any) -> Iterator[Any]:
        docs = list(docs)
        stats = options.pop("stats", None)
        counted: dict[str, Any] = {}
        small = REFERENCE.bloom_rate(b * len(docs) / max(1, sum(len(REFERENCE.paragraphs(d.text)) for d in docs)))
        yield from REFERENCE._run(docs, small, options.get("spool_dir"), counted)
        if stats is not None:
            stats.update(counted, paragraphs=10**9)


def test_a_budget_is_never_computed_from_the_implementations_own_stats_or_rate(tmp_path: Path) -> None:
    docs = docs_of(suite_corpus("20k unique paragraphs"))
    verdict = JUDGES["budget"](Subject(Boasting(), tmp_path), {"docs": docs, "bloom_bytes_per_item": 1})
    assert verdict.failing and "the sizing promises at most" in verdict.message()


class SparseSpool:
    """The reference, but what it leaves in spool_dir while it runs is a sparse file of the corpus's size."""

    STATS_KEYS = REFERENCE.STATS_KEYS

    def exact_dedup(self, docs: Any, b: float = 10, *, spool_dir: Path, **options: Any) -> Iterator[Any]:
        held = list(docs)
        with open(Path(spool_dir) / "spool", "wb") as sparse:
            sparse.truncate(sum(len(d.text.encode()) for d in held) + 1)
        try:
            yield from held
        finally:
            os.unlink(Path(spool_dir) / "spool")


def test_a_sparse_file_is_no_spool(tmp_path: Path) -> None:
    verdict = JUDGES["memory"](Subject(SparseSpool(), tmp_path), {"corpora": (4, 8)})
    assert verdict.failing and "the spool should hold a full copy" in verdict.message()


def test_allocated_bytes_count_blocks_not_lengths(tmp_path: Path) -> None:
    (tmp_path / "sparse").write_bytes(b"")
    os.truncate(tmp_path / "sparse", 1 << 24)
    (tmp_path / "inner").mkdir()
    (tmp_path / "inner" / "full").write_bytes(b"x" * 100_000)
    assert 100_000 <= allocated_bytes(tmp_path) < 1 << 20


def test_a_judges_message_names_the_first_differences_and_counts_the_rest(tmp_path: Path) -> None:
    docs = [Doc(f"d{i}", "Same.") for i in range(9)]

    class KeepsAll:
        STATS_KEYS = REFERENCE.STATS_KEYS

        def exact_dedup(self, docs: Any, b: float = 10, **options: Any) -> Iterator[Any]:
            return iter(list(docs))

    message = JUDGES["documents"](Subject(KeepsAll(), tmp_path), {"docs": docs}).message()
    assert message.count("expected to be dropped") == 5 and message.endswith("; and 3 more")


class Scripted:
    """A memory gauge whose peaks are read off a script, one per block: the noise a real gauge shows."""

    def __init__(self, peaks: Iterator[int]) -> None:
        self.peaks = peaks
        self.figures: dict[str, int] = {}

    def __enter__(self) -> Scripted:
        return self

    def mark(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        self.figures = {"peak": next(self.peaks)}


@pytest.mark.parametrize(
    ("peaks", "blocks", "fails"),
    [
        ([0, 500_000, 0, 10_000], 4, False),  # noise over the allowance once, then under it: a pass
        ([0, 500_000] * 3, 6, True),  # over it in all three measurements: a fail
        ([0, 0], 2, False),  # under it at once: one measurement
    ],
)
def test_the_memory_check_fails_only_on_growth_that_repeats(
    tmp_path: Path, peaks: list[int], blocks: int, fails: bool
) -> None:
    """A correct stage's growth wanders by a few hundred KB; a holding one's is over the allowance every time."""
    script = iter(peaks)
    subject = Subject(REFERENCE, tmp_path, lambda: Scripted(script))
    verdict = JUDGES["memory"](subject, {"corpora": (4, 8)})
    assert next(script, None) is None and len(peaks) == blocks
    assert bool(verdict.message()) is fails, verdict.message()
    if fails:
        assert "(the least of 3 measurements)" in verdict.message()
