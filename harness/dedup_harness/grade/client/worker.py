"""The worker behind one submission: its incarnations, each started and stopped, and the faults that end one.

An incarnation is one worker process, from its start to its stop, numbered from 1. Starting one
waits for its first word, sent once it has confined itself and before it imports anything of the
submission: a worker that cannot say it is the grader's failure, not the student's. A fault stops
the incarnation it happened in (its state is unknown from then on: it may be stuck in the
submission's code, or half-way through a message), files an event, and raises the ``WorkerFault``
the check sees: every ``stop_for_*`` method does all three, and returns to nobody. The next call
starts the next incarnation. What the two sides say to each other is the exchange's business.

Starting an incarnation and stopping one are waits on the worker like any other: their seconds count
against the submission's budget (``budget``), and no wait here outlasts what is left of it.
"""

from __future__ import annotations

import subprocess
import time
from typing import NoReturn, TypeVar

from dedup_harness.grade.client.budget import Budget, Overdrawn
from dedup_harness.grade.client.events import EventLog
from dedup_harness.grade.client.faults import (
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
from dedup_harness.grade.worker import messages as m
from dedup_harness.grade.worker.channel import (
    Channel,
    ChannelClosed,
    ChannelGarbage,
    ChannelOverflow,
    ChannelTimeout,
    parse_line,
)

Fault = TypeVar("Fault", bound=WorkerFault)


class Worker:
    """The current incarnation of the worker (if one runs), its channel, and the faults that end it."""

    def __init__(self, sandbox: Sandbox, events: EventLog, budget: Budget) -> None:
        self.sandbox = sandbox  # holds the limits: the one owner of them
        self.events = events
        self.budget = budget  # the seconds its starts and stops are charged to
        self.process: WorkerProcess | None = None
        self.channel: Channel | None = None
        self.incarnation = 0  # the number of the current (or the last) incarnation
        self.start_seconds: list[float] = []  # how long each incarnation took to import the submission
        self.sandbox_error: str | None = None  # why no worker can start here: the grader's failure
        self.started = 0.0  # when the current incarnation was started
        self.quieted = False  # the current incarnation was told to discard its output (``quiet_now``)
        self.discarded = False  # some incarnation was: how much it printed is not known

    @property
    def running(self) -> bool:
        return self.process is not None

    def start(self) -> Channel:
        """Start the next incarnation and await its first word; its channel refuses a line over MAX_MESSAGE."""
        with self.budget.clock():
            self.process = self.sandbox.start()
            self.started = time.monotonic()
            self.channel = Channel(self.process.reply_fd, self.process.request_fd, longest=m.MAX_MESSAGE)
            self.incarnation += 1
            self.quieted = False
            self.events.new_worker()
            self._await_first_word()
        return self.channel

    def _await_first_word(self) -> None:
        """The worker's first word, before it imports anything of the submission: it runs, confined.

        Anything else (it died, hung, could not confine itself) is the grader's failure: no student
        code had run yet. Unless the submission's seconds ran out first: then that is the verdict.
        """
        assert self.channel is not None and self.process is not None
        seconds = self.sandbox.limits.call_seconds
        try:
            line = self.channel.receive_line(time.monotonic() + self.budget.within(seconds))
            first = m.checked(parse_line(line), frozenset({m.STARTED, m.CONFINE_ERROR}))
        except ChannelTimeout:
            if self.budget.seconds_left <= 0:
                self.stop_for_timeout("starting the worker", None)
            self.stop_for_sandbox(f"no word from it within {seconds:g} s", ended=False)
        except ChannelClosed:
            self.stop_for_sandbox("it ended before it could say it had started")
        except ChannelOverflow:
            self.stop_for_sandbox(f"a first message over {m.MAX_MESSAGE >> 20} MiB")
        except (ChannelGarbage, m.MessageError) as what:
            self.stop_for_sandbox(str(what))
        if first[m.KIND] == m.CONFINE_ERROR:
            self.stop_for_sandbox(f"it could not confine itself: {first[m.TEXT][:500]}")
        if self.incarnation == 1:  # every later incarnation confines itself as the first did
            self.sandbox.protections.confined(first[m.CONFINEMENT], ".".join(map(str, first[m.VERSION])))
        # Handed over (or not) before its first word: the wait only lets the listening thread catch up.
        self.sandbox.protections.refusals_reported(self.process.refusals.listening(seconds))

    def imported(self) -> None:
        """The incarnation has imported the submission: how long its start took is noted."""
        self.start_seconds.append(time.monotonic() - self.started)

    def quiet_now(self) -> bool:
        """Has the running incarnation printed more than the grader reads of it, and not been told so? Then it is
        to be told now (``messages.quiet``): its output is discarded in the worker from then on."""
        if self.quieted or self.process is None:
            return False
        if sum(trap.total for trap in self.process.output) <= self.sandbox.limits.output_read_bytes:
            return False
        self.quieted = self.discarded = True
        return True

    def pid(self) -> int | None:
        """The running incarnation's outermost process (bubblewrap's or unshare's, in those tiers), or None."""
        return self.process.process.pid if self.process is not None else None

    def stop(self) -> None:
        if self.process is not None:
            with self.budget.clock():
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

    def _exit_status(self, wait: float) -> int | None:
        """The incarnation's exit status if it ends within ``wait`` seconds and what is left of the budget (else
        None); it is stopped either way."""
        assert self.process is not None
        with self.budget.clock():
            try:
                status: int | None = self.process.process.wait(timeout=self.budget.within(wait))
            except subprocess.TimeoutExpired:
                status = None
            self.stop()
        return status

    # -- the faults that end an incarnation: each stops it, files the event, and raises --------------

    def stop_for_timeout(self, desc: str, seconds: float | None) -> NoReturn:
        """``desc`` took more than ``seconds`` (None: the submission's whole budget ran out)."""
        self.stop()
        if seconds is None:
            detail = f"the submission used up its {self.sandbox.limits.submission_seconds:g} s of worker time ({desc})"
        else:
            detail = f"{desc} did not answer within {seconds:g} s"
        self._raise(WorkerTimeout, detail)

    def stop_for_crash(self, desc: str) -> NoReturn:
        """The channel closed during ``desc``: the worker died, the submission ended it, or its disk watch did."""
        self.stop_if_disk_full(desc, look_now=True)  # the watch's verdict, not a crash's
        status = self._exit_status(5)
        words = describe_status(status, str(self.sandbox.tier))
        kind = WorkerCrashed if "killed" in words or status is None else SubmissionExited
        self._raise(kind, f"the worker {words} during {desc}")

    def stop_for_protocol(self, desc: str, what: str) -> NoReturn:
        """The worker sent ``what`` (something the exchange cannot take) during ``desc``."""
        self.stop()
        # The check sees a crash (the worker is gone); the event says what it sent.
        self._raise(WorkerCrashed, f"the worker sent {what} during {desc}; it was stopped", kind="protocol")

    def stop_for_size(self, desc: str, overdrawn: Overdrawn) -> NoReturn:
        """``desc`` sent more bytes than a message, a call or a check may (``budget``)."""
        self.stop()
        self._raise(OutputTooLarge, too_large_words(overdrawn.words(desc)))

    def stop_for_sandbox(self, what: str, *, ended: bool = True) -> NoReturn:
        """The incarnation could not start: the grader's failure, and every later start would fail too."""
        status = self._exit_status(5 if ended else 0)
        output = self.sandbox.output().strip()
        said = f"; it printed: {output[-800:]}" if output else ""
        words = describe_status(status, str(self.sandbox.tier)) if status is not None else "did not end"
        self.sandbox_error = f"the worker could not start ({self.sandbox.tier} tier): {what} (it {words}){said}"
        self._raise(SandboxFailed, self.sandbox_error)

    def stop_if_disk_full(self, desc: str, *, look_now: bool = False) -> None:
        """Once the sandbox's watch found the worker's disk past its limit (it stopped the worker and removed
        what it wrote), the check sees that verdict: the worker is stopped and the fault raised."""
        overrun = self.sandbox.disk_overrun(look_now=look_now)
        if overrun is None:
            return
        self.stop()
        self.sandbox.reclaim()  # what it wrote goes, so the checks after this one have room
        # Not how much: that depends on when the watch looked, and a grade must read the same every time.
        self._raise(WorkerCrashed, f"{overrun} during {desc}", kind="disk")

    def _raise(self, fault: type[Fault], detail: str, *, kind: str | None = None) -> NoReturn:
        self.events.record(kind or fault.kind, detail)
        raise fault(detail) from None
