"""The stage's contract with the pipeline: its stats, its spool, and how it composes."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from corpus.doc import Doc, compose
from dedup_harness.core.case_log import record
from dedup_harness.core.removal import entries_under

from .support import Run

NAMES = (
    "docs_in",
    "paragraphs",
    "bloom_bits",
    "candidates",
    "false_positives",
    "duplicate_paragraphs",
    "docs_dropped",
    "docs_out",
)
DOCS = [Doc("a", "One.\n\nTwo.\n\nThree."), Doc("b", "Zero.\n\nTwo.\n\nFour."), Doc("c", "Three.")]


@pytest.mark.parametrize("docs", [[], DOCS], ids=["empty input", "three documents"])
def test_stats_name_every_key(impl: Any, run: Run, docs: list[Doc]) -> None:
    """Once the output is exhausted every stat is there as a whole number, even when no document came in."""
    record(docs=docs, bloom_bytes_per_item=10)
    assert tuple(impl.STATS_KEYS) == NAMES, f"STATS_KEYS should be {NAMES}, got {tuple(impl.STATS_KEYS)!r}"
    _, stats = run(docs, 10)
    missing = [key for key in NAMES if type(stats.get(key)) is not int]
    assert not missing, f"these stats are missing or not whole numbers: {missing} (stats: {stats!r})"
    if not docs:
        assert stats["bloom_bits"] == 80, (
            f"an empty input still sizes the filter for one paragraph: 80 bits at B=10, got {stats['bloom_bits']!r}"
        )
        nonzero = {key: stats[key] for key in NAMES if key != "bloom_bits" and stats[key] != 0}
        assert not nonzero, f"for an empty input every count should be 0, got {nonzero!r}"
        by_default: dict[str, Any] = {}
        list(impl.exact_dedup(iter(docs), stats=by_default))
        assert by_default == stats, (
            f"bloom_bytes_per_item should default to 10: with it left out the stats should be {stats!r}, "
            f"got {by_default!r}"
        )


def failing_input(docs: list[Doc], error: BaseException) -> Iterator[Doc]:
    yield from docs
    raise error


def spool_left(folder: Path) -> list[str]:
    """What lies under ``folder`` (the first hundred entries): any depth, never following a link."""
    return entries_under(folder)


@pytest.mark.parametrize("ending", ["read to the end", "closed early", "closed before start", "input raised"])
def test_the_spool_is_removed(impl: Any, tmp_path: Path, ending: str) -> None:
    """Nothing is left under spool_dir however the stage ends; while it runs, its spool lives there."""
    record(docs=DOCS, ending=ending)
    docs: Iterable[Doc] = failing_input(DOCS, RuntimeError("the input broke")) if ending == "input raised" else DOCS
    stage = impl.exact_dedup(iter(docs), 10, spool_dir=tmp_path)
    if ending == "read to the end":
        next(stage)
        assert spool_left(tmp_path), "while the stage runs its spool should live under spool_dir, which was empty"
        list(stage)
    elif ending == "closed early":
        next(stage)
        stage.close()
    elif ending == "closed before start":
        stage.close()
    else:
        with pytest.raises(RuntimeError, match="the input broke"):
            list(stage)
    assert spool_left(tmp_path) == [], (
        f"spool_dir should be empty once the stage ended ({ending}), it holds {spool_left(tmp_path)}"
    )


def tag(docs: Iterable[Doc]) -> Iterator[Doc]:
    for doc in docs:
        yield Doc(doc.id, doc.text, {**doc.meta, "tagged": True})


def test_exact_dedup_is_a_stage(impl: Any) -> None:
    """It composes like any stage, options bound with partial; a partial document is joined by a blank line."""
    record(docs=DOCS, bloom_bytes_per_item=1)
    stage = functools.partial(impl.exact_dedup, bloom_bytes_per_item=1)
    out = list(compose(tag, stage)(iter(DOCS)))
    assert out == [
        Doc("a", "One.\n\nTwo.\n\nThree.", {"tagged": True}),
        Doc("b", "Zero.\n\nFour.", {"tagged": True}),
    ], f"expected a unchanged, b as 'Zero.\\n\\nFour.' (its paragraphs joined by a blank line), c dropped; got {out!r}"
    stream = stage(iter(DOCS))
    assert iter(stream) is stream, (
        f"the stage should return an iterator; iter() of what it returned is {iter(stream)!r}"
    )
    twice, once = list(compose(stage, stage)(iter(DOCS))), list(stage(iter(DOCS)))
    assert twice == once, f"deduplicating the output again should change nothing: expected {once!r}, got {twice!r}"
