"""The grader's end of the channel to the worker's current incarnation, every message accounted for.

What comes in is charged to the submission's budget (``budget``) before it is read as JSON: its
bytes, against the call and the check; the seconds spent waiting for it and reading it, against the
submission's time. What goes wrong on the channel becomes the fault the check sees (``WorkerLife``
stops the incarnation and says what happened). Notices of refused attempts, which the worker sends
whenever its audit hook refuses something, are recorded on the way to the message awaited.
"""

from __future__ import annotations

import time
from typing import Any

from dedup_harness.grade.budget import ONE_MESSAGE, Budget
from dedup_harness.grade.faults import EventLog
from dedup_harness.grade.worker import audit
from dedup_harness.grade.worker import messages as m
from dedup_harness.grade.worker.channel import (
    ChannelClosed,
    ChannelGarbage,
    ChannelOverflow,
    ChannelTimeout,
    parse_line,
)
from dedup_harness.grade.worker_life import WorkerLife

NOTICE_CHARACTERS = 300  # of an attempt notice, kept in the report


class Link:
    """Messages to and from the current incarnation of the worker, within the submission's budget."""

    def __init__(self, life: WorkerLife, budget: Budget, events: EventLog) -> None:
        self.life = life
        self.limits = life.limits
        self.budget = budget
        self.events = events

    # -- starting an incarnation -------------------------------------------------------------------

    def boot(self) -> dict[str, Any]:
        """Start the next incarnation; its READY or IMPORT_ERROR message (the import counts as the submission's)."""
        self.life.spawn()
        self._await_start()
        with self.budget.clock():
            return self.receive("importing the submission", self.limits.call_seconds, {m.READY, m.IMPORT_ERROR})

    def _await_start(self) -> None:
        """The worker's first word, before it imports anything of the submission: it runs, confined.

        Anything else (it died, hung, could not confine itself) is the grader's failure: no student
        code had run yet.
        """
        assert self.life.channel is not None
        seconds = self.limits.call_seconds
        try:
            line = self.life.channel.receive_line(time.monotonic() + seconds)
            first = m.checked(parse_line(line), frozenset({m.STARTED, m.CONFINE_ERROR}))
        except ChannelTimeout:
            raise self.life.sandbox_failed(f"no word from it within {seconds:g} s", ended=False) from None
        except ChannelClosed:
            raise self.life.sandbox_failed("it ended before it could say it had started") from None
        except ChannelOverflow:
            raise self.life.sandbox_failed(f"a first message over {m.MAX_MESSAGE >> 20} MiB") from None
        except (ChannelGarbage, m.MessageError) as what:
            raise self.life.sandbox_failed(str(what)) from None
        if first[m.KIND] == m.CONFINE_ERROR:
            raise self.life.sandbox_failed(f"it could not confine itself: {first[m.TEXT][:500]}")
        version = ".".join(map(str, first[m.VERSION]))
        self.life.sandbox.protections.confined(first[m.CONFINEMENT], version)
        assert self.life.process is not None
        # Handed over (or not) before its first word: the wait only lets the listening thread catch up.
        listening = self.life.process.refusals.listening(self.limits.call_seconds)
        self.life.sandbox.protections.refusals_reported(listening)

    # -- messages --------------------------------------------------------------------------------------

    def receive(self, desc: str, left: float, kinds: frozenset[str] | set[str]) -> dict[str, Any]:
        """The next message of ``kinds`` within ``left`` seconds and what remains of the submission's;
        notices of refused attempts that come meanwhile are recorded."""
        ran_out = self.budget.seconds_left < left
        if min(left, self.budget.seconds_left) <= 0:  # reading and rebuilding what came took the time
            raise self.life.timed_out(desc, None if ran_out else self.limits.call_seconds)
        deadline = time.monotonic() + min(left, self.budget.seconds_left)
        while True:
            message = self._read(desc, deadline, ran_out, frozenset(kinds) | {m.ATTEMPT})
            self.life.take_refusals()
            if message[m.KIND] != m.ATTEMPT:
                return message
            note = message[m.TEXT][:NOTICE_CHARACTERS]
            self.events.record("attempt", note, category=audit.category_of(note))

    def _read(self, desc: str, deadline: float, ran_out: bool, kinds: frozenset[str]) -> dict[str, Any]:
        """One message, its bytes charged before it is read as JSON."""
        channel = self.life.channel
        assert channel is not None, "no worker is running"
        try:
            line = channel.receive_line(deadline, watch=lambda: self.life.check_disk(desc))
        except ChannelTimeout:
            raise self.life.timed_out(desc, None if ran_out else self.limits.call_seconds) from None
        except ChannelClosed:
            raise self.life.crashed(desc) from None
        except ChannelOverflow:
            self.budget.charge(len(channel.buffer))
            raise self.life.too_large(desc, ONE_MESSAGE) from None
        overdrawn = self.budget.charge(len(line) + 1)
        if overdrawn is not None:
            raise self.life.too_large(desc, overdrawn)
        try:
            return m.checked(parse_line(line), kinds)
        except (ChannelGarbage, m.MessageError) as what:
            raise self.life.protocol(desc, str(what)) from None

    def send(self, message: dict[str, Any], desc: str) -> None:
        assert self.life.channel is not None, "no worker is running"
        try:
            self.life.channel.send(message, time.monotonic() + self.limits.call_seconds)
        except ChannelTimeout:
            raise self.life.timed_out(desc, self.limits.call_seconds) from None
        except ChannelClosed:
            raise self.life.crashed(desc) from None
