"""Nothing a stage writes outlives it, and nothing a worker's uid makes outlives the batch, in every tier and setup.

``spool_copy_kept`` spools as the reference does but keeps a copy of its input in a folder made with
``tempfile.mkdtemp()`` (the worker's home) and in a file beside spool_dir (the session): check 11 must
fail it, naming both. ``leftovers_everywhere`` tries to leave a file in every world-writable folder
(/tmp, /var/tmp, /dev/shm, /run/lock, and a nested world-writable folder the test makes below /tmp),
five segments of System V shared memory (320 MB, one written), a message queue, a semaphore set and a
POSIX message queue, each named with a token of this test's. Graded in one batch with
``samples/correct_different.py`` (``--jobs 2``, a temp folder of the test's own), in each tier and
setup: the correct sample keeps full marks, the grader exits 0; ``leftovers_everywhere`` gets full
marks with every attempt blocked; and afterwards nothing named with the token is left in any
world-writable folder, in System V IPC (``ipcs``) or in /dev/mqueue, nor anything in the temp folder.
(Other graders share this machine's /tmp and IPC: the token tells this test's leftovers apart.)
"""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from beside_correct import EVERY_CASE, Batch, graded_in_a_temp_of_its_own
from dedup_harness.core.checks import CHECKS
from grading_support import hostile_source
from left_behind import ipc_objects, named_with
from machine_setups import public_folder

SPOOL_CHECK = CHECKS[10]
SAYS = "leftovers: "


def ipc_keyed_by(token: str) -> list[str]:
    """The System V IPC objects whose key ``leftovers_everywhere`` makes from ``token``."""
    keys = {int(token[:7], 16) * 16 + n for n in range(7)}
    return [
        f"{kind}: {list(row.values())[:2]}"  # its key and id
        for kind, row in ipc_objects()
        if int(row["key"]) in keys
    ]


@dataclass
class Found:
    """A batch, and what it left named with the token: in the world-writable folders, and in System V IPC."""

    batch: Batch
    named: list[str]
    ipc: list[str]


@pytest.fixture(scope="module")
def batch(found: Found) -> Batch:
    return found.batch


@pytest.fixture(scope="module", params=EVERY_CASE, ids=str)
def found(request: pytest.FixtureRequest) -> Iterator[Found]:
    token = secrets.token_hex(8)
    nested = public_folder("dedup-harness-nested-")
    (nested / "open").mkdir()
    (nested / "open").chmod(0o1777)  # world-writable, below a folder that is not: /tmp's own are searched too
    leaving = hostile_source("leftovers_everywhere").replace("TOKEN = None", f"TOKEN = {token!r}", 1)
    leaving = leaving.replace("NESTED = None", f"NESTED = {str(nested / 'open')!r}", 1)
    try:
        hostiles = {"spool_copy_kept": hostile_source("spool_copy_kept"), "leftovers_everywhere": leaving}
        graded = graded_in_a_temp_of_its_own(request, hostiles, "dedup-harness-leftovers-")
        yield Found(graded, named_with(token), ipc_keyed_by(token))
    finally:
        shutil.rmtree(nested, ignore_errors=True)


def test_the_grader_survives_and_the_correct_sample_keeps_full_marks(batch: Batch) -> None:
    assert batch.exit_status == 0, batch.stderr[-3000:]
    assert batch.has_full_marks("correct"), batch.submission("correct")


def test_a_copy_kept_outside_spool_dir_fails_the_spool_check_and_nothing_else(batch: Batch) -> None:
    checks = {check["name"]: check for check in batch.submission("spool_copy_kept")["checks"]}
    assert [name for name, check in checks.items() if check["outcome"] != "passed"] == [SPOOL_CHECK]
    said = " ".join(checks[SPOOL_CHECK]["feedback"])
    assert "/docs.jsonl (in the worker's home, its temp folder)" in said, said
    # Beside spool_dir only a worker of the grader's own uid may write (its own uid cannot, as root).
    assert ("kept-docs.jsonl (in the session)" in said) is (batch.case.setup == "user"), said


def test_every_attempt_to_leave_something_behind_is_blocked(batch: Batch) -> None:
    lines = batch.log("leftovers_everywhere", SAYS)
    assert len(set(lines)) == 9 and all(" blocked (" in line for line in lines), lines  # each worker tries
    assert batch.has_full_marks("leftovers_everywhere"), batch.submission("leftovers_everywhere")["checks"]


def test_nothing_outlives_the_batch_in_any_world_writable_folder_in_ipc_or_in_the_temp_folder(found: Found) -> None:
    assert found.named == [] and found.ipc == [] and found.batch.left == []
