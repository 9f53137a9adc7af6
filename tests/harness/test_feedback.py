"""Feedback in plain words, from the checks' own messages and Hypothesis's shrunk examples."""

from __future__ import annotations

from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.feedback import CASES_SHOWN, check_feedback, scrub, smallest_input
from grade_fakes import FALSIFYING, ORACLE_MESSAGE, case

NAME = "test_random_corpora_match_the_set_oracle"


def test_a_passed_check_has_no_feedback() -> None:
    assert check_feedback(NAME, Outcome.PASSED, [case(NAME, Outcome.PASSED)]) is None


def test_the_verdicts_differences_are_the_words() -> None:
    """The judge says what was expected and what came back: its differences, as data, are the feedback."""
    feedback = check_feedback(NAME, Outcome.FAILED, [case(NAME, Outcome.FAILED, ORACLE_MESSAGE, label="0.1")])
    assert feedback is not None
    assert feedback.problems == (
        "[0.1] the output differs from the set oracle's: document 'd0' is missing from the output",
    )
    assert feedback.asserts.startswith("on random corpora")


def test_the_smallest_failing_input_drops_fixtures_and_memory_addresses() -> None:
    feedback = check_feedback(NAME, Outcome.FAILED, [case(NAME, Outcome.FAILED, ORACLE_MESSAGE, FALSIFYING)])
    assert feedback is not None
    assert "run=" not in feedback.smallest_input and "0x" not in feedback.smallest_input
    assert feedback.smallest_input == "bloom_bytes_per_item=0.1\nrecords=[{'id': 'd0', 'text': 'a', 'meta': {}}]"
    assert "Smallest failing input:" in feedback.text()


def test_crashes_and_timeouts_are_said_as_such_and_paths_are_scrubbed() -> None:
    cases = [
        case(
            NAME,
            Outcome.ERROR,
            "ValueError: bad file /tmp/dedup-harness-grade-41.7-ab12_x9z/root/corpus/dedup.py",
            label="1",
        ),
        case(NAME, Outcome.TIMEOUT, "CheckTimeout: the check ran past its time limit", label="10"),
    ]
    feedback = check_feedback(NAME, Outcome.ERROR, cases, events=["timeout: call took over 10 s"])
    assert feedback is not None
    assert feedback.problems == (
        "[1] it crashed: ValueError: bad file <scratch>/root/corpus/dedup.py",
        "[10] it ran past its time limit (a hang, or far too slow).",
        "timeout: call took over 10 s",
    )


def test_many_failing_cases_are_counted_rather_than_listed() -> None:
    cases = [case(NAME, Outcome.FAILED, f"case {n}", label=str(n)) for n in range(CASES_SHOWN + 4)]
    feedback = check_feedback(NAME, Outcome.FAILED, cases)
    assert feedback is not None
    assert len(feedback.problems) == CASES_SHOWN + 1
    assert feedback.problems[-1] == "... and 4 more failing cases of this check."


def test_a_check_that_never_ran_says_so() -> None:
    feedback = check_feedback(NAME, Outcome.ERROR, [])
    assert feedback is not None
    assert "could not run" in feedback.problems[0]


def test_the_scrubber_removes_grader_scratch_folders_and_worker_uids() -> None:
    text = "left /tmp/dedup-harness-grade-ab12_x9z/shared/pytest/x as uid 1001234"
    assert scrub(text) == "left <scratch>/shared/pytest/x as uid <per run>"


def test_hypothesis_says_nothing_of_its_own_in_the_smallest_input() -> None:
    """Its heading, the test's fixtures and its hints are Hypothesis's words for a developer, not a student's."""
    notes = (
        "Failing test case: test_random_corpora_match_the_set_oracle(\n    judge=judge,\n"
        "    cases=Cases(check='', course_seed=None),\n    records=[],\n)\n\n"
        "You can add @seed(0) to this test or run pytest with --hypothesis-seed=0 to reproduce this failure.\n"
        "Hint: use Verbosity.verbose to see every example."
    )
    assert smallest_input(notes) == "records=[]"
