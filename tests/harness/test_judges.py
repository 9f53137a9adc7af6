"""The judges take what they expect from trusted sources only: the oracle, the sizing rules, the course's filter.

Each check is decided by one judge (``core/judges``); these tests hold the trusted side to the
chapter's numbers, and show that what an implementation says about itself (its stats, its
``bloom_rate``, a sparse spool) cannot buy it a pass.
"""

from __future__ import annotations

import hashlib
import os
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core import bloom_sizing, reference, worked_example
from dedup_harness.core.corpora import BUDGET_CASES, UNIQUE_PER_DOC, suite_corpus
from dedup_harness.core.judges import JUDGES, Subject
from dedup_harness.core.judges.expected import Expected
from dedup_harness.core.mutant_roots import copy_root
from dedup_harness.core.paths import IMPL_ROOT
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
        assert bloom_sizing.budget(1_000_000, bloom_sizing.rate(10)).most == 0

    def test_the_budget_of_a_filling_filter_is_far_below_the_full_filters_rate(self) -> None:
        """At B = 1 the full filter errs on 2.1% of queries; a paragraph meets it while it fills."""
        promised = bloom_sizing.budget(20_000, bloom_sizing.rate(1))
        assert 80 < promised.mean < 82 and promised.most < 20_000 * bloom_sizing.rate(1) / 3

    def test_only_a_paragraph_that_occurs_once_can_be_a_false_positive(self) -> None:
        """A repeat's later occurrences add no bit and are no false positive: the budget counts what occurs once."""
        rate = bloom_sizing.rate(0.25)
        unique = bloom_sizing.budget(400, rate)
        first_half_repeated = bloom_sizing.budget(400, rate, [False] * 100 + [True] * 100)
        assert 0 < first_half_repeated.mean < unique.mean / 2

    def test_the_budget_allows_as_few_false_positives_as_it_allows_many(self) -> None:
        """Four standard deviations either side: too few is not the sized filter either (a set screen meets none)."""
        promised = bloom_sizing.budget(5_000, bloom_sizing.rate(0.25))
        assert promised.least > 900 and promised.most < 1_200
        assert not promised.allows(0) and promised.allows(round(promised.mean))

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
    docs = docs_of(suite_corpus("unique paragraphs"))
    verdict = JUDGES["budget"](Subject(Boasting(), tmp_path), {"docs": docs, "bloom_bytes_per_item": 1})
    assert verdict.failing and "the sizing allows" in verdict.message()


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


def root_with(tmp_path: Path, name: str, file: str, old: str, new: str) -> Any:
    """The stage of a copy of the reference root with one text of one file replaced."""
    root = copy_root(IMPL_ROOT, tmp_path / name)
    source = root / "corpus" / file
    text = source.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{file} no longer holds {old!r}"
    source.write_text(text.replace(old, new), encoding="utf-8")
    return reference.stage_of(root)


SCREEN = """    for batch in spool.record_batches():
        for digest, _, _ in batch:
            if bloom.contains(digest):  # "maybe seen": a repeat, or a false positive
                candidates.add(digest)
            else:  # "definitely new": remember it
                bloom.insert(digest)"""
SET_SCREEN = """    seen: set[bytes] = set()
    for batch in spool.record_batches():
        for digest, _, _ in batch:
            if digest in seen:
                candidates.add(digest)
            else:
                seen.add(digest)"""


