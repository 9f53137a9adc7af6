"""The seeded generators: same seed, same corpus; the plan's paragraphs are what a split finds."""

from __future__ import annotations

import pytest

import oracle
from dedup_harness.core import corpora
from fixture import KINDS, plan_fixture


@pytest.mark.parametrize(
    "make",
    [
        lambda seed: corpora.unique_corpus(seed, paragraphs=50),
        lambda seed: corpora.mixed_corpus(seed, docs=30),
        lambda seed: [d.record for d in plan_fixture(seed, documents=40).docs],
    ],
    ids=["unique", "mixed", "fixture plan"],
)
def test_the_same_seed_gives_the_same_corpus(make: object) -> None:
    assert callable(make)
    assert make(11) == make(11)
    assert make(11) != make(12)


def test_a_unique_corpus_has_no_repeated_paragraph() -> None:
    records = corpora.unique_corpus(5, paragraphs=2_000)
    found = [p for r in records for p in oracle.paragraphs(r["text"])]
    assert len(found) == 2_000 == len(set(found))


def test_the_fixture_plan_lists_exactly_the_paragraphs_a_split_finds() -> None:
    plan = plan_fixture()
    mismatched = [d.record["id"] for d in plan.docs if oracle.paragraphs(d.record["text"]) != d.paragraphs]
    assert not mismatched


def test_the_fixture_plants_every_kind() -> None:
    plan = plan_fixture()
    assert len(plan.docs) == 200
    assert set(plan.kinds) == set(KINDS)
    texts = [d.record["text"] for d in plan.docs]
    assert any("\r\n" in t for t in texts)
    assert any(not t.isascii() for t in texts)
    assert any("\n \n" in t or "\n\t\n" in t for t in texts)


def test_near_duplicates_survive_in_the_plan() -> None:
    """A paragraph one character away from an earlier one is new: it must be kept."""
    plan = plan_fixture()
    kept = plan.expected()["kept_texts"]
    near = [d for d in plan.docs if d.record["meta"]["kind"] == "near_duplicate"]
    assert near
    assert all(d.paragraphs[0] in kept[d.record["id"]] for d in near)
