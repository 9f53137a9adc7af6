"""Cases a course holds back (``grade --hidden-seed``): the seeded checks run them in a run of their own after the
public one, drawn from the seed alone; a failure on them alone is said as such, and what students read before the
due date holds none of them."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dedup_harness.check.run import HOLDS_BACK_WORDS
from dedup_harness.cli import main
from dedup_harness.commands import check as check_command
from dedup_harness.commands.arguments import held_back_seed, hidden_seed
from dedup_harness.core.checks import BY_NAME
from dedup_harness.core.hidden_cases import PUBLIC, Cases
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.paths import HOLDS_BACK_MARK, SUITE_DIR
from dedup_harness.distribution.student_kit import kit_files
from dedup_harness.grade.feedback import HELD_BACK, check_feedback
from dedup_harness.grade.reports import gradescope
from grade_fakes import minimal, report

TUNED = Path(__file__).resolve().parent / "submissions" / "held_back" / "tuned_to_the_public_cases.py"
SEEDED = {3, 4, 9, 13}  # the checks whose inputs are drawn: seeded corpora, or Hypothesis


def test_a_seed_is_the_courses_the_checks_and_the_public_seeds_and_nothing_else() -> None:
    assert PUBLIC.seed(25) == 25 and not PUBLIC.held_back
    held = Cases("test_a", 7)
    assert held.seed(25) == Cases("test_a", 7).seed(25), "the same seed, the same cases"
    others = {Cases("test_b", 7).seed(25), Cases("test_a", 8).seed(25), held.seed(26), 25}
    assert held.seed(25) not in others and len(others) == 4


RECORDING = """
import json, os
import pytest
from dedup_harness.core import case_log

drawn = {}

@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    record = case_log.record
    def kept(**inputs):
        drawn.setdefault(item.nodeid, []).append(repr(sorted(inputs.items())))
        record(**inputs)
    case_log.record = kept
    try:
        return (yield)
    finally:
        case_log.record = record

def pytest_sessionfinish(session):
    with open(os.environ["DRAWN"], "w") as out:
        json.dump(drawn, out)
