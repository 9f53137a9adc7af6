"""The grader's side of the conversation with the worker: messages, requests, their replies, and the pulls between.

Every request gets a number never used before (``messages``), and the exchange takes as its reply
only a message that names it. A message naming a request abandoned earlier is dropped (it still
counts against the budget); one naming a request still open under the current one, or one never
made, is a protocol fault. While a request is open, the worker may pull the caller's input: the
exchange feeds it a batch at a time (``batches``), serving any request the input makes of the same
worker meanwhile (an output read as the input of another stage).

Everything received counts against the submission's budget (``budget``) before it is read as JSON:
its bytes, against the call and the check; the seconds spent waiting for it, reading it and
rebuilding its values, against the submission's time, and so do the seconds spent writing to the
worker (a request, a batch of input it asked for and does not read), never the seconds the check's
own input takes to make its documents. A call's time limit counts every one of those seconds too,
and no wait outlasts the call's limit or the submission's time. What goes wrong on the channel
becomes the fault the check sees: the worker (``worker``) stops the incarnation, files the event and
raises. A request left open by an exception (the check's own time limit, say) stops the worker too:
it may still be busy with it, or waiting to be fed, and its reply would otherwise come in the middle
of the next check. Notices of refused attempts, which the worker sends whenever its audit hook
refuses something, are recorded on the way to the message awaited. A worker that has printed more
than the grader reads is told, before the next request, to discard the rest (``messages.quiet``).
"""

from __future__ import annotations

import itertools
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from dedup_harness.grade.client.budget import ONE_MESSAGE, Budget
from dedup_harness.grade.client.events import EventLog
from dedup_harness.grade.client.faults import SubmissionExited, WorkerCrashed
from dedup_harness.grade.client.worker import Worker
from dedup_harness.grade.worker import categories
from dedup_harness.grade.worker import messages as m
from dedup_harness.grade.worker.batches import pull_batch
from dedup_harness.grade.worker.channel import (
    ChannelClosed,
    ChannelGarbage,
    ChannelOverflow,
    ChannelTimeout,
    parse_line,
)
from dedup_harness.grade.worker.wire import (
    INNER,
    INPUT,
    MAX_TEXT,
    MIRROR,
    WireError,
    decode,
    described,
    encode,
    handle,
    rebuilt,
)

DECODE_ERRORS = (WireError, RecursionError, ValueError, TypeError, KeyError, IndexError)
ABOUT_A_REQUEST = m.REPLIES | {m.PULL}
ALWAYS = frozenset({m.STOP, m.ERROR, m.EXIT})  # replies any request may get
NOTICE_CHARACTERS = 300  # of an attempt notice, kept in the report


@dataclass(frozen=True)
class Reply:
    """The reply that ended a request, rebuilt: its kind (``messages.REPLIES``) and what it carries.

    ``value``: the value (VALUE), the new output's id (OUTPUT_MADE), the documents (BATCH), the
    exception (ERROR, rebuilt as a builtin) or the words (EXIT). ``done``: a BATCH is the output's last.
    """

    kind: str
    value: Any = None
    done: bool = False


@dataclass(eq=False)
class Lent:
    """What one call lent the worker, by handle id: the caller's input iterators and stats dicts.

    The exchange knows it only weakly: it lives while the call runs and, if the call made an
    output, as long as that output does, so a stats dict is forgotten with the check that made it.
    """

    inputs: dict[int, Iterator[Any]] = field(default_factory=dict)
    mirrors: dict[int, dict[Any, Any]] = field(default_factory=dict)
    # Outputs in the worker the call was given as its input: the worker may still pull from what they
    # were lent, so it lives as long as this does.
    outputs: list[Any] = field(default_factory=list)


