"""The oracle on cases worked by hand, and against the reference's independent split."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given

import oracle
from corpus import dedup
from corpus.doc import Doc
from dedup_harness.core.split_cases import SPLIT_CASES
from dedup_harness.core.strategies import texts


def test_the_oracle_reproduces_the_worked_example() -> None:
    docs = [
        Doc("s:0", "The cat sat.\n\nThe dog ran."),
        Doc("s:1", "The dog ran.\n\nA bird sang."),
        Doc("s:2", "The cat sat."),
    ]
    stats: dict[str, Any] = {}
    assert list(oracle.exact_dedup(docs, stats=stats)) == [docs[0], Doc("s:1", "A bird sang.")]
    assert stats == {"docs_in": 3, "paragraphs": 5, "duplicate_paragraphs": 2, "docs_dropped": 1, "docs_out": 2}


def test_a_document_without_paragraphs_passes_through() -> None:
    docs = [Doc("e", " \n\t\n"), Doc("f", "")]
    assert list(oracle.exact_dedup(docs)) == docs


@given(text=texts())
def test_the_oracle_and_the_reference_split_alike(text: str) -> None:
    """Two splits written independently from the same rule agree; a disagreement is a bug in one of them."""
    assert oracle.paragraphs(text) == dedup.paragraphs(text)


@pytest.mark.parametrize(("text", "expected"), SPLIT_CASES)
def test_the_oracle_and_the_reference_split_the_hand_worked_cases_as_written(text: str, expected: list[str]) -> None:
    """The split check judges against the oracle's split; these cases, worked by hand, hold the oracle to the rule."""
    assert oracle.paragraphs(text) == expected
    assert dedup.paragraphs(text) == expected
