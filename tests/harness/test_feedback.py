"""Feedback in plain words, from the cases a check lost, each kept as fields."""

from __future__ import annotations

from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.feedback import CASES_SHOWN, HELD_BACK, HELD_BACK_TOO, LostCase, Said, check_feedback, scrub
from grade_fakes import ORACLE_MESSAGE, TRIED, case

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
    assert feedback.cases[0].case_id == "0.1" and feedback.cases[0].differences == (ORACLE_MESSAGE,)


def test_the_failing_input_is_the_one_the_check_tried_shown_as_rows() -> None:
    feedback = check_feedback(NAME, Outcome.FAILED, [case(NAME, Outcome.FAILED, ORACLE_MESSAGE, TRIED)])
    assert feedback is not None and feedback.cases[0].input == TRIED
    text = feedback.text()
    assert "The failing input:\n  d0: 'a'\n  bloom bytes per item: 0.1" in text


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
    feedback = check_feedback(NAME, Outcome.ERROR, cases, events=[Said("timeout", "call took over 10 s")])
    assert feedback is not None
    assert feedback.problems == (
        "[1] it crashed: ValueError: bad file <scratch>/root/corpus/dedup.py",
        "[10] it ran past its time limit (a hang, or far too slow).",
        "timeout: call took over 10 s",
    )
    assert feedback.crashed_with == "ValueError" and feedback.headline.startswith("ValueError: bad file")


def test_a_crash_site_is_a_field_said_once_after_the_message() -> None:
    record = {**case(NAME, Outcome.ERROR, "KeyError: 'x'"), "site": "dedup.py line 40, in _spool"}
    lost = LostCase.of(record)
    assert lost.site == "dedup.py line 40, in _spool" and lost.message == "'x'"
    assert lost.words() == "it crashed: KeyError: 'x' (at dedup.py line 40, in _spool)"


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


def test_what_students_read_holds_no_held_back_case_nor_what_its_worker_did() -> None:
    """Held back is a field of each case and event: the students' view leaves those out and says so."""
    public = case(NAME, Outcome.FAILED, ORACLE_MESSAGE, TRIED, label="0.1")
    held = {**case(NAME, Outcome.FAILED, "document 'h7': secret", TRIED, label="0.1"), "held_back": True}
    events = [Said("attempt", "tried to read /tmp/secret words", held_back=True)]
    feedback = check_feedback(NAME, Outcome.FAILED, [held, public], events=events)
    assert feedback is not None and [c.held_back for c in feedback.cases] == [False, True], "public first"
    student = feedback.for_students()
    assert "secret" not in "\n".join(student.lines) and student.problems[-1] == HELD_BACK_TOO
    only_held = check_feedback(NAME, Outcome.FAILED, [held])
    assert only_held is not None and only_held.held_back
    assert only_held.for_students().problems == (HELD_BACK,) and "secret" in only_held.text(), "staff see it"
