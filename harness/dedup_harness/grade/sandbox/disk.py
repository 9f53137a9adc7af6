"""A worker's disk: the blocks its files hold, when it has overrun, and a watch that stops it then.

``WorkerDisk`` measures what the worker wrote (its home and the grader's shared folder, in allocated
blocks) against the disk limit, and, where the session sits on the temp folder's disk, whether that
disk is full while the worker holds some of it. The proxy looks at the disk only while it waits for a
reply, and a submission's thread writes between calls too: so from the worker's start to its stop a
``DiskWatch`` thread asks every ``EVERY`` seconds; the first time the disk has overrun, the worker is
killed, what it wrote is removed (the checks after it, and the grader's own files beside a shared temp
folder, need the room), and the words are kept for the proxy, which reports them as the verdict of the
call it was in or makes next.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from dedup_harness.core.removal import allocated_bytes, empty

LOW_SPACE = 1 << 20  # a temp folder with less free is full
EVERY = 0.05  # seconds: a look costs a statvfs and a walk of a few folders
# A look walks what the worker wrote, and a submission can plant trees of thousands of folders: the watch
# then waits this many times as long as its last look took, so it never spends more than a twentieth of a
# core of the grader's time (a planted tree made the checks time out, the grader busy walking it).
SPARE = 20


class DiskWatch:
    """Watches one worker from its start to its stop."""

    def __init__(self, overrun: Callable[[], str | None], stop: Callable[[], None]) -> None:
        self.overrun = overrun  # the verdict's words once the worker's disk overruns, else None
        self.stop_worker = stop  # kills the worker and removes what it wrote
        self.verdict: str | None = None
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="worker-disk", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        wait = EVERY
        while not self._done.wait(wait):
            started = time.monotonic()
            if self.look():
                return
            wait = max(EVERY, (time.monotonic() - started) * SPARE)

    def look(self) -> bool:
        """One look now (the watch's, or the grader's when it pauses the worker): has the disk overrun?"""
        with self._lock:
            if self.verdict is None:
                self.verdict = self.overrun()
                if self.verdict is not None:
                    self.stop_worker()
            return self.verdict is not None

    def end(self) -> None:
        """The worker is stopped: watch no more."""
        self._done.set()
        if self._thread is not threading.current_thread():
            self._thread.join()


class WorkerDisk:
    """What one session's worker may write: its home, and the spool folders granted under ``shared``."""

    def __init__(self, home: Path, shared: Path, limit: int, *, own: bool) -> None:
        self.session = home.parent
        self.home = home
        self.shared = shared
        self.limit = limit
        self.own = own  # a tmpfs of its own (else the temp folder's disk, shared with the machine)
        self.granted: list[Path] = []

    def used(self) -> int:
        """Bytes of disk the worker's files hold (allocated blocks: a sparse file holds few).

        A disk of its own is measured whole (its code with it): nothing in it can hide, however deep.
        """
        if self.own:
            found = os.statvfs(self.session)
            return (found.f_blocks - found.f_bfree) * found.f_frsize
        return allocated_bytes(self.home) + allocated_bytes(self.shared)

    def overrun(self) -> str | None:
        """None while the worker keeps within its disk; else the verdict's words ("disk full: ...")."""
        used, mib = self.used(), self.limit >> 20
        if used > self.limit:
            return f"disk full: the submission wrote more than its {mib} MiB of disk"
        if not self.own and used >= LOW_SPACE and space_left(self.home) < LOW_SPACE:
            return f"disk full: the temp folder ran out of space while the submission wrote there (limit {mib} MiB)"
        return None

    def reclaim(self) -> None:
        """Once the worker is stopped: remove what it wrote (its home, the spool folders), so the checks go on."""
        for folder in [self.home, *self.granted]:
            empty(folder)


def space_left(folder: Path | str) -> int:
    found = os.statvfs(folder)
    return found.f_bavail * found.f_frsize
