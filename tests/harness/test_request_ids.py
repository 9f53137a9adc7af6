"""A reply is taken only by the request it names, and every byte of it counts against the budget.

A stand-in worker on a pair of pipes (the shared ``Channel``, in a thread) writes exactly the lines
each case needs, well-formed or not; no submission code runs here. The real worker's side is graded
in test_proxy_worker.py and test_output_floods.py.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import pytest

from corpus.doc import Doc
from dedup_harness.grade.client import calls as budget_module
from dedup_harness.grade.client import exchange as exchange_module
from dedup_harness.grade.client.calls import CALL_BYTES, Budget
from dedup_harness.grade.client.events import EventLog
from dedup_harness.grade.client.exchange import Exchange, Incarnations, Lent
from dedup_harness.grade.client.faults import OutputTooLarge, WorkerCrashed, WorkerTimeout
from dedup_harness.grade.sandbox import Limits, WorkerProcess
from dedup_harness.grade.worker import protocol as m
from dedup_harness.grade.worker import protocol as wire
from dedup_harness.grade.worker.protocol import Channel, ChannelClosed, encode

Peer = Callable[[Channel], None]


@dataclass
class StandInProcess:
    pid: int = 0

    def wait(self, timeout: float) -> int:
        return 0


class NoRefusals:
    """A thread has no seccomp filter: the kernel reports nothing."""

    def take(self) -> list[str]:
        return []

    def close(self) -> None:
        pass


@dataclass
class StandInSandbox:
    """What WorkerLife asks of a sandbox, for a worker that is a thread of this process."""

    limits: Limits = field(default_factory=lambda: Limits(call_seconds=20, submission_seconds=60))
    tier: str = "none"
    stopped: int = 0

    def stop(self, worker: WorkerProcess) -> None:
        self.stopped += 1
        for fd in (worker.request_fd, worker.reply_fd):
            os.close(fd)

    def disk_overrun(self, *, look_now: bool = False) -> str | None:
        return None

    def pause(self) -> None:
        """A thread is not paused between calls (the real sandbox pauses a worker without namespaces)."""

    def resume(self) -> None:
        pass


@dataclass
class Linked:
    exchange: Exchange
    sandbox: StandInSandbox
    log: EventLog
    budget: Budget


@pytest.fixture
def linked() -> Iterator[Callable[[Peer], Linked]]:
    """Connect an exchange to a stand-in worker running ``peer``; its first incarnation is running."""
    threads: list[threading.Thread] = []

    def connect(peer: Peer) -> Linked:
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        sandbox, log = StandInSandbox(), EventLog()
        budget = Budget(sandbox.limits.submission_seconds)
        worker = Incarnations(sandbox, log, budget)  # type: ignore[arg-type]
        worker.process = WorkerProcess(StandInProcess(), request_write, reply_read, [], NoRefusals())  # type: ignore[arg-type]
        worker.channel = Channel(reply_read, request_write, longest=m.MAX_MESSAGE)
        worker.incarnation = 1

        def run() -> None:
            # The grader may stop listening mid-line: then there is nothing more to say.
            with os.fdopen(request_read, "rb"), os.fdopen(reply_write, "wb"), suppress(OSError, ChannelClosed):
                peer(Channel(request_read, reply_write))

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        threads.append(thread)
        return Linked(Exchange(worker, budget, log, lambda: Doc), sandbox, log, budget)

    yield connect
    for thread in threads:
        thread.join(timeout=30)


def ask_for_a_value(exchange: Exchange) -> Any:
    reply = exchange.request("paragraphs()", lambda n: m.call(n, "paragraphs", ["a"], {}), frozenset({m.VALUE}))
    return reply.value


def value(request: int, contents: Any) -> dict[str, Any]:
    return m.with_mirrors(m.value(request, encode(contents, Doc, exact=False)), [])


def test_a_reply_to_an_abandoned_request_is_dropped_and_the_awaited_one_taken(linked: Any) -> None:
    """The reply left over from an earlier request comes first; the request gets its own answer."""

    def peer(channel: Channel) -> None:
        asked = channel.receive()
        channel.send(value(asked[m.ID] - 1, ["stale"]))
        channel.send(value(asked[m.ID], ["fresh"]))

    link = linked(peer)
    assert ask_for_a_value(link.exchange) == ["fresh"]
    assert link.log.events == [] and link.sandbox.stopped == 0


def test_a_reply_to_a_request_never_made_is_a_protocol_fault(linked: Any) -> None:
    def peer(channel: Channel) -> None:
        asked = channel.receive()
        channel.send(value(asked[m.ID] + 7, ["forged"]))

    link = linked(peer)
    with pytest.raises(WorkerCrashed, match="a message about request"):
        ask_for_a_value(link.exchange)
    assert [e.kind for e in link.log.events] == ["protocol"] and link.sandbox.stopped == 1


def test_a_reply_without_the_id_it_answers_is_a_protocol_fault(linked: Any) -> None:
    def peer(channel: Channel) -> None:
        channel.receive()
        channel.send({m.KIND: m.VALUE, m.VALUE: "no id", m.MIRRORS: []})

    link = linked(peer)
    with pytest.raises(WorkerCrashed, match="without a proper 're'"):
        ask_for_a_value(link.exchange)


def test_a_message_over_the_limit_is_output_too_large_and_stops_the_worker(linked: Any) -> None:
    def peer(channel: Channel) -> None:
        asked = channel.receive()
        channel.send(value(asked[m.ID], "x" * (m.MAX_MESSAGE + 1)))

    link = linked(peer)
    with pytest.raises(OutputTooLarge, match="more than 8 MiB in one message"):
        ask_for_a_value(link.exchange)
    assert link.log.events[0].kind == "output too large" and link.sandbox.stopped == 1


def test_dropped_replies_count_against_the_call_all_the_same(linked: Any) -> None:
    """A flood of stale replies, each well under the limit on one message, ends at the call's cap."""
    chunk = "y" * (1 << 20)

    def peer(channel: Channel) -> None:
        asked = channel.receive()
        for _ in range(CALL_BYTES >> 20):
            channel.send(value(asked[m.ID] - 1, chunk))
        channel.send(value(asked[m.ID], "never read"))

    link = linked(peer)
    with link.budget.call(), pytest.raises(OutputTooLarge, match="more than 16 MiB in one call"):
        ask_for_a_value(link.exchange)


