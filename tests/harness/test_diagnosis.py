"""Diagnosis as far as the evidence goes: a kill set proposes, the behaviour on the minimal cases proves.

An exact kill set, or the one pair that explains every failed check, named only where the mutant
answered like the submission on its minimal cases; a mutant that matches everywhere though no kill
set fits, named as behaving like it there; nothing for a partial fit, an ambiguous pair, behaviour
that differs, or a submission no check could judge."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.diagnosis import Diagnoser, Diagnosis
from dedup_harness.grade.minimize.behaviour import FailedCase, _agrees, differing
from grade_fakes import DIAGNOSER, KILL_SETS, OPTIONS, PITFALLS, case, report


def everywhere(mutants: Iterable[str]) -> dict[str, list[str]]:
    """Each mutant answered like the submission on every minimal case."""
    return {mutant: list(CHECKS) for mutant in mutants}


EVERYWHERE = everywhere(KILL_SETS)


def diagnose(
    failed: set[str], matches: dict[str, list[str]] | None = None, diagnoser: Diagnoser = DIAGNOSER
) -> list[Diagnosis]:
    """What the diagnoser says of ``failed`` when every failed check has a minimal case."""
    return diagnoser.diagnose(frozenset(failed), EVERYWHERE if matches is None else matches, frozenset(failed))


def test_an_exact_match_says_fails_like() -> None:
    found = diagnose({CHECKS[2]})
    assert [(d.mutant, d.exact) for d in found] == [("s04", True)]
    assert found[0].line() == "fails like s04: drops every Bloom positive without confirming it"


def test_the_one_pair_whose_kill_sets_together_are_the_evidence_is_named_partly() -> None:
    """keep-last and split-on-the-string together: two bugs, each lesson named."""
    found = diagnose({CHECKS[0], CHECKS[1], CHECKS[4]})
    assert [(d.mutant, d.exact) for d in found] == [("s01", False), ("s07", False)]
    assert found[0].line().startswith("fails partly like s01")


def test_a_kill_set_that_explains_only_part_of_the_evidence_names_nothing() -> None:
    """s01's kill set lies inside what was lost, but something else lost check 8: no guess beside it."""
    assert diagnose({CHECKS[0], CHECKS[1], CHECKS[7]}) == []


def test_two_pairs_that_fit_equally_name_nothing() -> None:
    sets = {"a": frozenset({CHECKS[0]}), "b": frozenset({CHECKS[1]}), "c": frozenset({CHECKS[0], CHECKS[1]})}
    assert [d.mutant for d in diagnose({CHECKS[0], CHECKS[1]}, everywhere(sets), Diagnoser(sets, {}))] == ["c"]
    sets = {"a": frozenset({CHECKS[0], CHECKS[2]}), "b": frozenset({CHECKS[1]}), "c": frozenset({CHECKS[0]}),
            "d": frozenset({CHECKS[1], CHECKS[2]})}  # fmt: skip
    assert diagnose({CHECKS[0], CHECKS[1], CHECKS[2]}, everywhere(sets), Diagnoser(sets, {})) == []


def test_nothing_failed_means_no_diagnosis_and_an_unrelated_failure_matches_nothing() -> None:
    assert diagnose(set()) == []
    assert diagnose({CHECKS[5]}, {}) == []


def test_crashes_and_hangs_are_no_evidence_of_a_pitfall() -> None:
    """A submission that crashes wherever it loses is told so, with its first error, and no pitfall."""
    crashed = report(dict.fromkeys(CHECKS, Outcome.ERROR), name="crash/dedup.py")
    assert crashed.diagnosis == []
    assert crashed.unjudged.startswith("every check crashed")
    hung = report(dict.fromkeys(CHECKS, Outcome.TIMEOUT), name="hang/dedup.py")
    assert hung.diagnosis == [] and hung.unjudged.startswith("every check hung")


