"""Real grades: the samples, the reference's own dedup.py, twice for byte-identical reports, and the CLI.

Every submission here is graded for real (trusted suite process, isolated worker), once per module,
as one parallel batch. The batch forks each suite run from a warm server; grading again with
``grade()`` starts a fresh interpreter, so the byte-identical test also holds the two ways together.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from dedup_harness.cli import main
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.kill_matrix import load_kill_sets
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.distribution.batch_identity import identify
from dedup_harness.grade.batch import default_jobs, grade_batch
from dedup_harness.grade.diagnosis import Evidence, load_diagnoser
from dedup_harness.grade.grader import GradingOptions, grade
from dedup_harness.grade.reports import csv_report, gradescope, json_report, junit
from dedup_harness.grade.reports.model import GradeReport, Status
from dedup_harness.grade.scoring import equal_weights
from grading_support import hostile_source

SAMPLES = Path(__file__).resolve().parent / "submissions" / "samples"
REFERENCE = IMPL_ROOT / "corpus" / "dedup.py"

# What each buggy sample loses (check numbers, docs/checks.md's order) and the pitfall it should be diagnosed as.
EXPECTED = {
    "keeps_last": ({1, 2, 3, 4, 6, 7, 12, 13}, "s01"),
    "splits_on_blank_line_string": ({2, 3, 4, 5, 8, 9}, "s07"),
    "splits_with_splitlines": ({2, 4, 5}, None),  # a bug no mutant has: no kill set fits inside
    "spool_left_on_close": ({11}, "s13"),
    "stats_only_when_docs": ({4, 10}, "s11"),
    "trusts_the_filter": ({3, 4, 9, 12, 13}, "s04"),
    # s04's output, with a false-positive count from a confirm pass it ignores (right, where s04's is not): it
    # passes check 9, which s04 fails, so no kill set fits; on every minimal case it answers as s04 does in
    # what the failing check judged ("behaves like s04"), and the stat no failing check found wrong vetoes nothing.
    "confirms_then_ignores": ({3, 4, 12, 13}, "s04"),
    "hashes_lower_cased": ({3, 13}, "s14"),
    "joins_with_a_line_break": ({2, 3, 4, 6, 12}, "s12"),
    "ignores_spool_dir": ({11, 14}, None),  # a mistake no mutant makes (s13 and s15 each fail otherwise)
    "emits_emptied_documents": ({1, 2, 3, 4, 12, 13}, None),  # a mistake no mutant makes: no pitfall
    # Look-alikes: each fails exactly a mutant's kill set, but answers otherwise than the mutant on its own
    # minimal cases, so no pitfall is named.
    "drops_inner_repeats_whole": ({2, 3, 4, 6}, None),  # s02's checks; it drops inner repeats, first copy too
    # Four more mistakes no kill set fits. A paragraphs() that keeps its line breaks loses s01's checks and
    # the split check besides, which judges paragraphs() alone (it keeps the first occurrence: no pitfall).
    "keeps_line_breaks": ({1, 2, 3, 4, 5, 6, 7, 12, 13}, None),
    # The digest of the NFKC form fails check 1's combining marks beside check 13's pairs; s14 (lower-casing
    # at the call site) fails 13 and 3, not 1.
    "normalizes_before_hashing": ({1, 13}, None),
    "rebuilds_with_original_separators": ({2, 3, 4}, None),
    "stats_before_exhausted": ({1, 2, 3, 4, 6}, None),
}
# The mutant whose kill set each look-alike fails.
LOOK_ALIKES = {"drops_inner_repeats_whole": "s02"}
TIMING = re.compile(r'("(?:execution_time|seconds)": )[0-9.]+|( time=")[0-9.]+')


def options() -> GradingOptions:
    return GradingOptions(equal_weights(), load_diagnoser())


@pytest.fixture(scope="module")
def graded() -> dict[str, GradeReport]:
    paths = [str(p) for p in sorted(SAMPLES.glob("*.py"))] + [str(REFERENCE)]
    reports = grade_batch(paths, options(), jobs=default_jobs())
    return {Path(r.submission).stem: r for r in reports}


@pytest.mark.parametrize("sample", sorted(LOOK_ALIKES))
def test_a_look_alike_fails_a_mutants_very_checks_and_is_named_no_pitfall(
    graded: dict[str, GradeReport], sample: str
) -> None:
    """The kill set fits, the behaviour on the minimal cases does not: the report names the failed checks
    and shows their cases, and no pitfall."""
    report = graded[sample]
    kill_set = load_kill_sets()[LOOK_ALIKES[sample]]
    assert report.failed() == kill_set and report.diagnosis == []
    assert all(c.feedback and c.feedback.minimal_case for c in report.checks if c.name in kill_set)


def lost_numbers(report: GradeReport) -> set[int]:
    return {check.number for check in report.checks if check.score < check.max_score}


def test_the_references_own_dedup_py_gets_full_marks(graded: dict[str, GradeReport]) -> None:
    report = graded["dedup"]
    assert report.status is Status.GRADED and report.problems == []
    assert report.score == report.max_score == len(CHECKS)


@pytest.mark.parametrize("sample", ["correct_different", "correct_plain"])
def test_a_correct_submission_written_differently_gets_full_marks(graded: dict[str, GradeReport], sample: str) -> None:
    """correct_different takes other roads than the reference; correct_plain is what the speed goals are
    measured on: plain Python, every pass hashing again what it needs."""
    report = graded[sample]
    assert (report.score, report.problems, report.diagnosis) == (len(CHECKS), [], [])


@pytest.mark.parametrize("sample", sorted(EXPECTED))
def test_each_buggy_sample_loses_its_checks_and_is_diagnosed_by_its_pitfall(
    graded: dict[str, GradeReport], sample: str
) -> None:
    report = graded[sample]
    lost, mutant = EXPECTED[sample]
    assert report.status is Status.GRADED
    assert lost_numbers(report) == lost
    assert report.score == len(CHECKS) - len(lost)
    expected = [] if mutant is None else [(mutant, True)]
    assert [(d.mutant, d.exact) for d in report.diagnosis] == expected, [d.line() for d in report.diagnosis]
    for check in report.checks:
        if check.number in lost:
            assert check.feedback is not None and check.feedback.problems, check.name


def test_a_submission_importing_what_the_course_does_not_allow_is_one_line_and_no_check(
    graded: dict[str, GradeReport],
) -> None:
    """correct_numpy, graded here without --allow numpy: refused before any of it runs (test_allowed_in_tiers
    grades it with)."""
    report = graded["correct_numpy"]
    assert (report.score, report.problems) == (0, ["dedup.py line 20 imports numpy, which this course does not allow"])
    assert report.diagnosis == []


def test_a_lost_case_keeps_what_the_check_tried_as_data(graded: dict[str, GradeReport]) -> None:
    """The input a Hypothesis check failed on is what its judge was last given (the shrunk example, replayed),
    documents as records: a field, never Hypothesis's notes read back."""
    oracle_check = graded["keeps_last"].checks[3]
    assert oracle_check.feedback is not None
    tried = oracle_check.feedback.cases[0].input
    assert set(tried) == {"docs", "bloom_bytes_per_item"}
    assert all(set(record) == {"id", "text", "meta"} for record in tried["docs"])