@pytest.fixture(scope="module")
def stages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The reference and three screens: a set of every digest (no filter), a filter of one's own (the rule's m
    and k, another hash: a correct filter), and the course's filter with twice the rule's hashes."""
    scratch = tmp_path_factory.mktemp("roots")
    return {
        "reference": REFERENCE,
        "set screen": root_with(scratch, "set", "dedup.py", SCREEN, SET_SCREEN),
        "own filter": root_with(scratch, "own", "bloom.py", "h = fnv1a_64(item)\n", "h = fnv1a_64(item[::-1])\n"),
        "doubled k": root_with(scratch, "doubled", "bloom.py", "round(m / n * LN2)", "round(2 * m / n * LN2)"),
    }


def tiny_filter_inputs(stage: Any) -> dict[str, Any]:
    docs = [stage.Doc(r["id"], r["text"], r["meta"]) for r in suite_corpus("200 documents, 20% repeats")]
    return {"docs": docs, "bloom_bytes_per_item": 0.25}


@pytest.mark.parametrize(
    ("name", "own_filter", "fails"),
    [
        ("reference", False, False),
        ("set screen", False, True),
        ("own filter", False, True),  # the course's filter's exact answers are expected: another hash misses them
        ("doubled k", False, True),
        ("own filter", True, False),  # a filter of one's own: only what holds for any correct filter is asked
        ("set screen", True, True),  # none where the budget expects dozens
    ],
)
def test_the_tiny_filter_check_holds_a_screen_to_the_course_filter_or_to_what_any_filter_does(
    tmp_path: Path, stages: dict[str, Any], name: str, own_filter: bool, fails: bool
) -> None:
    stage = stages[name]
    verdict = JUDGES["tiny filter"](Subject(stage, tmp_path, own_filter=own_filter), tiny_filter_inputs(stage))
    assert verdict.failing is fails, verdict.message()


def test_the_tiny_filter_check_names_the_course_filters_false_positives(tmp_path: Path, stages: dict[str, Any]) -> None:
    stage = stages["set screen"]
    message = JUDGES["tiny filter"](Subject(stage, tmp_path), tiny_filter_inputs(stage)).message()
    assert "the course's filter at B=0.25 reads" in message and "got " in message


def budget_verdicts(stage: Any, tmp_path: Path) -> list[bool]:
    """The budget check's judge on each of its cases of the unique corpus."""
    docs = [stage.Doc(r["id"], r["text"], r["meta"]) for r in suite_corpus("unique paragraphs")]
    return [
        JUDGES["budget"](
            Subject(stage, tmp_path, own_filter=True), {"docs": docs[: n // UNIQUE_PER_DOC], "bloom_bytes_per_item": b}
        ).failing
        for n, b in BUDGET_CASES
    ]


def test_a_correct_filter_of_ones_own_stays_within_every_budget(tmp_path: Path, stages: dict[str, Any]) -> None:
    assert budget_verdicts(stages["own filter"], tmp_path) == [False] * len(BUDGET_CASES)


def test_twice_the_hashes_meet_too_few_false_positives_where_the_rule_gives_one(
    tmp_path: Path, stages: dict[str, Any]
) -> None:
    """At B = 0.25 the rule's k is 1: a filter with more hashes errs less while it fills, below the budget."""
    assert budget_verdicts(stages["doubled k"], tmp_path)[0]
    assert budget_verdicts(stages["set screen"], tmp_path)[0]


class Digests:
    """The reference, with ``paragraph_hash`` of another encoding."""

    def __init__(self, encode: Callable[[str], bytes]) -> None:
        self.encode = encode

    def paragraph_hash(self, p: str) -> bytes:
        return hashlib.sha256(self.encode(p)).digest()


def latin1_when_possible(p: str) -> bytes:
    try:
        return p.encode("latin-1")
    except UnicodeEncodeError:
        return p.encode("utf-8")


@pytest.mark.parametrize(
    ("encode", "paragraph", "said"),
    [
        (latin1_when_possible, "café", "should be the SHA-256 of its UTF-8 text"),
        (
            lambda p: p.encode("utf-8", "surrogatepass"),
            "\ud800",
            "should raise ValueError (UTF-8 cannot encode the text), got ",
        ),
        (lambda p: p.encode("utf-8", "surrogateescape"), "x\udcff", "should raise ValueError"),
        (lambda p: unicodedata.normalize("NFC", p).encode(), "cafe\u0301", "should be the SHA-256 of its UTF-8 text"),
    ],
)
def test_the_digest_is_sha256_of_the_utf8_text_and_a_lone_surrogate_is_refused(
    tmp_path: Path, encode: Callable[[str], bytes], paragraph: str, said: str
) -> None:
    verdict = JUDGES["hand"](Subject(Digests(encode), tmp_path), {"paragraphs": ["The cat sat.", paragraph]})
    assert verdict.failing and said in verdict.message() and list(verdict.got["paragraph_hash"]) == [paragraph]
    assert not JUDGES["hand"](Subject(REFERENCE, tmp_path), {"paragraphs": ["The cat sat.", paragraph]}).failing
