"""grade --prairielearn's results.json, from made-up reports: PrairieLearn's fields, what makes a submission
ungradable, and a file under PrairieLearn's 1 MB whatever the submission said (the real runs:
test_prairielearn_bundle.py)."""

from __future__ import annotations

import json

from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.grader import unrunnable
from dedup_harness.grade.reports import prairielearn
from grade_fakes import OPTIONS, buggy_report, case, report


def test_full_marks_score_one_and_every_test_has_its_points() -> None:
    results = json.loads(prairielearn.render(report()))
    assert (results["gradable"], results["score"]) == (True, 1.0)
    assert [t["name"] for t in results["tests"]] == [f"{n}. {name}" for n, name in enumerate(CHECKS, start=1)]
    assert all(t["points"] == t["max_points"] == 1 and t["message"] == "Passed." for t in results["tests"])


def test_a_partial_score_is_the_share_of_full_marks_with_the_diagnosis_in_plain_text() -> None:
    results = prairielearn.results(buggy_report())
    assert results["score"] == (len(CHECKS) - 2) / len(CHECKS)
    lost = [t for t in results["tests"] if t["points"] == 0]
    assert len(lost) == 2 and all(t["message"] and "This check asserts" in t["output"] for t in lost)
    assert "What the failures look like" in results["output"] and "<" not in results["output"]


def test_code_that_does_not_compile_is_ungradable_unless_the_course_says_it_costs_an_attempt() -> None:
    broken = unrunnable("a/dedup.py", OPTIONS, ["dedup.py line 3: invalid syntax: def f("], why="syntax error")
    results = prairielearn.results(broken)
    assert results["gradable"] is False and results["format_errors"] == ["dedup.py line 3: invalid syntax: def f("]
    costs = prairielearn.results(broken, costs_attempt=True)
    assert (costs["gradable"], costs["score"]) == (True, 0.0) and "format_errors" not in costs


def test_a_harness_error_is_never_gradable_and_says_it_is_not_a_verdict() -> None:
    failed = unrunnable("a/dedup.py", OPTIONS, [], harness_error="the suite could not be collected")
    results = prairielearn.results(failed, costs_attempt=True)
    assert results["gradable"] is False and "not a verdict" in results["format_errors"][0]


def test_results_json_stays_under_a_megabyte_whatever_the_submission_raised() -> None:
    huge = {
        name: [case(name, Outcome.ERROR, "ValueError: " + "\U0001f600" * 20_000 + "\\" * 20_000)] for name in CHECKS
    }
    text = prairielearn.render(report(dict.fromkeys(CHECKS, Outcome.ERROR), huge, problems=["p" * 5000] * 500))
    assert len(text.encode()) <= prairielearn.LIMIT
    results = json.loads(text)
    assert len(results["tests"]) == len(CHECKS) and len(results["format_errors"]) == prairielearn.FORMAT_ERRORS