def test_a_check_over_its_bytes_asks_the_worker_nothing_more(linked: Any) -> None:
    def peer(channel: Channel) -> None:
        asked = channel.receive()
        channel.send(value(asked[m.ID], "z" * (6 << 20)))

    link = linked(peer)
    link.budget.check_bytes = link.budget.check_bytes + (30 << 20)  # what the check's earlier calls received
    with pytest.raises(OutputTooLarge, match="during one check"):
        ask_for_a_value(link.exchange)
    with pytest.raises(OutputTooLarge, match="during one check"):
        ask_for_a_value(link.exchange)
    assert len(link.log.events) == 1, "one line per check, however many of its calls hit the cap"


class StoppedClock:
    """A clock that moves only when told: the budget's, for a test that must not time anything."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


def test_rebuilding_a_reply_counts_as_the_submissions_time(linked: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The seconds spent rebuilding a value (here a clock moved by 5 s while it is rebuilt) are the submission's."""
    clock = StoppedClock()

    def slow_decode(value: Any, doc_type: type, **options: Any) -> Any:
        clock.now += 5.0
        return wire.decode(value, doc_type, **options)

    monkeypatch.setattr(budget_module, "time", clock)
    monkeypatch.setattr(exchange_module, "decode", slow_decode)

    def peer(channel: Channel) -> None:
        asked = channel.receive()
        channel.send(value(asked[m.ID], ["rebuilt"]))

    link = linked(peer)
    assert ask_for_a_value(link.exchange) == ["rebuilt"]
    assert link.budget.used_seconds == 5.0


def test_a_worker_that_never_reads_the_input_it_asked_for_is_stopped_when_its_seconds_run_out(linked: Any) -> None:
    """It asks for its input and reads none of it: the grader's write of the batch blocks on a full pipe. That wait
    is the submission's: it is charged, and the submission's budget (not the call's 20 s limit) ends it."""
    over = threading.Event()

    def peer(channel: Channel) -> None:
        asked = channel.receive()
        channel.send(m.with_mirrors(m.pull(asked[m.ID], 1, asked[m.ARGS][0][wire.HANDLE_ID]), []))
        over.wait(30)  # never reads: the grader's feed stays in the pipe

    link = linked(peer)
    link.sandbox.limits = Limits(call_seconds=20, submission_seconds=0.5)
    link.budget.seconds = 0.5
    docs = (Doc(str(n), "x" * 100_000) for n in range(100))  # one batch of these is larger than a pipe holds
    lent = Lent()
    handle = link.exchange.lend(lent, docs, as_input=True)
    with pytest.raises(WorkerTimeout, match=r"used up its 0\.5 s of worker time \(exact_dedup\(\)\)"):
        link.exchange.request(
            "exact_dedup()", lambda n: m.call(n, "exact_dedup", [handle], {}), frozenset({m.VALUE, m.OUTPUT_MADE})
        )
    over.set()
    assert link.budget.used_seconds >= 0.5
    assert link.sandbox.stopped == 1
