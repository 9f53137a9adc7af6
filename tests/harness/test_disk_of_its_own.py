"""A full disk is the verdict of the submission that filled it, never its classmate's loss.

``disk_bomb`` starts a thread that writes 48 MB files into its spool_dir (then its home, then /tmp)
without end. Graded with ``--jobs 2`` beside ``correct_different``, with a temp folder of 20 MB (a
tmpfs the test mounts; the grader's own files live there too), in each tier and setup: the correct
sample keeps full marks, the bomb gets a verdict of its own ("disk full" in its checks' feedback, no
harness error), the grader exits 0 and nothing of the bomb is left. In a tier with namespaces each
session is a tmpfs of its own, so both are graded at once; in one without, the temp folder cannot
hold two submissions' disk limits, and the grader grades one at a time and says so.

``disk_outrun`` plants 100,000 empty files and folders in its home, then writes 32 MB files in a
loop: it outran a watch that walked its tree on every look and backed off after a long walk. In the
tiers that share the temp folder's disk, graded beside the correct sample with a temp folder that
holds both at once (two limits and the room a watch may let each write past it, 1,100 MB), the
correct sample keeps full marks and the outrunner gets "disk full": its watch never let the temp
folder fill.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from beside_correct import Batch, Case, grade_beside_correct
from machine_setups import missing_for_setups, public_folder

CASES = [
    Case("root", "bubblewrap"),
    Case("root", "unshare"),
    Case("root", "landlock"),
    Case("root", "seccomp"),
    Case("user", "bubblewrap"),
    Case("user", "landlock"),
    Case("container", "unshare"),
    Case("container", "landlock"),
]
SMALL = "20m"
SHARED_DISK_CASES = [
    Case("root", "landlock"),
    Case("root", "seccomp"),
    Case("user", "landlock"),
    Case("container", "landlock"),
    Case("container", "seccomp"),
]
ROOM_FOR_TWO = "1100m"  # two submissions' 256 MiB limits, and 256 MiB past each a watch may let through


@contextlib.contextmanager
def temp_of(size: str) -> Iterator[Path]:
    """A temp folder of ``size`` that every setup's user may write in (a tmpfs, mounted as root)."""
    reason = missing_for_setups()
    if reason is not None:
        pytest.skip(reason)
    folder = public_folder("dedup-harness-small-temp-")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=1777", "dedup-harness-test", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        shutil.rmtree(folder)
        pytest.skip(f"cannot mount a small tmpfs: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)
        folder.rmdir()


@pytest.fixture(scope="module")
def small_temp() -> Iterator[Path]:
    with temp_of(SMALL) as folder:
        yield folder


@pytest.fixture(scope="module", params=CASES, ids=str)
def batch(request: pytest.FixtureRequest, small_temp: Path) -> Batch:
    graded = grade_beside_correct(request.param, request, "disk_bomb", small_temp)
    graded.left = sorted(os.listdir(small_temp))
    return graded


@pytest.fixture(scope="module", params=SHARED_DISK_CASES, ids=str)
def outrun(request: pytest.FixtureRequest) -> Iterator[Batch]:
    with temp_of(ROOM_FOR_TWO) as folder:
        graded = grade_beside_correct(request.param, request, "disk_outrun", folder)
        graded.left = sorted(os.listdir(folder))
        yield graded


def test_the_grader_survives_and_the_correct_sample_keeps_full_marks(batch: Batch) -> None:
    assert batch.exit_status == 0, batch.stderr[-3000:]
    assert batch.has_full_marks("correct"), batch.submission("correct")


def test_the_bomb_gets_a_disk_full_verdict_of_its_own(batch: Batch) -> None:
    bomb = batch.submission("hostile")
    assert bomb["status"] == "graded" and not bomb["harness_error"], bomb["harness_error"]
    assert "disk full: " in batch.feedback("hostile")
    assert bomb["score"] < bomb["max_score"]


def test_without_a_disk_of_its_own_the_batch_is_graded_one_at_a_time(batch: Batch) -> None:
    """20 MB cannot hold two submissions' 256 MiB: the grader says so before it grades."""
    one_at_a_time = "holds 0 submission(s) of 256 MiB of disk (and 256 MiB its watch may let it write past that) at a"
    one_at_a_time += " time: grading one at a time"
    assert (one_at_a_time in batch.stderr) == (batch.case.tier in ("landlock", "seccomp")), batch.stderr


def test_nothing_of_the_bomb_is_left_in_the_temp_folder(batch: Batch) -> None:
    assert batch.left == []


def test_the_outrunner_gets_a_full_disk_of_its_own_and_the_correct_sample_keeps_every_point(outrun: Batch) -> None:
    assert outrun.exit_status == 0, outrun.stderr[-3000:]
    assert outrun.has_full_marks("correct"), outrun.submission("correct")
    outrunner = outrun.submission("hostile")
    assert outrunner["status"] == "graded" and not outrunner["harness_error"], outrunner["harness_error"]
    # Past the entries a tmpfs of its own would hold, or past its limit, whichever it reached first: the
    # walks stay short, the watch looks as often as ever. (How far past its limit the worker got is
    # measured by benchmarks/disk_watch_overshoot.py: the correct sample's points alone could be luck.)
    verdicts = ("disk full: the submission made more than 65,536 files", "disk full: the submission wrote more than")
    assert any(words in outrun.feedback("hostile") for words in verdicts), outrun.feedback("hostile")
    assert "grading one at a time" not in outrun.stderr  # both at once: the temp folder holds the two
    assert outrun.left == []
