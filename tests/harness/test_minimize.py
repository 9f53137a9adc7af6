"""Shrinking a failed check's input: delta debugging, the steps it takes, the judges, and a mutant of the
filter (s06, which no submission can be) shrunk in-process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from corpus.doc import Doc
from dedup_harness.core import reference
from dedup_harness.core.catalogue import load_mutant
from dedup_harness.core.judges import JUDGES, Subject
from dedup_harness.core.mutant_roots import mutant_root
from dedup_harness.core.runner import run_suite
from dedup_harness.grade.minimize import plugin
from dedup_harness.grade.minimize.case import MinimalCase
from dedup_harness.grade.minimize.ddmin import Tries, ddmin
from dedup_harness.grade.minimize.shrink import paragraph_blocks, shrink
from dedup_harness.grade.minimize.text import case_text


class TestDeltaDebugging:
    def test_it_finds_the_two_items_a_failure_needs(self) -> None:
        assert ddmin(list(range(40)), lambda items: 3 in items and 31 in items, Tries(1000, 60)) == [3, 31]

    def test_it_gives_the_same_answer_every_time(self) -> None:
        def fails(items: list[int]) -> bool:
            return sum(items) > 100

        runs = [ddmin(list(range(30)), fails, Tries(1000, 60)) for _ in range(3)]
        assert runs[0] == runs[1] == runs[2] and sum(runs[0]) > 100

    def test_it_stops_at_its_budget_with_the_smallest_failing_list_so_far(self) -> None:
        budget = Tries(4, 60)
        found = ddmin(list(range(64)), lambda items: 50 in items, budget)
        assert 50 in found and len(found) < 64 and budget.used == 4 and budget.exhausted


class TestShrinkSteps:
    @pytest.mark.parametrize("text", ["a\n\nb", "\n \n  a  \n\tb\n\n\nc\r\n \r\nd\n", "x", "", "a\nb\n \n"])
    def test_paragraph_blocks_give_the_text_back_exactly(self, text: str) -> None:
        assert "".join(paragraph_blocks(text)) == text

    def test_a_failure_that_hangs_on_a_repeat_shrinks_to_two_one_letter_documents(self) -> None:
        docs = [Doc(f"doc{i}", f"Paragraph number {i}.\n\nA line everyone repeats.") for i in range(30)]

        def fails(inputs: dict[str, Any]) -> bool:  # "fails" while some paragraph occurs twice
            seen = [p for d in inputs["docs"] for p in d.text.split("\n\n") if p.strip()]
            return len(seen) != len(set(seen))

        small = shrink({"docs": docs, "bloom_bytes_per_item": 10}, fails, Tries(500, 60))
        assert [d.text for d in small["docs"]] == ["a", "a"] and [d.id for d in small["docs"]] == ["d1", "d2"]

    def test_a_text_input_loses_words_then_characters(self) -> None:
        small = shrink({"text": "keep this x and that"}, lambda i: "x" in i["text"], Tries(500, 60))
        assert small["text"] == "x"

    def test_paragraphs_to_hash_shrink_to_those_the_digest_gets_wrong(self) -> None:
        paragraphs = ["The cat sat.", "café", "東京", "\ud800", "naïve"]
        small = shrink({"paragraphs": paragraphs}, lambda i: "café" in i["paragraphs"], Tries(500, 60))
        assert small == {"paragraphs": ["café"]}


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("spools")


class KeepsLast:
    """A stage that keeps the last occurrence of each paragraph (whole documents only, for the test)."""

    STATS_KEYS = reference.reference_stage().STATS_KEYS

    def __getattr__(self, name: str) -> Any:
        return getattr(reference.reference_stage(), name)

    def exact_dedup(self, docs: Any, bloom_bytes_per_item: float = 10, **options: Any) -> Any:
        docs = list(docs)
        texts = [d.text for d in docs]
        out = [d for i, d in enumerate(docs) if d.text not in texts[i + 1 :]]
        stats = options.get("stats")
        reference_stats: dict[str, Any] = {}
        list(reference.reference_stage().exact_dedup(docs, bloom_bytes_per_item, stats=reference_stats))
        if stats is not None:
            stats.update(reference_stats)
        return iter(out)


@pytest.mark.parametrize("kind", sorted(JUDGES))
def test_the_reference_passes_every_judge_on_the_checks_own_kind_of_input(scratch: Path, kind: str) -> None:
    docs = [Doc("a", "One.\n\nTwo."), Doc("b", "Two.\n\nThree."), Doc("c", "One.")]
    inputs: dict[str, Any] = {"docs": docs, "bloom_bytes_per_item": 10}
    if kind == "split":
        inputs = {"text": "a\n \nb\r\n\r\nc"}
    elif kind == "spool":
        inputs = {"docs": docs, "ending": "closed early"}
    elif kind == "memory":
        inputs = {"corpora": (4, 8)}
    assert JUDGES[kind](Subject(reference.reference_stage(), scratch), inputs).message() == ""


def test_a_judge_fails_a_wrong_stage_and_says_what_was_expected_beside_what_came_back(scratch: Path) -> None:
    docs = [Doc("a", "Same."), Doc("b", "Same.")]
    verdict = JUDGES["output"](Subject(KeepsLast(), scratch), {"docs": docs, "bloom_bytes_per_item": 10})
    assert verdict.failing
    assert [r["id"] for r in verdict.expected["output"]] == ["a"] and [r["id"] for r in verdict.got["output"]] == ["b"]
    assert "document 'a': expected 'Same.', missing from the output" in verdict.differences


def test_the_text_of_a_case_marks_each_line_that_differs() -> None:
    case = MinimalCase(
        input={"docs": [{"id": "d1", "text": "a", "meta": {}}, {"id": "d2", "text": "a", "meta": {}}]},
        expected={"output": [{"id": "d1", "text": "a", "meta": {}}], "stats": {"docs_out": 1}},
        got={"output": [{"id": "d2", "text": "a", "meta": {}}], "stats": {"docs_out": 1}},
        differences=["document 'd1': expected 'a', missing from the output"],
        documents=2,
        characters=2,
        shrunk=True,
        origin={"documents": 200, "characters": 58777},
    )
    text = case_text(case)
    assert "(2 documents, 2 characters; the check's own input had 200 documents, 58,777 characters)" in text
    marked = [line.split()[1:3] for line in text.splitlines() if line.lstrip().startswith("!")]
    assert marked == [["out", "d1"], ["out", "d2"]]


class LeavesItsSpool:
    """A stage that keeps no spool under spool_dir while it runs (``leaves``: and leaves a folder with a file there)."""

    def __init__(self, leaves: bool) -> None:
        self.leaves = leaves

    def exact_dedup(self, docs: Any, b: float = 10, *, spool_dir: Path, **options: Any) -> Any:
        yield from docs
        if self.leaves:
            (Path(spool_dir) / "left").mkdir()
            (Path(spool_dir) / "left" / "docs.jsonl").write_text("", encoding="utf-8")


def test_check_11s_case_shows_no_rows_that_agree_and_what_is_left_as_it_is_counted(scratch: Path) -> None:
    """A table of "expected 0, got 0" would say nothing: with no row differing, the differences say it alone."""
    inputs = {"docs": [Doc("a", "One.")], "ending": "read to the end"}
    left = JUDGES["spool"](Subject(LeavesItsSpool(True), scratch / "a"), inputs)
    assert left.got["entries_left_in_spool_dir"] == 1
    assert "it holds ['left'], and within them ['left/docs.jsonl']" in left.message()
    outside = JUDGES["spool"](Subject(LeavesItsSpool(False), scratch / "b"), inputs)
    assert outside.failing and outside.got == outside.expected
    case = MinimalCase({"docs": []}, outside.expected, outside.got, outside.differences, 1, 4, False)
    assert "expected" not in case_text(case).split("what differs:")[0]


def test_the_filter_mutant_s06_gets_a_small_case_for_the_budget_check_in_process(tmp_path: Path) -> None:
    """The reference judged beside it keeps its own filter, though s06's root changed bloom.py."""
    root = mutant_root(load_mutant("s06"), tmp_path / "s06")
    out = tmp_path / "minimal.json"
    args = [*plugin.plugin_args(out), "-k", "false_positives or hand_example"]
    run_suite(root, profile="grading", extra_args=args, checks=[], timeout=600)
    cases = json.loads(out.read_text(encoding="utf-8"))["cases"]
    budget = MinimalCase(**cases["test_false_positives_stay_within_the_budget"])
    assert budget.documents <= 3 and budget.characters <= 200
    assert "test_hand_example_three_documents" in cases
