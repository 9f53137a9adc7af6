"""The life of the grading worker behind one submission: its incarnations, and how each one ends.

An incarnation is one worker process, from its start to its stop, numbered from 1. A fault stops
the incarnation it happened in (its state is unknown from then on: it may be stuck in the
submission's code, or half-way through a message), says what happened in the event log, and gives
the ``WorkerFault`` the check sees; the next call starts the next incarnation. What the two sides say
to each other is the exchange's business (``exchange``), not this module's.
"""

from __future__ import annotations

import subprocess
import time
from typing import TypeVar

from dedup_harness.grade.budget import Overdrawn
from dedup_harness.grade.faults import (
    EventLog,
    OutputTooLarge,
    SandboxFailed,
    SubmissionExited,
    WorkerCrashed,
    WorkerFault,
    WorkerTimeout,
    describe_status,
    too_large_words,
)
from dedup_harness.grade.sandbox import Sandbox, WorkerProcess
from dedup_harness.grade.worker.channel import WATCH_EVERY, Channel
from dedup_harness.grade.worker.messages import MAX_MESSAGE

DISK_WATCH = WATCH_EVERY  # seconds between looks at the disk the worker uses
Fault = TypeVar("Fault", bound=WorkerFault)


class WorkerLife:
    """The current incarnation of the worker (if one runs), its channel, and the faults that end it."""

    def __init__(self, sandbox: Sandbox, events: EventLog) -> None:
        self.sandbox = sandbox
        self.limits = sandbox.limits
        self.events = events
        self.process: WorkerProcess | None = None
        self.channel: Channel | None = None
        self.incarnation = 0  # the number of the current (or the last) incarnation
        self.start_seconds: list[float] = []  # how long each incarnation took to import the submission
        self.sandbox_error: str | None = None  # why no worker can start here: the grader's failure
        self.last_disk_check = 0.0
        self.started = 0.0  # when the current incarnation was started

    @property
    def running(self) -> bool:
        return self.process is not None

    def spawn(self) -> Channel:
        """Start the next incarnation; its channel refuses a line longer than MAX_MESSAGE."""
        self.process = self.sandbox.start()
        self.channel = Channel(self.process.reply_fd, self.process.request_fd, longest=MAX_MESSAGE)
        self.incarnation += 1
        self.events.new_worker()
        self.started = time.monotonic()
        return self.channel

    def imported(self) -> None:
        """The incarnation has imported the submission: how long its start took is noted."""
        self.start_seconds.append(time.monotonic() - self.started)

    def pid(self) -> int | None:
        """The running incarnation's outermost process (bubblewrap's or unshare's, in those tiers), or None."""
        return self.process.process.pid if self.process is not None else None

    def stop(self) -> None:
        if self.process is not None:
            self.sandbox.stop(self.process)
            self.take_refusals()  # the last of them: the listener has stopped
            self.process = None
            self.channel = None

    def take_refusals(self) -> None:
        """What the worker's filter refused so far, as the kernel told the grader: events the submission
        cannot stop or forge."""
        if self.process is not None:
            for refusal in self.process.refusals.take():
                self.events.record("refused", refusal.words, category=refusal.category)

    def exit_status(self, wait: float) -> int | None:
        """The incarnation's exit status if it ends within ``wait`` seconds (else None); it is stopped either way."""
        assert self.process is not None
        try:
            status: int | None = self.process.process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            status = None
        self.stop()
        return status

    # -- the faults that end an incarnation ------------------------------------------------------

    def timed_out(self, desc: str, seconds: float | None) -> WorkerTimeout:
        """``desc`` took more than ``seconds`` (None: the submission's whole budget ran out)."""
        self.stop()
        if seconds is None:
            detail = f"the submission used up its {self.limits.submission_seconds:g} s of worker time ({desc})"
        else:
            detail = f"{desc} did not answer within {seconds:g} s"
        return self._fault(WorkerTimeout, detail)

    def crashed(self, desc: str) -> WorkerFault:
        """The channel closed during ``desc``: the worker died, or the submission ended it."""
        self.check_disk(desc, look_now=True)  # a worker the disk watch stopped gets that verdict, not a crash's
        status = self.exit_status(5)
        words = describe_status(status, str(self.sandbox.tier))
        kind = WorkerCrashed if "killed" in words or status is None else SubmissionExited
        return self._fault(kind, f"the worker {words} during {desc}")

    def protocol(self, desc: str, what: str) -> WorkerCrashed:
        """The worker sent ``what`` (something the exchange cannot take) during ``desc``."""
        self.stop()
        detail = f"the worker sent {what} during {desc}; it was stopped"
        self.events.record("protocol", detail)  # the check sees a crash: the worker is gone
        return WorkerCrashed(detail)

    def too_large(self, desc: str, overdrawn: Overdrawn) -> OutputTooLarge:
        self.stop()
        return self._fault(OutputTooLarge, too_large_words(overdrawn.words(desc)))

    def sandbox_failed(self, what: str, *, ended: bool = True) -> SandboxFailed:
        """The incarnation could not start: the grader's failure, and every later start would fail too."""
        status = self.exit_status(5 if ended else 0)
        output = self.sandbox.output().strip()
        said = f"; it printed: {output[-800:]}" if output else ""
        words = describe_status(status, str(self.sandbox.tier)) if status is not None else "did not end"
        self.sandbox_error = f"the worker could not start ({self.sandbox.tier} tier): {what} (it {words}){said}"
        return self._fault(SandboxFailed, self.sandbox_error)

    def check_disk(self, desc: str, *, look_now: bool = False) -> None:
        """Stop the worker once the disk it uses passes its limit (asked every DISK_WATCH seconds)."""
        now = time.monotonic()
        if not look_now and now - self.last_disk_check < DISK_WATCH:
            return
        self.last_disk_check = now
        overrun = self.sandbox.disk_overrun(look_now=look_now)
        if overrun is not None:
            self.stop()
            self.sandbox.reclaim()  # what it wrote goes, so the checks after this one have room
            # Not how much: that depends on when the watch looked, and a grade must read the same every time.
            detail = f"{overrun} during {desc}"
            self.events.record("disk", detail)
            raise WorkerCrashed(detail)

    def _fault(self, kind: type[Fault], detail: str) -> Fault:
        self.events.record(kind.kind, detail)
        return kind(detail)