def test_a_headline_says_what_passed_when_some_checks_did() -> None:
    """Never "every check crashed" over a table of passes: the counts, and the first error."""
    message = "ValueError: no spool here (at dedup.py line 7)"
    lost_one = report({CHECKS[11]: Outcome.ERROR}, {CHECKS[11]: [case(CHECKS[11], Outcome.ERROR, message)]})
    assert lost_one.unjudged == f"{len(CHECKS) - 1} checks passed; 1 crashed with {message}"
    hung = report(dict.fromkeys(CHECKS[:3], Outcome.TIMEOUT))
    first = "it ran past its time limit (a hang, or far too slow)."
    assert hung.unjudged == f"{len(CHECKS) - 3} checks passed; 3 hung; the first error: {first}"


def test_an_error_beside_failures_leaves_the_failures_as_the_evidence() -> None:
    mixed = report({CHECKS[2]: Outcome.FAILED, CHECKS[5]: Outcome.ERROR}, name="mixed/dedup.py")
    assert [d.mutant for d in mixed.diagnosis] == ["s04"] and mixed.unjudged == ""
    assert OPTIONS.diagnoser.pitfalls == PITFALLS


def test_a_kill_set_that_fits_names_nothing_when_the_behaviour_differs() -> None:
    """s01's kill set is the evidence, but s01 answered otherwise on the first minimal case: no pitfall."""
    assert diagnose({CHECKS[0], CHECKS[1]}, {"s01": [CHECKS[1]]}) == []
    assert [d.mutant for d in diagnose({CHECKS[0], CHECKS[1]}, {"s01": [CHECKS[0], CHECKS[1]]})] == ["s01"]


def test_without_a_minimal_case_nothing_is_proved() -> None:
    assert DIAGNOSER.diagnose(frozenset({CHECKS[2]}), EVERYWHERE, frozenset()) == []


def test_a_pair_is_named_only_where_each_matches_on_the_checks_only_it_fails() -> None:
    evidence = {CHECKS[0], CHECKS[1], CHECKS[4]}
    assert diagnose(evidence, {"s01": [CHECKS[0], CHECKS[1]], "s07": [CHECKS[4]]}) != []
    assert diagnose(evidence, {"s01": [CHECKS[0], CHECKS[1]], "s07": []}) == []


def test_no_kill_set_fits_but_one_mutant_answers_alike_on_every_case() -> None:
    """Check 6 is in no kill set here; s13 answered like the submission on its case, and nothing else did."""
    found = diagnose({CHECKS[5]}, {"s13": [CHECKS[5]], "s01": []})
    assert [(d.mutant, d.exact) for d in found] == [("s13", True)]
    assert found[0].line() == "behaves like s13 on these inputs: leaves the spool behind when closed early"
    assert diagnose({CHECKS[5]}, {"s13": [CHECKS[5]], "s01": [CHECKS[5]]}) == []


class TestWhatTheCheckFoundWrong:
    """A mutant matches where it fails too and answers as the submission did in what the check found wrong."""

    EXPECTED: ClassVar = {"output": ["a", "b"], "stats": {"candidates": 2, "false_positives": 1}}
    SUBMITTED: ClassVar = {"output": ["a"], "stats": {"candidates": 2, "false_positives": 1}}  # the output is wrong

    def case(self) -> FailedCase:
        return FailedCase("test_zero_false_drops_with_a_tiny_filter", {}, self.SUBMITTED, self.EXPECTED)

    def test_the_faulted_parts_are_those_that_differ(self) -> None:
        assert self.case().faulted() == {("output",): ["a"]}
        assert differing({"stats": {"a": 1}}, {"stats": {"a": 2, "b": 3}}) == {("stats", "a"): 2, ("stats", "b"): 3}

    def test_a_stat_the_check_did_not_fault_never_vetoes_a_match(self) -> None:
        """s04's own count of false positives is 0 where the submission counted right: the output decides."""
        assert _agrees({"output": ["a"], "stats": {"candidates": 2, "false_positives": 0}}, self.case())

    def test_an_output_other_than_the_submissions_is_no_match(self) -> None:
        assert not _agrees({"output": ["b"], "stats": self.SUBMITTED["stats"]}, self.case())
