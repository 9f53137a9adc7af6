"""The grader's end of the worker: its incarnations (started, stopped, the faults that end one), and the requests
made of the current one, their replies, and the pulls between.

A reply is taken only from a message naming its request (``protocol``): one naming a request abandoned
earlier is dropped (its bytes still count), one naming a request still open under the current one or
never made is a protocol fault. While a request is open the exchange feeds the worker's pulls a batch
at a time, serving any request the input makes of the same worker meanwhile.

Everything received counts against the submission's budget (``calls``) before it is read as JSON, and
so do the seconds spent writing to the worker; the seconds the check's own input takes do not. No
wait outlasts the call's limit or the submission's time. A fault on the channel stops the incarnation,
files the event and raises; so does a request left open by an exception (the check's own time limit,
say), whose reply would otherwise come in the middle of the next check. Notices of refused attempts
are recorded on the way to the message awaited, and a worker that has printed more than the grader
reads is told to discard the rest before the next request (``protocol.quiet``).
"""

from __future__ import annotations

import itertools
import subprocess
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar

from dedup_harness.grade.client.calls import ONE_MESSAGE, Budget, Overdrawn
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
from dedup_harness.grade.worker import categories
from dedup_harness.grade.worker import protocol as m
from dedup_harness.grade.worker.protocol import (
    INNER,
    INPUT,
    MAX_TEXT,
    MIRROR,
    Channel,
    ChannelClosed,
    ChannelGarbage,
    ChannelOverflow,
    ChannelTimeout,
    WireError,
    decode,
    described,
    encode,
    handle,
    parse_line,
    pull_batch,
    rebuilt,
)

DECODE_ERRORS = (WireError, RecursionError, ValueError, TypeError, KeyError, IndexError)
ABOUT_A_REQUEST = m.REPLIES | {m.PULL}
ALWAYS = frozenset({m.STOP, m.ERROR, m.EXIT})  # replies any request may get
NOTICE_CHARACTERS = 300  # of an attempt notice, kept in the report
Fault = TypeVar("Fault", bound=WorkerFault)


@dataclass(frozen=True)
class Reply:
    """The reply that ended a request, rebuilt: its kind (``protocol.REPLIES``) and what it carries.

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


class Incarnations:
    """The worker's incarnations: the current one (if one runs), its channel, and the faults that end it.

    An incarnation is one worker process, from its start to its stop, numbered from 1. Starting one waits for
    its first word, sent once it has confined itself and before it imports anything of the submission: a
    worker that cannot say it is the grader's failure, not the student's. A fault stops the incarnation it
    happened in (its state is unknown from then on), files an event, and raises the ``WorkerFault`` the check
    sees: every ``stop_for_*`` method does all three. The next call starts the next incarnation. Starting and
    stopping are waits like any other: their seconds are the submission's, cut at what is left of them.
    """

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
        to be told now (``protocol.quiet``): its output is discarded in the worker from then on."""
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
        """``desc`` sent more bytes than a message, a call or a check may (``calls``)."""
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


class Exchange:
    """Requests to the worker's current incarnation, each awaited to its own reply, every byte charged."""

    def __init__(self, worker: Incarnations, budget: Budget, events: EventLog, doc_type: Callable[[], type]) -> None:
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
