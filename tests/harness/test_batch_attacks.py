"""Attacks on the batch itself, graded together beside the correct sample in every tier and setup.

Each would once have cost a correct student or the whole batch: a folder shaped to reach a
classmate's marks (links), to hang the grader or feed it without end (a FIFO, a device), two
submissions whose Gradescope folders collide, sources that break a recursive walk of their syntax
tree or the compiler, a correct source in Latin-1, a stage that stalls the grader's writes, and one
that prints 400 MB a call. ``grade`` grades them all in one batch with ``--jobs 2`` beside the
correct sample, with a budget of ``BUDGET`` seconds each and ``--gradescope``, in each case's setup
and tier, with a temp folder of the test's own (``beside_correct``). In every case: the grader exits
0, the correct sample keeps full marks, each attack gets the verdict it earns, and nothing is left in
the temp folder or in /tmp.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import time
from typing import Any

import pytest

from beside_correct import EVERY_CASE, Batch, Maker, grade_with_correct, writes
from dedup_harness.core import scratch_dirs
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.procfs import start_ticks
from dedup_harness.grade.reports.names import folders
from dedup_harness.grade.sandbox.users import grader_of
from grading_support import hostile_bytes
from machine_setups import TEST_USER, missing_for_setups, public_folder
from upload_shapes import HARD_LINK_NOTE, SHAPES, refusal

BUDGET = 20  # seconds of worker time each: the correct sample needs a few; the stall no more than these
FULL_MARKS = ("deep_sum_1200", "latin1_cookie", "print_400mb_a_call")
NOT_COMPILED = {"deep_sum_3000": "RecursionError", "unary_minus": "MemoryError"}
STALL = "stall_feed"
SOURCES = [*FULL_MARKS, *NOT_COMPILED, STALL]
# Two submissions whose Gradescope folders would both be team_7: the first correct, the second refused.
TEAMS = {"team 7": writes(hostile_bytes("latin1_cookie")), "team_7": SHAPES["link_to_classmate"].make}


@pytest.fixture(scope="module", params=EVERY_CASE, ids=str)
def batch(request: pytest.FixtureRequest) -> Any:
    reason = missing_for_setups()
    if reason is not None:
        pytest.skip(reason)
    temp = public_folder("dedup-harness-attacks-")
    temp.chmod(0o1777)
    started = time.time()
    hostiles: dict[str, Maker] = {name: writes(hostile_bytes(name)) for name in SOURCES}
    hostiles |= {name: shape.make for name, shape in SHAPES.items()} | TEAMS
    try:
        graded = grade_with_correct(
            request.param, request, hostiles, temp, options=["--budget", str(BUDGET)], gradescope=True
        )
        yield graded, sorted(os.listdir(temp)), left_in_tmp(started, request.param.setup)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def left_in_tmp(since: float, setup: str) -> list[str]:
    """What a worker's uid (or, in the user setup, the test user, whose workers share its uid) made in /tmp since
    ``since``.

    Once the batch is over every process of it has ended: on a machine shared with other sessions, what a
    live grader's workers own, or scratch named after a live process, is another run's and is not counted.
    """
    owners: set[int] = set()
    if setup == "user":
        with contextlib.suppress(KeyError):
            owners.add(pwd.getpwnam(TEST_USER).pw_uid)
    found = []
    for entry in os.scandir("/tmp"):
        info = entry.stat(follow_symlinks=False)
        grader = grader_of(info.st_uid)
        ours = info.st_uid in owners or (grader is not None and start_ticks(grader) is None)
        live = entry.name.startswith("dedup-harness-") and not scratch_dirs.is_dead(entry.name)
        if ours and not live and info.st_mtime >= since:
            found.append(entry.name)
    return sorted(found)


def test_the_grader_exits_0_and_the_correct_sample_keeps_full_marks(batch: Any) -> None:
    graded, _, _ = batch
    assert graded.exit_status == 0, graded.stderr[-3000:]
    assert graded.has_full_marks("correct"), graded.submission("correct")


def test_nothing_is_left_in_the_temp_folder_or_in_tmp(batch: Any) -> None:
    _, in_temp, in_tmp = batch
    assert (in_temp, in_tmp) == ([], [])


@pytest.mark.parametrize("shape", sorted(name for name, shape in SHAPES.items() if shape.named))
def test_a_folder_holding_a_link_fifo_device_or_socket_is_refused_by_name(batch: Any, shape: str) -> None:
    graded: Batch = batch[0]
    found = graded.submission(shape)
    assert (found["status"], found["score"]) == ("graded", 0)
    assert found["problems"] == [refusal(graded.base / shape, SHAPES[shape])]


def test_a_hard_link_is_graded_and_noted_for_staff(batch: Any) -> None:
    graded: Batch = batch[0]
    assert graded.has_full_marks("hard_link")
    assert graded.submission("hard_link")["problems"] == [HARD_LINK_NOTE]


@pytest.mark.parametrize("name", FULL_MARKS)
def test_a_correct_source_deep_latin_1_or_loud_keeps_full_marks(batch: Any, name: str) -> None:
    graded: Batch = batch[0]
    assert graded.has_full_marks(name), graded.submission(name)


def test_what_printed_400_mb_a_call_is_cut_and_the_report_says_so(batch: Any) -> None:
    problems = batch[0].submission("print_400mb_a_call")["problems"]
    assert len(problems) == 1 and problems[0].startswith("output: printed more than "), problems
    assert "it was told to discard the rest uncounted" in problems[0]


@pytest.mark.parametrize("name", sorted(NOT_COMPILED))
def test_a_source_python_cannot_compile_is_its_own_problem_line_and_0(batch: Any, name: str) -> None:
    graded: Batch = batch[0]
    found = graded.submission(name)
    assert (found["status"], found["score"], found["harness_error"]) == ("graded", 0, "")
    assert len(found["problems"]) == 1 and found["problems"][0].startswith("dedup.py cannot be compiled: ")
    assert found["problems"][0].endswith(f"({NOT_COMPILED[name]})")


def test_a_stage_that_stalls_the_graders_writes_is_stopped_within_its_budget(batch: Any) -> None:
    """Only check 14's corpora are large enough to stall on: its call's own window (10 s) stops it there, before the
    budget ends; either way the wait on the blocked write is charged, and the batch pays no more than the budget."""
    graded: Batch = batch[0]
    found = graded.submission(STALL)
    assert found["status"] == "graded" and 0 < found["score"] < len(CHECKS)
    [lost] = [check for check in found["checks"] if check["outcome"] != "passed"]
    assert lost["outcome"] == "timeout" and lost["feedback"][-1].startswith("timeout: "), lost
    assert found["seconds"] <= BUDGET + 1, found["seconds"]


def test_two_submissions_that_would_share_a_gradescope_folder_each_keep_their_own(batch: Any) -> None:
    graded: Batch = batch[0]
    named = folders([str(graded.base / name) for name in TEAMS])
    scores = {name: graded.gradescope[named[str(graded.base / name)]]["score"] for name in TEAMS}
    assert scores == {"team 7": len(CHECKS), "team_7": 0}
    assert len(graded.gradescope) == len(graded.report["submissions"])
