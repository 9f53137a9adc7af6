"""Every mutant that changes dedup.py, handed in as a submission, is diagnosed as that mutant and nothing
else, and every check it fails shows a minimal failing case.

A submission brings only dedup.py (its doc, hashing and bloom stay the reference's), so a mutant of
bloom.py alone (s06) cannot be handed in and is left out here; tests/harness/test_minimize.py shrinks
its cases in-process.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dedup_harness.core.catalogue import load_catalogue
from dedup_harness.core.mutant_roots import mutant_root
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.batch import default_jobs, grade_batch
from dedup_harness.grade.diagnosis import load_diagnoser
from dedup_harness.grade.grader import GradingOptions
from dedup_harness.grade.reports.model import GradeReport, Status
from dedup_harness.grade.scoring import equal_weights

SUBMITTABLE = [m for m in load_catalogue() if m.files == ("corpus/dedup.py",)]


def test_every_mutant_but_the_bloom_one_changes_only_dedup_py() -> None:
    assert sorted(m.id for m in load_catalogue() if m not in SUBMITTABLE) == ["s06"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, GradeReport]:
    scratch = tmp_path_factory.mktemp("mutants")
    folders = []
    for mutant in SUBMITTABLE:
        root = mutant_root(mutant, scratch / "roots" / mutant.id)
        folder = scratch / "submissions" / mutant.id
        folder.mkdir(parents=True)
        shutil.copyfile(root / "corpus" / "dedup.py", folder / "dedup.py")
        folders.append(str(folder))
    reports = grade_batch(folders, GradingOptions(equal_weights(), load_diagnoser()), jobs=default_jobs())
    return {Path(r.submission).name: r for r in reports}


@pytest.mark.parametrize("mutant", [m.id for m in SUBMITTABLE])
def test_a_mutants_dedup_py_graded_as_a_submission_fails_like_that_mutant(
    graded: dict[str, GradeReport], mutant: str
) -> None:
    report = graded[mutant]
    assert report.status is Status.GRADED and report.problems == []
    assert [(d.mutant, d.exact) for d in report.diagnosis] == [(mutant, True)], [d.line() for d in report.diagnosis]


@pytest.mark.parametrize("mutant", [m.id for m in SUBMITTABLE])
def test_every_check_a_mutant_fails_shows_a_minimal_case_and_its_named_one_is_small(
    graded: dict[str, GradeReport], mutant: str
) -> None:
    """The target: at most 3 documents and 200 characters for the check that names the mutant (the memory
    check's case is its two corpora, as they ran: it cannot be smaller and still measure anything)."""
    named = next(m.caught_by[0] for m in SUBMITTABLE if m.id == mutant)
    for check in graded[mutant].checks:
        if check.outcome is Outcome.FAILED:
            assert check.feedback is not None and check.feedback.minimal_case is not None, check.name
    case = next(c for c in graded[mutant].checks if c.name == named).feedback.minimal_case  # type: ignore[union-attr]
    assert case is not None
    assert case.documents <= 3 and case.characters <= 200, (case.documents, case.characters, case.input)
