"""A full disk is the verdict of the submission that filled it, never its classmate's loss.

``disk_bomb`` starts a thread that writes 48 MB files into its spool_dir (then its home, then /tmp)
without end. Graded with ``--jobs 2`` beside ``correct_different``, with a temp folder of 20 MB (a
tmpfs the test mounts; the grader's own files live there too), in each tier and setup: the correct
sample keeps full marks, the bomb gets a verdict of its own ("disk full" in its checks' feedback, no
harness error), the grader exits 0 and nothing of the bomb is left. In a tier with namespaces each
session is a tmpfs of its own, so both are graded at once; in one without, the temp folder cannot
hold two submissions' disk limits, and the grader grades one at a time and says so.
"""

from __future__ import annotations

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


@pytest.fixture(scope="module")
def small_temp() -> Iterator[Path]:
    """A temp folder of 20 MB that every setup's user may write in (a tmpfs, mounted as root)."""
    reason = missing_for_setups()
    if reason is not None:
        pytest.skip(reason)
    folder = public_folder("dedup-harness-small-temp-")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SMALL},mode=1777", "dedup-harness-test", str(folder)],
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


@pytest.fixture(scope="module", params=CASES, ids=str)
def batch(request: pytest.FixtureRequest, small_temp: Path) -> Batch:
    graded = grade_beside_correct(request.param, request, "disk_bomb", small_temp)
    graded.left = sorted(os.listdir(small_temp))  # type: ignore[attr-defined]
    return graded


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
    one_at_a_time = "holds 0 submission(s) of 256 MiB of disk at a time: grading one at a time"
    assert (one_at_a_time in batch.stderr) == (batch.case.tier in ("landlock", "seccomp")), batch.stderr


def test_nothing_of_the_bomb_is_left_in_the_temp_folder(batch: Batch) -> None:
    assert batch.left == []  # type: ignore[attr-defined]