"""


def drawn(tmp_path: Path, label: str, seed: int | None) -> dict[str, list[str]]:
    """Each test's inputs, as its judge was called, in a run of the suite against the reference (``seed``: the
    course's, as the grader's arguments give it)."""
    (tmp_path / "recording.py").write_text(RECORDING, encoding="utf-8")
    out = tmp_path / f"drawn-{label}.json"
    held = [] if seed is None else ["-p", "dedup_harness.core.hidden_cases", f"--hidden-seed={seed}"]
    command = [sys.executable, "-m", "pytest", str(SUITE_DIR), "-p", "recording", *held, "-q", "-p", "no:cacheprovider"]
    command += ["-k", "not memory and not spooled", f"--basetemp={tmp_path / 'base'}"]
    env = {**os.environ, "DRAWN": str(out), "PYTHONPATH": str(tmp_path), "DEDUP_HARNESS_PROFILE": "grading"}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(out.read_text(encoding="utf-8")))


def check_number(nodeid: str) -> int:
    return BY_NAME[nodeid.split("::")[1].split("[")[0]].number


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, list[str]]]:
    folder = tmp_path_factory.mktemp("held-back")
    seeds = {"none": None, "2026": 2026, "2026 again": 2026, "7": 7}
    return {label: drawn(folder, label, seed) for label, seed in seeds.items()}


def test_without_a_seed_every_check_runs_and_with_one_the_seeded_checks_alone(
    runs: dict[str, dict[str, list[str]]],
) -> None:
    """The held-back run is a run of its own (in a worker of its own, when graded): the seeded checks, under the
    node ids of their public cases, drawing other inputs."""
    public, held = runs["none"], runs["2026"]
    assert {check_number(n) for n in public} > SEEDED
    assert {check_number(n) for n in held} == SEEDED and set(held) <= set(public)
    for nodeid, inputs in held.items():
        assert inputs != public[nodeid], f"{nodeid} draws what its public run draws"


def test_the_same_seed_draws_the_same_cases_and_another_seed_others(runs: dict[str, dict[str, list[str]]]) -> None:
    """("2026 again": the same seed in a second run, a fresh interpreter: nothing rests on a process's state.)"""
    assert runs["2026"] == runs["2026 again"]
    held, other = runs["2026"], runs["7"]
    assert held.keys() == other.keys() and all(held[n] != other[n] for n in held)


def held_back_case(check: str, case_id: str = "", *, held_back: bool = True) -> dict[str, object]:
    return {
        "nodeid": f"s.py::{check}[{case_id}]" if case_id else f"s.py::{check}",
        "case_id": case_id,
        "outcome": str(Outcome.FAILED),
        "verdict": {"differences": ["document 'm11': expected 'a secret paragraph', missing from the output"]},
        "held_back": held_back,
    }


def test_a_check_lost_on_held_back_cases_alone_says_so_and_students_read_none_of_them() -> None:
    name = "test_zero_false_drops_with_a_tiny_filter"
    case = minimal(name)
    case.held_back = True
    feedback = check_feedback(name, Outcome.FAILED, [held_back_case(name)], minimal_case=case)
    assert feedback is not None and feedback.held_back
    assert HELD_BACK in feedback.text() and "a secret paragraph" in feedback.text(), "staff read the case"
    student = feedback.for_students()
    assert student.problems == (HELD_BACK,) and student.minimal_case is None
    assert "secret" not in student.text() and "m11" not in student.text()


def test_a_check_lost_on_both_shows_the_public_cases_and_says_there_are_more() -> None:
    name = "test_false_positives_stay_within_the_budget"
    cases = [held_back_case(name, "20k unique-1", held_back=held) for held in (True, False)]
    cases[1]["verdict"] = {"differences": ["false_positives: 300, over the budget"]}
    feedback = check_feedback(name, Outcome.FAILED, cases)
    assert feedback is not None and not feedback.held_back
    assert feedback.problems[0] == "[20k unique-1] false_positives: 300, over the budget", "public first, as check says"
    student = feedback.for_students()
    assert "secret" not in student.text() and "over the budget" in student.text()
    assert student.problems[-1] == "It fails on cases your course holds back too."


def test_gradescope_shows_a_held_back_case_after_the_due_date_alone() -> None:
    name = "test_zero_false_drops_with_a_tiny_filter"
    case = minimal(name)
    case.held_back = True
    cases = {name: [held_back_case(name)]}
    graded = report({name: Outcome.FAILED}, cases, minimal_cases={name: case})
    tests = gradescope.results(graded)["tests"]
    visible = [t for t in tests if t["visibility"] == "visible"]
    later = [t for t in tests if t["visibility"] == "after_due_date"]
    assert len(visible) == len(graded.checks) and [t["number"] for t in later] == [f"{BY_NAME[name].number}.1"]
    assert all("secret" not in t["output"] for t in visible) and "secret" in later[0]["output"]
    assert "max_score" not in later[0], "no points: the total stays the checks'"
    assert "secret" not in gradescope.results(graded)["output"]


def test_a_kit_for_a_course_that_holds_cases_back_says_so_and_holds_no_seed() -> None:
    marked = dict(kit_files(holds_back=True))
    mark = marked[f"dedup_harness/_data/{HOLDS_BACK_MARK}"]
    assert isinstance(mark, bytes) and not any(ch.isdigit() for ch in mark.decode()), "no seed"
    assert f"dedup_harness/_data/{HOLDS_BACK_MARK}" not in dict(kit_files()), "only when staff say so"


def test_check_in_such_a_kit_says_its_verdict_covers_the_public_cases_alone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The stage tuned to the public cases gets full marks from check, which cannot know better, and says so."""
    monkeypatch.setattr(check_command, "HOLDS_BACK", True)
    assert main(["check", str(TUNED)]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "14 / 14" in said and HOLDS_BACK_WORDS in said


def test_a_held_back_case_that_fails_as_a_public_one_does_is_not_said_twice() -> None:
    """A submission that does not compile crashes alike on every case: nothing of the held-back ones is news."""
    name = "test_zero_false_drops_with_a_tiny_filter"
    crash = {"outcome": str(Outcome.ERROR), "error": "SubmissionBroken", "message": "the submission does not compile"}
    cases = [{**crash, "nodeid": f"s.py::{name}", "held_back": held} for held in (False, True)]
    feedback = check_feedback(name, Outcome.ERROR, cases)
    assert feedback is not None and not feedback.held_back
    assert feedback.for_students() is feedback, "nothing to hold back until the due date"
    assert len(feedback.problems) == 1


def test_a_seed_any_search_could_find_is_refused_before_any_work(capsys: pytest.CaptureFixture[str]) -> None:
    """From one held-back document, a script tried 17,000 seeds a second and found 4242: 128 bits it cannot."""
    assert main(["grade", str(TUNED), "--hidden-seed", "4242"]) == 2
    said = capsys.readouterr().err
    assert "a seed for held-back cases is 32 hex digits or more" in said and "--hidden-seed-file" in said
    assert held_back_seed("0x" + "ab" * 16) == int("ab" * 16, 16)


def test_a_seed_file_that_does_not_exist_gets_a_seed_drawn_from_the_system_and_says_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = tmp_path / "course-seed"
    args = argparse.Namespace(hidden_seed=None, hidden_seed_file=kept)
    drawn = hidden_seed(args, "dedup-harness grade")
    assert drawn is not None and drawn.bit_length() > 64 and kept.stat().st_mode & 0o777 == 0o600
    assert f"kept it in {kept}" in capsys.readouterr().err
    assert hidden_seed(args, "dedup-harness grade") == drawn, "the same file, the same seed"
    assert hidden_seed(argparse.Namespace(hidden_seed=None, hidden_seed_file=None), "x") is None
