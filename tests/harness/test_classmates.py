"""Submissions graded at the same time never see each other: a classmate reader beside the correct sample.

``classmate_reader`` lists the temp folders and looks, beside its own session, for the session of the
submission graded at the same time: it tries to list it, read the code in it, and reach it through
/proc. Graded with ``--jobs 2`` beside ``correct_different`` (a temp folder of the test's own, so
that every session beside its own is its classmate's), in each tier and setup: nothing of the other
session is read, both keep full marks, the grader exits 0. Where the temp folder is in the reader's
view and listable (the seccomp tier, as root or in a container), it did find the other session, so
the test is not vacuous; a non-root grader in the seccomp tier grades one at a time and says so.
"""

from __future__ import annotations

import shutil

import pytest

from beside_correct import Batch, Case, grade_beside_correct
from machine_setups import public_folder

CASES = [
    Case("root", "bubblewrap"),
    Case("root", "unshare"),
    Case("root", "landlock"),
    Case("root", "seccomp"),
    Case("user", "landlock"),
    Case("user", "seccomp"),
    Case("container", "unshare"),
    Case("container", "seccomp"),
]
SAYS = "classmates: "


@pytest.fixture(scope="module", params=CASES, ids=str)
def batch(request: pytest.FixtureRequest) -> Batch:
    temp = public_folder("dedup-harness-classmates-")
    temp.chmod(0o1777)
    try:
        return grade_beside_correct(request.param, request, "classmate_reader", temp)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def test_the_grader_survives_and_both_keep_full_marks(batch: Batch) -> None:
    assert batch.exit_status == 0, batch.stderr[-3000:]
    assert batch.has_full_marks("correct"), batch.submission("correct")
    assert batch.has_full_marks("hostile"), batch.submission("hostile")


def test_nothing_of_the_other_session_is_read(batch: Batch) -> None:
    lines = batch.log("hostile", SAYS)
    assert lines, "the reader never looked"
    assert not [line for line in lines if "READ" in line], lines


def test_what_the_reader_could_see_of_the_other_session(batch: Batch) -> None:
    """Each tier keeps it out its own way; where the reader may list the temp folder, it found the other."""
    lines, case = batch.log("hostile", SAYS), batch.case
    if case.tier == "landlock":
        assert f"{SAYS}/tmp: blocked (EACCES)" in lines and f"{SAYS}/proc: blocked (EACCES)" in lines
    elif case.tier in ("bubblewrap", "unshare"):  # every session is mounted in its own grader's namespace only
        assert f"{SAYS}0 other session(s) found" in lines
    elif case.setup == "user":  # the seccomp tier, workers of the grader's own uid: one at a time
        assert "grading one submission at a time" in batch.stderr
    else:
        assert f"{SAYS}1 other session(s) found" in lines
        assert any(line.endswith("list blocked (EACCES); read blocked (EACCES)") for line in lines), lines
