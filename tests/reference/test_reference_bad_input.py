"""The reference on bad input: clear errors that name the document, and never a spool left behind."""

from __future__ import annotations

import gc
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from corpus.dedup import exact_dedup
from corpus.doc import Doc

GOOD = [Doc("ok-1", "Fine.\n\nAlso fine."), Doc("ok-2", "Fine.")]


@pytest.mark.parametrize("bad", [0, -1.5, math.nan, math.inf, -math.inf, "10", None, True, 1e6])
def test_a_bad_bytes_per_item_is_refused_before_any_input_is_read(bad: Any, tmp_path: Path) -> None:
    def untouchable() -> Iterator[Doc]:
        raise AssertionError("the input was read")
        yield  # pragma: no cover

    with pytest.raises(ValueError, match="bloom_bytes_per_item"):
        exact_dedup(untouchable(), bad, spool_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_bytes_per_item_whose_rate_is_below_the_smallest_float_says_so() -> None:
    with pytest.raises(ValueError, match=r"false-positive rate below the smallest float; use a smaller value$"):
        exact_dedup([], 1e6)


@pytest.mark.parametrize(
    ("doc", "error", "message"),
    [
        (Doc("bad-meta", "x", {"when": object()}), ValueError, "bad-meta"),
        (Doc("nan-meta", "x", {"score": math.nan}), ValueError, "nan-meta"),
        (Doc("tuple-meta", "x", {"pair": (1, 2)}), ValueError, "tuple-meta"),
        (Doc("int-key", "x", {1: "one"}), ValueError, "int-key"),
        (Doc("tuple-in-list", "x", {"pairs": [[0, 1], (1, 2)]}), ValueError, "tuple-in-list"),
        (Doc("surrogate-meta", "x", {"note": "broken \udc80"}), ValueError, "surrogate-meta"),
        (Doc("surrogate", "fine\n\nbroken \ud800 text"), ValueError, "surrogate"),
        (Doc(42, "x"), TypeError, "item 2"),  # type: ignore[arg-type]
        ("not a doc", TypeError, "item 2"),
    ],
)
def test_a_bad_document_is_named_and_the_spool_removed(doc: Any, error: type, message: str, tmp_path: Path) -> None:
    with pytest.raises(error, match=message):
        list(exact_dedup([*GOOD, doc], spool_dir=tmp_path))
    assert list(tmp_path.iterdir()) == []


def interrupted() -> Iterator[Doc]:
    yield from GOOD
    raise KeyboardInterrupt


def test_ctrl_c_in_the_input_removes_the_spool(tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        list(exact_dedup(interrupted(), spool_dir=tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_an_abandoned_stage_removes_its_spool_when_collected(tmp_path: Path) -> None:
    stage = exact_dedup(iter(GOOD), spool_dir=tmp_path)
    next(stage)
    assert list(tmp_path.iterdir())
    del stage
    gc.collect()
    assert list(tmp_path.iterdir()) == []


def test_a_missing_spool_dir_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="nowhere"):
        list(exact_dedup(GOOD, spool_dir=tmp_path / "nowhere"))


def test_large_json_exact_meta_survives(tmp_path: Path) -> None:
    meta = {"n": 10**30, "f": -0.0, "deep": [[{"a": None}]], "é": "☕"}
    assert list(exact_dedup([Doc("m", "text", meta)], spool_dir=tmp_path)) == [Doc("m", "text", meta)]