def normalized(report: GradeReport) -> list[str]:
    texts = [
        json_report.render([report], {}),
        gradescope.render(report),
        junit.render([report]),
        csv_report.render([csv_report.row(report, "1/1")], identify([report.submission], options().weights).cells()),
    ]
    return [TIMING.sub(lambda m: (m.group(1) or m.group(2)) + "0", text) for text in texts]


@pytest.mark.parametrize("sample", ["keeps_last", "spool_left_on_close"])
def test_the_same_submission_graded_twice_gives_the_same_reports_apart_from_timing(
    graded: dict[str, GradeReport], sample: str
) -> None:
    again = grade(SAMPLES / f"{sample}.py", options(), name=graded[sample].submission)
    assert normalized(again) == normalized(graded[sample])


def test_a_folder_without_dedup_py_is_graded_zero_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "Dedup.py").write_text("", encoding="utf-8")
    report = grade(tmp_path, options())
    assert (report.status, report.score) == (Status.GRADED, 0)
    assert "no dedup.py" in report.problems[0]


def test_the_grade_command_writes_every_report_and_exits_zero(tmp_path: Path) -> None:
    submission = tmp_path / "stats" / "dedup.py"
    submission.parent.mkdir()
    submission.write_bytes((SAMPLES / "stats_only_when_docs.py").read_bytes())
    out = {name: tmp_path / name for name in ("g.json", "g.csv", "g.xml", "gs")}
    args = ["grade", str(submission.parent), "--json", str(out["g.json"]), "--csv", str(out["g.csv"])]
    args += ["--junit", str(out["g.xml"]), "--gradescope", str(out["gs"])]
    args += ["--similarity", "--similarity-threshold", "1%", "--xlsx", str(tmp_path / "g.xlsx")]
    assert main(args) == 0
    document = json.loads(out["g.json"].read_text(encoding="utf-8"))
    # the pairs with the reference and the kit (at a threshold of 0.01): in the staff JSON, in no file a student sees
    assert [pair["left"] for pair in document["similarity"]["pairs"]] == ["the reference", "the kit (no one file)"]
    for student_sees in (out["gs"] / "results.json", out["g.csv"], out["g.xml"]):
        assert "the reference" not in student_sees.read_text(encoding="utf-8")
        assert "the kit" not in student_sees.read_text(encoding="utf-8")
    assert document["submissions"][0]["score"] == len(CHECKS) - 2
    assert json.loads((out["gs"] / "results.json").read_text(encoding="utf-8"))["score"] == len(CHECKS) - 2
    assert out["g.csv"].read_text(encoding="utf-8").count("\n") == 2  # the header, one row
    assert "<testsuite " in out["g.xml"].read_text(encoding="utf-8")
    assert (tmp_path / "g.xlsx").read_bytes()[:2] == b"PK", "a workbook (a zip)"


