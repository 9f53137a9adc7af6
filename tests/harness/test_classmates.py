"""Submissions graded at the same time never see each other: a classmate reader beside the correct sample.

``classmate_reader`` lists the temp folders and looks, beside its own session, for the session of the
submission graded at the same time: it tries to list it, read the code in it, and reach it through
/proc (a worker's working folder; the grade command's command line, which names every original); and
it reads the originals in the class folder (world-readable, under /tmp, as a TA's may be). Graded
with ``--jobs 2`` beside ``correct_different`` (a temp folder of the test's own, so that every session
beside its own is its classmate's), in each tier and setup: nothing of the other session or of any
original is read, both keep full marks, the grader exits 0. In the tiers without namespaces it is
Landlock, or in the seccomp tier the grader deciding every file call, that refuses the reader: the
temp folder, /proc and the class folder are all blocked; a non-root grader in the seccomp tier also
grades one at a time and says so (its workers share its uid).
"""

from __future__ import annotations

import pytest

from beside_correct import Batch, Case, graded_in_a_temp_of_its_own

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
    return graded_in_a_temp_of_its_own(request, "classmate_reader", "dedup-harness-classmates-")


def test_the_grader_survives_both_keep_full_marks_and_nothing_is_left(batch: Batch) -> None:
    assert batch.exit_status == 0, batch.stderr[-3000:]
    assert batch.left == []
    assert batch.has_full_marks("correct"), batch.submission("correct")
    assert batch.has_full_marks("hostile"), batch.submission("hostile")


def test_nothing_of_the_other_session_is_read(batch: Batch) -> None:
    lines = batch.log("hostile", SAYS)
    assert lines, "the reader never looked"
    assert not [line for line in lines if "READ" in line], lines


def test_what_the_reader_could_see_of_the_other_session(batch: Batch) -> None:
    """Each tier keeps it out its own way: out of view (namespaces), or refused (Landlock, the grader)."""
    lines, case = batch.log("hostile", SAYS), batch.case
    if case.tier in ("landlock", "seccomp"):
        blocked = [f"{SAYS}{place}: blocked (EACCES)" for place in ("/tmp", "/proc", "the class folder")]
        assert set(blocked) <= set(lines), lines
    else:  # every session is mounted in its own grader's namespace only, the class folder under a covered /tmp
        assert f"{SAYS}0 other session(s) found" in lines
    originals = sorted({line for line in lines if line.startswith(f"{SAYS}original ")})  # each worker tries
    assert len(originals) == 2 and all(line.endswith(("blocked (EACCES)", "blocked (ENOENT)")) for line in originals)
    if case.setup == "user" and case.tier == "seccomp":  # workers of the grader's own uid: one at a time
        assert "grading one submission at a time" in batch.stderr
