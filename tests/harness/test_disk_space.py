"""A worker's disk, measured and cleared without trusting what it made: blocks, not sizes; no link followed;
no recursion however deep; and how many submissions a batch grades at once for the room there is."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from dedup_harness.core.removal import Allocation, allocated_bytes, empty
from dedup_harness.grade.sandbox import disk as disk_module
from dedup_harness.grade.sandbox.disk import ENTRIES, LOW_SPACE, DiskState, DiskWatch, Look, WorkerDisk
from dedup_harness.grade.sandbox.interpreter import Interpreter
from dedup_harness.grade.sandbox.leftovers import remove_files_of
from dedup_harness.grade.sandbox.room import fit
from dedup_harness.grade.sandbox.tiers import Tier, WorkerSetup
from dedup_harness.grade.sandbox.users import claim_slot, grader_of, release_slot, worker_uid

MIB = 1 << 20


def test_a_sparse_file_holds_almost_no_disk_and_a_written_one_holds_its_bytes(tmp_path: Path) -> None:
    with open(tmp_path / "sparse", "wb") as sparse:
        sparse.truncate(1 << 30)
    (tmp_path / "written").write_bytes(b"x" * MIB)
    assert MIB <= allocated_bytes(tmp_path) < 2 * MIB


def test_a_link_out_of_the_folder_is_neither_counted_nor_followed_when_emptied(tmp_path: Path) -> None:
    outside, inside = tmp_path / "outside", tmp_path / "inside"
    outside.mkdir()
    inside.mkdir()
    (outside / "big").write_bytes(b"x" * MIB)
    (inside / "to-outside").symlink_to(outside)
    (inside / "to-big").symlink_to(outside / "big")
    assert allocated_bytes(inside) < MIB
    empty(inside)
    assert list(inside.iterdir()) == [] and (outside / "big").stat().st_size == MIB


def test_a_folder_nested_deeper_than_a_path_can_name_is_removed(tmp_path: Path) -> None:
    """1,100 levels of five characters: past PATH_MAX and Python's recursion limit, as a submission may make them."""
    fd = os.open(tmp_path, os.O_RDONLY)
    for _ in range(1100):
        os.mkdir("dddd", dir_fd=fd)
        deeper = os.open("dddd", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = deeper
    os.close(os.open("f", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    os.close(fd)
    empty(tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another uid needs root")
def test_only_the_workers_own_entries_are_removed_from_a_public_folder(tmp_path: Path) -> None:
    for name in ("its", "theirs"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "f").write_text(name, encoding="utf-8")
    os.chown(tmp_path / "its", 200_000_001, 200_000_001)
    remove_files_of(200_000_001, [str(tmp_path)])
    assert [p.name for p in tmp_path.iterdir()] == ["theirs"]


def test_a_worker_past_its_limit_is_told_disk_full_and_what_it_wrote_goes(tmp_path: Path) -> None:
    home, shared = tmp_path / "home", tmp_path / "shared"
    spool = shared / "spool"
    spool.mkdir(parents=True)
    home.mkdir()
    disk = WorkerDisk(home, shared, MIB, own=False)
    disk.granted.append(spool)
    (spool / "a").write_bytes(b"x" * (MIB // 2))
    assert disk.overrun() is None
    (home / "b").write_bytes(b"x" * MIB)
    assert disk.overrun() == "disk full: the submission wrote more than its 1 MiB of disk"
    disk.reclaim()
    assert list(home.iterdir()) == [] and list(spool.iterdir()) == [] and spool.is_dir()


def test_the_watch_stops_the_worker_once_at_the_first_overrun_holding_it_still_to_measure(tmp_path: Path) -> None:
    home, shared = tmp_path / "home", tmp_path / "shared"
    home.mkdir()
    shared.mkdir()
    (home / "big").write_bytes(b"x" * (2 * MIB))
    stops: list[str] = []
    holds: list[str] = []

    @contextlib.contextmanager
    def hold() -> Iterator[None]:
        holds.append("held")
        yield

    watch = DiskWatch(WorkerDisk(home, shared, MIB, own=False), lambda: stops.append("stopped"), hold)
    try:
        assert watch.look() and watch.look()
    finally:
        watch.end()
    assert stops == ["stopped"] and watch.verdict == "disk full: the submission wrote more than its 1 MiB of disk"
    assert holds  # every walk was made with the worker held still


def test_a_look_walks_only_when_what_the_disk_gained_could_take_the_worker_past_a_limit() -> None:
    disk = WorkerDisk(Path("/nonexistent/home"), Path("/nonexistent/shared"), 100 * MIB, own=False)
    last = Look(Allocation(10 * MIB, 100), DiskState(used=5000 * MIB, inodes=1000, free=500 * MIB, counts_inodes=True))
    gained = lambda used, inodes: DiskState(5000 * MIB + used, 1000 + inodes, 500 * MIB - used, True)  # noqa: E731
    assert not disk.could_have_overrun(last, gained(80 * MIB, 10))  # 10 + 80 MiB: within its 100
    assert disk.could_have_overrun(last, gained(91 * MIB, 10))  # were all of it the worker's: past its limit
    assert disk.could_have_overrun(last, gained(0, ENTRIES))  # as many new inodes: past the entries it may have
    assert disk.could_have_overrun(last, DiskState(5000 * MIB, 1000, LOW_SPACE - 1, True))  # the disk is full


def test_more_files_and_folders_than_a_tmpfs_of_its_own_would_hold_is_a_full_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(disk_module, "ENTRIES", 10)
    home, shared = tmp_path / "home", tmp_path / "shared"
    home.mkdir()
    shared.mkdir()
    for n in range(30):
        (home / str(n)).touch()
    held = WorkerDisk(home, shared, MIB, own=False).held()
    assert held.entries == 11  # the walk stopped there
    assert WorkerDisk(home, shared, MIB, own=False).overrun(held) == (
        "disk full: the submission made more than 10 files and folders"
    )


def setup(tier: Tier, *, own_disk: bool, decides_files: bool = True) -> WorkerSetup:
    decides = decides_files and tier is Tier.SECCOMP
    return WorkerSetup(tier, Interpreter("/usr/bin/python3"), 7, True, own_disk=own_disk, decides_files=decides)


def test_a_temp_folder_that_holds_fewer_disk_limits_than_jobs_gets_fewer_at_a_time() -> None:
    """Each takes its limit and what its watch may let it write past that between two looks."""
    room = fit(setup(Tier.LANDLOCK, own_disk=False), 4, 256 * MIB, (1100 * MIB, "free in /tmp"))
    assert room.jobs == 2
    assert room.reasons == [
        "1100 MiB free in /tmp holds 2 submission(s) of 256 MiB of disk (and 256 MiB its watch may let it write "
        "past that) at a time: grading 2 at a time instead of 4"
    ]


def test_a_tmpfs_of_its_own_takes_no_more_than_its_limit() -> None:
    room = fit(setup(Tier.BUBBLEWRAP, own_disk=True), 4, 256 * MIB, (800 * MIB, "of memory available"))
    assert room.jobs == 3


@pytest.mark.skipif(os.geteuid() != 0, reason="as root the seccomp tier's workers have uids of their own")
def test_a_seccomp_tier_whose_grader_cannot_decide_file_calls_grades_one_at_a_time() -> None:
    room = fit(setup(Tier.SECCOMP, own_disk=False, decides_files=False), 4, 256 * MIB, (1 << 40, "free in /tmp"))
    assert room.jobs == 1
    assert "does not let the grader decide the worker's file calls" in room.reasons[0]


def test_a_temp_folder_that_holds_not_one_disk_limit_gets_one_at_a_time() -> None:
    room = fit(setup(Tier.SECCOMP, own_disk=False), 2, 256 * MIB, (20 * MIB, "free in /small"))
    assert room.jobs == 1 and "grading one at a time" in room.reasons[0]


def test_room_enough_changes_nothing() -> None:
    assert fit(setup(Tier.BUBBLEWRAP, own_disk=True), 2, 256 * MIB, (8 << 30, "of memory")).reasons == []


@pytest.mark.skipif(os.geteuid() != 0, reason="the worker gets a uid of its own only when the grader is root")
def test_each_live_sandbox_of_a_process_gets_a_uid_of_its_own() -> None:
    first, second = claim_slot(), claim_slot()
    try:
        uids = {worker_uid(first), worker_uid(second)}
        assert len(uids) == 2 and {grader_of(uid) for uid in uids if uid is not None} == {os.getpid()}
    finally:
        release_slot(first)
        release_slot(second)
    again = claim_slot()
    release_slot(again)
    assert again == min(first, second)
