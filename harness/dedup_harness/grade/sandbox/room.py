"""How many submissions a batch may grade at once without one taking from another.

One at a time where nothing but file modes keeps workers apart (a non-root grader's seccomp or none
tier) or from classmates' originals (the seccomp tier before Linux 5.14); otherwise as many (at least
one) as the temp folder's free space holds, each with its disk limit and what its watch lets it write
between two looks (``disk.SLACK``), or, in the tiers with a tmpfs of their own, as memory holds
tmpfs filled to the limit. ``fit`` says how many, and why fewer than asked, in words for the grader.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field

from dedup_harness.core.procfs import memory_available
from dedup_harness.grade.sandbox.disk import SLACK
from dedup_harness.grade.sandbox.folder import session_parent
from dedup_harness.grade.sandbox.tiers import WorkerSetup
from dedup_harness.grade.sandbox.users import worker_uid


@dataclass(frozen=True)
class Room:
    jobs: int
    reasons: list[str] = field(default_factory=list)  # why fewer than asked (empty: as many as asked)


def _space(setup: WorkerSetup) -> tuple[int, str]:
    """The bytes the running submissions' disks share, and what they are, in words."""
    if setup.own_disk:
        return memory_available(), "of memory available for their tmpfs"
    folder = session_parent(worker_uid())
    return shutil.disk_usage(folder).free, f"free in {folder}"


def fit(setup: WorkerSetup, jobs: int, disk_bytes: int, space: tuple[int, str] | None = None) -> Room:
    """At most ``jobs`` at once, as many as the setup and the machine leave room for.

    ``space``: the bytes the running submissions' disks share and what they are, in words (by default
    the temp folder's free space, or the memory their tmpfs take).
    """
    if setup.one_at_a_time and jobs > 1:
        why = (
            "this kernel (before Linux 5.14) does not let the grader decide the worker's file calls, and file "
            "modes alone do not keep a worker from its classmates' originals"
            if setup.blind_to_files
            else "a non-root grader's workers share its uid, and nothing keeps one out of another's session"
        )
        return Room(1, [f"grading one submission at a time: in the {setup.tier} tier {why}"])
    room_bytes, where = space or _space(setup)
    slack = 0 if setup.own_disk else SLACK  # a tmpfs of its own is full at its limit; a watch looks now and then
    held = room_bytes // (disk_bytes + slack)
    if held >= jobs:
        return Room(jobs)
    mib = disk_bytes >> 20
    each = f"{mib} MiB of disk" + (f" (and {SLACK >> 20} MiB its watch may let it write past that)" if slack else "")
    room = f"{room_bytes >> 20} MiB {where} holds {held} submission(s) of {each} at a time"
    if held == 0:
        return Room(1, [f"{room}: grading one at a time; one that fills it gets its own verdict (disk full)"])
    return Room(held, [f"{room}: grading {held} at a time instead of {jobs}"])
