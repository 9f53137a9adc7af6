"""Every per-call concern in one place, entered once per call (``Calls.call``): what one submission may cost the
grader (bytes received per message, per call and per check, and seconds), the sandbox woken for the call and
paused again after it, the kernel's refusals taken, and a disk the watch found full made the call's fault.

The grader rebuilds what the worker sends, and a check may keep it: a stage yielding 7 MiB documents
for ever once grew the trusted process by some 70 MB/s. So every byte received (replies, pulls, the
stats dicts with them, notices, a stale reply dropped) counts against its call and check; and every
second the grader spends on the worker (waiting, reading, rebuilding, writing to it, starting,
stopping or pausing it) counts against the submission's seconds, each wait cut at what is left of
them: a submission costs the batch its budget and a few milliseconds more.

The sizes, and why: the reference's checks receive at most 0.34 MiB in one message, 1 MiB in one call
(a read_all) and 4.5 MiB in one check (the spool's memory check), as does a correct submission written
otherwise. A byte costs at most about 10 once rebuilt (short distinct strings), and reading a message
up to about 20 times its size while it lasts (``json`` builds each tag's dict first). So a check that
keeps all it got holds at most about 10 x CHECK_BYTES (320 MiB), plus one message being read (160
MiB), plus the suite (60 to 150 MiB): under 1 GiB. The grading plugin frees what a check leaves (the
cycles a failed check's exception holds, the failure text cut), so checks do not add up.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from dedup_harness.grade.sandbox import Sandbox
from dedup_harness.grade.worker.protocol import MAX_MESSAGE

# MAX_MESSAGE (8 MiB, in ``worker/messages``): one message; 23 times the most a check needs.
CALL_BYTES = 16 << 20  # one call of the module (read_all counts as one): 16 times the most a check needs
CHECK_BYTES = 32 << 20  # one check case (one pytest item): 7 times the most a check needs
# After a check that received more than this, the grading plugin collects garbage at once: what the
# check got may hang on a failed check's exception, in a cycle with its frames.
COLLECT_AFTER = 4 << 20


@dataclass(frozen=True)
class Overdrawn:
    """Which cap a submission went over, in words for its report."""

    limit: int
    per: str  # "in one message", "in one call", "during one check"

    def words(self, desc: str) -> str:
        return f"{desc} sent the grader more than {self.limit >> 20} MiB {self.per}"


ONE_MESSAGE = Overdrawn(MAX_MESSAGE, "in one message")


class Budget:
    """The bytes one submission has sent in the current call and check, and the seconds it has used.

    A call is one use of the module's surface by a check (``paragraphs(...)``, ``next(output)``,
    ``output.read_all()``...); a request the grader makes while serving it (an output read as the
    input of another stage) belongs to it. A check is what ``new_check`` starts (the plugin calls it
    for each pytest item).
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.charged = 0.0  # seconds of the clocks that have ended
        self.since: float | None = None  # when the running clock started, if one runs
        self.call_bytes = 0
        self.check_bytes = 0
        self.received_bytes = 0  # over the whole grade: what the grading benchmark reports as channel traffic
        self.depth = 0  # calls open: only the outermost starts a new count
        self.overdrawn: Overdrawn | None = None  # the cap this check went over, if it did

    def new_check(self) -> None:
        self.check_bytes = 0
        self.overdrawn = None

    @contextlib.contextmanager
    def call(self) -> Iterator[None]:
        """One call; a call made while it lasts is part of it."""
        if self.depth == 0:
            self.call_bytes = 0
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    def charge(self, size: int) -> Overdrawn | None:
        """Count ``size`` bytes received; the cap they go over, if any (then the check stays over)."""
        self.call_bytes += size
        self.check_bytes += size
        self.received_bytes += size
        if self.check_bytes > CHECK_BYTES:
            self.overdrawn = Overdrawn(CHECK_BYTES, "during one check")
        elif self.call_bytes > CALL_BYTES:
            return Overdrawn(CALL_BYTES, "in one call")
        return self.overdrawn

    @property
    def used_seconds(self) -> float:
        """The seconds used so far, the running clock's included."""
        return self.charged + (time.monotonic() - self.since if self.since is not None else 0.0)

    @property
    def seconds_left(self) -> float:
        return self.seconds - self.used_seconds

    @contextlib.contextmanager
    def clock(self) -> Iterator[None]:
        """Count the time the block takes against the submission's seconds (also when it raises); a clock
        started while another runs counts nothing more (the outer one counts it)."""
        if self.since is not None:
            yield
            return
        self.since = time.monotonic()
        try:
            yield
        finally:
            self.charged += time.monotonic() - self.since
            self.since = None

    def within(self, seconds: float) -> float:
        """``seconds``, or what is left of the submission's seconds if that is less (never below zero)."""
        return max(0.0, min(seconds, self.seconds_left))


class Running(Protocol):
    """What a call asks of the worker's current incarnation once it is over (``exchange.Incarnations``)."""

    @property
    def running(self) -> bool: ...

    def take_refusals(self) -> None: ...

    def stop_if_disk_full(self, desc: str) -> None: ...


@dataclass(frozen=True)
class Calls:
    """One submission's calls: each entered once (``call``), a call made while one lasts (an output read as another
    stage's input) being part of it."""

    sandbox: Sandbox
    budget: Budget
    worker: Running

    @contextlib.contextmanager
    def call(self, desc: str) -> Iterator[None]:
        """The outermost call wakes a paused worker first (a worker that shares the temp folder's disk runs only
        while a call is in flight) and, once over, takes what the kernel refused meanwhile, makes a disk its watch
        found full this call's fault (the watch's verdict stands before whatever the call came to: it is the
        cause), and lets the worker be paused again; its bytes and seconds are the budget's."""
        outermost = self.budget.depth == 0
        if outermost:
            self.sandbox.resume()
        try:
            with self.budget.call():
                yield
        finally:
            if outermost and self.worker.running:
                try:
                    self.worker.take_refusals()
                    self.worker.stop_if_disk_full(desc)
                finally:
                    with self.budget.clock():  # a thread in a long write delays the pause: its time
                        self.sandbox.pause()
