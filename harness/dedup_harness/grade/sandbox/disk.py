"""A worker's disk: the blocks and entries its files hold, when it has overrun, and a watch that stops it then.

``WorkerDisk`` measures what the worker wrote (its home and the shared folder: allocated blocks, and
entries) against the disk limit and ``ENTRIES`` (its own tmpfs's cap), and, on the temp folder's
disk, whether that disk is full while the worker holds some of it. A submission's thread writes
between calls too, so from the worker's start to its stop a ``DiskWatch`` looks every ``EVERY``
seconds; the first overrun kills the worker, removes what it wrote (the checks after it and the
grader's own files need the room) and keeps the words for the proxy's next verdict.

A tmpfs of its own is measured whole by one statvfs. On the temp folder's disk only a walk tells, and
a worker can make a walk long and write meanwhile: a watch that walked on every look was outrun
(100,000 planted entries, then 32 MB files in a loop, filled a 600 MiB temp folder). So a look is one
statvfs: the worker has grown by no more than the disk's used blocks and inodes since the last walk,
and only when that bound could pass the limit (or the disk is nearly full) does the watch walk, with
the worker held still (``hold``), counting at most ``ENTRIES`` + 1. What a worker can write between
two looks (``SLACK``) is the room a batch keeps beside each limit (``room``). A file system that
counts no inodes (btrfs) cannot bound entries: there the watch also walks every ``EVERY`` seconds, at
most a twentieth of its time.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import NamedTuple

from dedup_harness.core.removal import Allocation, allocation, empty
from dedup_harness.grade.sandbox.limits import Limits
from dedup_harness.grade.sandbox.own_disk import INODES

LOW_SPACE = 1 << 20  # a temp folder with less free is full
EVERY = 0.01  # seconds between two looks: a statvfs of the disk, nothing more
ENTRIES = INODES  # files and folders a worker may have at once, on any disk: what its own tmpfs holds
# What a worker can write past its limit before the watch holds it: what the disk takes in between two
# looks, and the writes in flight when a look finds the bound passed (up to the file size limit each,
# for every thread that writes at that moment: holding the worker still waits for them), room for four
# such writes. Measured by benchmarks/disk_watch_overshoot.py (two at once, under load): 2 to 40 MiB
# past the limit for disk_outrun, 80 to 176 MiB for disk_bomb, which starts a writing thread at every
# call (48 MB files, side by side). More threads, each in a write of the file size limit at the same
# moment, could take it further: the worst is every thread it may have (32) in one, 2 GiB.
SLACK = 4 * Limits().file_bytes
SPARE = 20  # on a disk that counts no inodes, the watch walks at most a twentieth of its time


class DiskState(NamedTuple):
    """What one statvfs says of a disk: blocks and inodes in use, and the bytes free to an unprivileged writer."""

    used: int
    inodes: int
    free: int
    counts_inodes: bool


def disk_state(folder: Path | str) -> DiskState:
    found = os.statvfs(folder)
    used = (found.f_blocks - found.f_bfree) * found.f_frsize
    return DiskState(used, found.f_files - found.f_ffree, found.f_bavail * found.f_frsize, found.f_files > 0)


def space_left(folder: Path | str) -> int:
    return disk_state(folder).free


class Look(NamedTuple):
    """One walk's figures, and the disk's state when it was made: the bound's starting point."""

    held: Allocation
    disk: DiskState


class WorkerDisk:
    """What one session's worker may write: its home, and the spool folders granted under ``shared``."""

    def __init__(self, home: Path, shared: Path, limit: int, *, own: bool) -> None:
        self.session = home.parent
        self.home = home
        self.shared = shared
        self.limit = limit
        self.own = own  # a tmpfs of its own (else the temp folder's disk, shared with the machine)
        self.granted: list[Path] = []

    def held(self) -> Allocation:
        """The disk the worker's files hold (allocated blocks: a sparse file holds few) and how many there are.

        A disk of its own is measured whole (its code with it): nothing in it can hide, however deep.
        Elsewhere the walk stops past ENTRIES.
        """
        if self.own:
            state = disk_state(self.session)
            return Allocation(state.used, state.inodes)
        home = allocation(self.home, most_entries=ENTRIES)
        shared = allocation(self.shared, most_entries=ENTRIES - home.entries)
        return Allocation(home.bytes + shared.bytes, home.entries + shared.entries)

    def overrun(self, held: Allocation | None = None) -> str | None:
        """None while the worker keeps within its disk; else the verdict's words ("disk full: ...")."""
        held = held or self.held()
        mib = self.limit >> 20
        if held.bytes > self.limit:
            return f"disk full: the submission wrote more than its {mib} MiB of disk"
        if held.entries > ENTRIES:
            return f"disk full: the submission made more than {ENTRIES:,} files and folders"
        if not self.own and held.bytes >= LOW_SPACE and space_left(self.home) < LOW_SPACE:
            return f"disk full: the temp folder ran out of space while the submission wrote there (limit {mib} MiB)"
        return None

    def could_have_overrun(self, last: Look, now: DiskState) -> bool:
        """Could the worker have passed its limits since ``last``, all the disk's growth being its own?"""
        grown = last.held.bytes + max(0, now.used - last.disk.used)
        made = last.held.entries + max(0, now.inodes - last.disk.inodes)
        return grown > self.limit or made > ENTRIES or now.free < LOW_SPACE

    def reclaim(self) -> None:
        """Once the worker is stopped: remove what it wrote (its home, the spool folders), so the checks go on."""
        for folder in [self.home, *self.granted]:
            empty(folder)


class DiskWatch:
    """Watches one worker from its start to its stop; ``hold`` keeps it from writing while a walk measures it."""

    def __init__(
        self,
        disk: WorkerDisk,
        stop: Callable[[], None],
        hold: Callable[[], AbstractContextManager[None]] = contextlib.nullcontext,
    ) -> None:
        self.disk = disk
        self.stop_worker = stop  # kills the worker and removes what it wrote
        self.hold = hold
        self.verdict: str | None = None
        self.last: Look | None = None
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="worker-disk", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        walked_at, walk_seconds = time.monotonic(), 0.0
        while not self._done.wait(EVERY):
            now = disk_state(self.disk.home)
            blind = not self.disk.own and not now.counts_inodes  # no bound on the entries: walk now and then
            due = blind and time.monotonic() - walked_at > walk_seconds * SPARE
            if self.disk.own or self.last is None or due or self.disk.could_have_overrun(self.last, now):
                walked_at = time.monotonic()
                if self.look():
                    return
                walk_seconds = time.monotonic() - walked_at

    def look(self) -> bool:
        """One look now, with a walk (the watch's, or the grader's when it pauses the worker): has it overrun?"""
        with self._lock:
            if self.verdict is None:
                with self.hold():
                    state = disk_state(self.disk.home)
                    held = self.disk.held()
                    self.last = Look(held, state)
                    self.verdict = self.disk.overrun(held)
                if self.verdict is not None:
                    self.stop_worker()
            return self.verdict is not None

    def end(self) -> None:
        """The worker is stopped: watch no more."""
        self._done.set()
        if self._thread is not threading.current_thread():
            self._thread.join()
