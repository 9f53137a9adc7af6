"""Diagnosis: the mutants whose kill set equals, or is contained in, what a submission lost."""

from __future__ import annotations

from dedup_harness.core.checks import CHECKS
from grade_fakes import DIAGNOSER


def test_an_exact_match_comes_first_and_says_fails_like() -> None:
    found = DIAGNOSER.diagnose(frozenset({CHECKS[2]}))
    assert [d.mutant for d in found] == ["s04"]
    assert found[0].exact
    assert found[0].line() == "fails like s04: drops every Bloom positive without confirming it"


def test_contained_kill_sets_are_partial_matches_ranked_by_how_much_they_explain() -> None:
    lost = frozenset({CHECKS[0], CHECKS[1], CHECKS[4], CHECKS[7]})
    found = DIAGNOSER.diagnose(lost)
    assert [(d.mutant, d.exact) for d in found] == [("s01", False), ("s07", False)]
    assert found[0].line().startswith("fails partly like s01")


def test_exact_matches_rank_above_larger_partial_ones() -> None:
    lost = frozenset({CHECKS[0], CHECKS[1], CHECKS[2]})
    found = DIAGNOSER.diagnose(lost | {CHECKS[10]})
    assert [d.mutant for d in found] == ["s01", "s04", "s13"]
    assert not any(d.exact for d in found)
    assert [d.exact for d in DIAGNOSER.diagnose(frozenset({CHECKS[0], CHECKS[1]}))] == [True]


def test_nothing_lost_means_no_diagnosis_and_an_unrelated_failure_matches_nothing() -> None:
    assert DIAGNOSER.diagnose(frozenset()) == []
    assert DIAGNOSER.diagnose(frozenset({CHECKS[5]})) == []
