"""Every mutant that changes dedup.py, handed in as a submission, is diagnosed as that mutant.

A submission brings only dedup.py (its doc, hashing and bloom stay the reference's), so a mutant of
bloom.py alone (s06) cannot be handed in and is left out here; verify covers it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dedup_harness.core.catalogue import load_catalogue
from dedup_harness.grade.batch import default_jobs, grade_batch
from dedup_harness.grade.diagnosis import load_diagnoser
from dedup_harness.grade.grader import GradingOptions
from dedup_harness.grade.report import GradeReport, Status
from dedup_harness.grade.scoring import equal_weights
from dedup_harness.verify.mutant_diffs import mutant_root

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
    exact = [d.mutant for d in report.diagnosis if d.exact]
    assert mutant in exact, [d.line() for d in report.diagnosis]