TUNED = SAMPLES.parent / "held_back" / "tuned_to_the_public_cases.py"


def test_a_stage_tuned_to_the_public_cases_loses_only_on_the_cases_a_course_holds_back() -> None:
    """Without a seed it gets full marks, as from check; with the course's seed, check 3 lost on those cases
    alone, said as such, its minimal case one of them; the same seed, the same report."""
    assert grade(TUNED, options()).score == len(CHECKS)
    held = dataclasses.replace(options(), hidden_seed=2026)
    first, again = grade(TUNED, held), grade(TUNED, held)
    assert normalized(first) == normalized(again)
    lost = [c for c in first.checks if c.outcome is not Outcome.PASSED]
    assert [c.number for c in lost] == [3]
    feedback = lost[0].feedback
    assert feedback is not None and feedback.held_back and feedback.minimal_case is not None
    assert feedback.minimal_case.held_back and "fails on cases your course holds back" in feedback.text()
    # the filter trusted on those cases, as s04 trusts it everywhere: no kill set fits, the behaviour does
    assert [(d.mutant, d.evidence) for d in first.diagnosis] == [("s04", Evidence.BEHAVES_LIKE)]


def test_what_a_submission_is_fed_in_the_held_back_run_never_reaches_what_students_read(tmp_path: Path) -> None:
    """tells_what_it_was_fed notes the first document of every input and raises its notes in check 1, a public
    check: the held-back run has a worker of its own, after the public one, so its documents are in no output a
    student reads before the due date (Gradescope's visible tests and overview, the JSON's feedback lines)."""
    source = tmp_path / "dedup.py"
    source.write_text(hostile_source("tells_what_it_was_fed"), encoding="utf-8")
    held = dataclasses.replace(options(), hidden_seed=int("5eed" * 8, 16))
    report = grade(source, held)
    public_notes = {line for line in report.student_output.splitlines() if line.startswith("fed ")}
    held_notes = {line for line in report.held_back_output.splitlines() if line.startswith("fed ")} - public_notes
    assert held_notes, "the held-back run fed it documents of its own"
    results = gradescope.results(report)
    seen = [results["output"], *(t["output"] for t in results["tests"] if t["visibility"] == "visible")]
    checks = json.loads(json_report.render([report], {}))["submissions"][0]["checks"]
    seen += [line for check in checks for line in check["feedback"]]
    assert "what I was fed" in "\n".join(seen), "check 1 said what the public worker had been fed"
    leaked = [note for note in held_notes if any(note.removeprefix("fed ") in text for text in seen)]
    assert not leaked