class Exchange:
    """Requests to the worker's current incarnation, each awaited to its own reply, every byte charged."""

    def __init__(self, worker: Worker, budget: Budget, events: EventLog, doc_type: Callable[[], type]) -> None:
        self.worker = worker
        self.budget = budget
        self.events = events
        self._doc_type_factory = doc_type
        self._doc_type: type | None = None
        self.numbers = itertools.count(1)  # request ids and handle ids alike: none is used twice
        self.open: list[int] = []  # the requests awaiting their reply, innermost last
        self.lent: weakref.WeakValueDictionary[int, Lent] = weakref.WeakValueDictionary()

    @property
    def doc_type(self) -> type:
        if self._doc_type is None:
            self._doc_type = self._doc_type_factory()
        return self._doc_type

    @property
    def call_seconds(self) -> float:
        return self.worker.sandbox.limits.call_seconds

    # -- starting an incarnation ------------------------------------------------------------------

    def boot(self) -> dict[str, Any]:
        """Start the next incarnation; its READY or IMPORT_ERROR message (the start and the import count as the
        submission's)."""
        with self.budget.clock():
            self.worker.start()
            return self._receive("importing the submission", self.call_seconds, {m.READY, m.IMPORT_ERROR})

    # -- what a call lends ----------------------------------------------------------------------

    def lend(self, lent: Lent, value: Any, *, as_input: bool) -> dict[str, Any]:
        """A handle to ``value``: the caller's input documents (pulled by the worker), or its stats dict."""
        number = next(self.numbers)
        self.lent[number] = lent
        if as_input:
            lent.inputs[number] = iter(value)
            return handle(INPUT, number)
        lent.mirrors[number] = value
        return handle(MIRROR, number, encode(value, self.doc_type, exact=True)[INNER])

    # -- requests -------------------------------------------------------------------------------

    def request(self, desc: str, build: Callable[[int], dict[str, Any]], expect: frozenset[str]) -> Reply:
        """Send the request ``build(its id)`` and await its reply (of ``expect``, or STOP, ERROR, EXIT)."""
        if self.budget.overdrawn is not None:  # this check is over its bytes already: no more asking
            self.worker.stop_for_size(desc, self.budget.overdrawn)
        number, incarnation = next(self.numbers), self.worker.incarnation
        self.open.append(number)
        try:
            reply = self._await_reply(number, build(number), desc)
        except BaseException:
            if self.worker.running and self.worker.incarnation == incarnation:
                self.worker.stop()  # abandoned: the worker's state is unknown from here on
            raise
        finally:
            self.open.pop()
        if reply.kind not in expect | ALWAYS:
            self.worker.stop_for_protocol(desc, f"a reply of the wrong kind ({reply.kind})")
        return reply

    def outcome(self, reply: Reply, desc: str) -> Any:
        """What the check gets of a reply: the value, or the submission's exception raised."""
        if reply.kind == m.STOP:
            raise StopIteration
        if reply.kind == m.ERROR:
            if isinstance(reply.value, MemoryError):
                limit = self.worker.sandbox.limits.memory_bytes >> 20
                self.events.record("memory", f"ran out of memory during {desc} (limit {limit} MiB)")
            raise reply.value
        if reply.kind == m.EXIT:
            detail = f"the submission raised {reply.value} during {desc}"
            self.events.record("exit", detail)
            raise SubmissionExited(detail)
        return reply.value

    def _await_reply(self, number: int, request: dict[str, Any], desc: str) -> Reply:
        """Send ``request`` and await its reply, feeding the pulls that come meanwhile, within the call's limit;
        a worker that has printed more than the grader reads is told first to discard the rest."""
        left = self.call_seconds
        if self.worker.quiet_now():
            left -= self._send(m.quiet(), desc, left)
        left -= self._send(request, desc, left)
        while True:
            started = time.monotonic()
            with self.budget.clock():
                got = self._next_about(number, desc, left)
            left -= time.monotonic() - started
            if isinstance(got, Reply):
                return got
            if got is not None:
                left -= self._feed(got, desc, left)

    def _next_about(self, number: int, desc: str, left: float) -> Reply | dict[str, Any] | None:
        """The next message about request ``number``: its reply (rebuilt), a pull, or None (a stale one, dropped)."""
        message = self._receive(desc, left, ABOUT_A_REQUEST)
        about = message[m.RE]
        if about != number:
            if about < number and about not in self.open:
                return None  # about a request abandoned earlier
            self.worker.stop_for_protocol(desc, f"a message about request {about} while {number} was awaited")
        self._absorb(message[m.MIRRORS], desc)
        return message if message[m.KIND] == m.PULL else self._rebuilt(message, desc)

    def _rebuilt(self, message: dict[str, Any], desc: str) -> Reply:
        kind = message[m.KIND]
        try:
            if kind == m.VALUE:
                return Reply(kind, decode(message[m.VALUE], self.doc_type))
            if kind == m.BATCH:
                if not (message[m.ITEMS] or message[m.DONE]):
                    raise WireError("a malformed batch of outputs (empty, and not the last)")
                return Reply(kind, [decode(item, self.doc_type) for item in message[m.ITEMS]], message[m.DONE])
            if kind == m.ERROR:
                return Reply(kind, rebuilt(message[m.ERROR]))
        except DECODE_ERRORS as error:
            self.worker.stop_for_protocol(desc, str(error))
        if kind == m.OUTPUT_MADE:
            return Reply(kind, message[m.OUTPUT])
        return Reply(kind, message[m.TEXT][:MAX_TEXT] if kind == m.EXIT else None)

    def _absorb(self, mirrors: list[Any], desc: str) -> None:
        """The stats dicts' contents as the worker has them, into the caller's dicts."""
        try:
            for key, value in mirrors:
                lent = self.lent.get(key) if type(key) is int else None
                target = lent.mirrors.get(key) if lent is not None else None
                contents = decode(value, self.doc_type)
                if target is not None and type(contents) is dict:
                    target.clear()
                    target.update(contents)
        except DECODE_ERRORS as error:
            self.worker.stop_for_protocol(desc, str(error))

    def _feed(self, pull: dict[str, Any], desc: str, left: float) -> float:
        """Answer a pull with the next batch of the caller's input, or how it ended, within ``left`` seconds; the
        seconds the answer took to send (making the batch is the check's own time)."""
        input_id = pull[m.INPUT]
        lent = self.lent.get(input_id)
        source = lent.inputs.get(input_id) if lent is not None else None
        if lent is None or source is None:
            self.worker.stop_for_protocol(desc, "a pull for an unknown input")
        incarnation, batch = self.worker.incarnation, pull_batch()
        end: str | dict[str, str] | None = None
        try:
            while not batch.full:
                batch.add(encode(next(source), self.doc_type, exact=True))
        except StopIteration:
            end = m.STOP
            del lent.inputs[input_id]
        except Exception as error:  # the input raised: the worker sees the same failure at the same point
            end = described(error)
            del lent.inputs[input_id]
        if incarnation != self.worker.incarnation or not self.worker.running:
            raise WorkerCrashed(f"the worker was stopped while {desc} read its input")
        return self._send(m.feed(pull[m.ID], batch.items, end), desc, left)

    # -- messages on the channel ----------------------------------------------------------------

    def _deadline(self, desc: str, left: float) -> tuple[float, bool]:
        """When a wait of at most ``left`` seconds ends, and whether the submission's seconds end it first; a
        timeout at once if there is no time left (reading and rebuilding what came took it)."""
        ran_out = self.budget.seconds_left < left
        if self.budget.within(left) <= 0:
            self.worker.stop_for_timeout(desc, None if ran_out else self.call_seconds)
        return time.monotonic() + self.budget.within(left), ran_out

    def _receive(self, desc: str, left: float, kinds: frozenset[str] | set[str]) -> dict[str, Any]:
        """The next message of ``kinds`` within ``left`` seconds and what remains of the submission's;
        notices of refused attempts that come meanwhile are recorded."""
        deadline, ran_out = self._deadline(desc, left)
        while True:
            message = self._read(desc, deadline, ran_out, frozenset(kinds) | {m.ATTEMPT})
            self.worker.take_refusals()
            if message[m.KIND] != m.ATTEMPT:
                return message
            category = message.get(m.CATEGORY, categories.NONE)
            self.events.record(
                "attempt",
                message[m.TEXT][:NOTICE_CHARACTERS],
                category=category if category in categories.CATEGORIES else categories.NONE,
            )

    def _read(self, desc: str, deadline: float, ran_out: bool, kinds: frozenset[str]) -> dict[str, Any]:
        """One message, its bytes charged before it is read as JSON."""
        channel = self.worker.channel
        assert channel is not None, "no worker is running"
        try:
            line = channel.receive_line(deadline)
        except ChannelTimeout:
            self.worker.stop_for_timeout(desc, None if ran_out else self.call_seconds)
        except ChannelClosed:
            self.worker.stop_for_crash(desc)
        except ChannelOverflow:
            self.budget.charge(len(channel.buffer))
            self.worker.stop_for_size(desc, ONE_MESSAGE)
        overdrawn = self.budget.charge(len(line) + 1)
        if overdrawn is not None:
            self.worker.stop_for_size(desc, overdrawn)
        try:
            return m.checked(parse_line(line), kinds)
        except (ChannelGarbage, m.MessageError) as what:
            self.worker.stop_for_protocol(desc, str(what))

    def _send(self, message: dict[str, Any], desc: str, left: float) -> float:
        """Write ``message`` within ``left`` seconds and what remains of the submission's; the seconds it took,
        charged (a worker that does not read blocks the write)."""
        channel = self.worker.channel
        assert channel is not None, "no worker is running"
        started = time.monotonic()
        with self.budget.clock():
            deadline, ran_out = self._deadline(desc, left)
            try:
                channel.send(message, deadline)
            except ChannelTimeout:
                self.worker.stop_for_timeout(desc, None if ran_out else self.call_seconds)
            except ChannelClosed:
                self.worker.stop_for_crash(desc)
        return time.monotonic() - started
