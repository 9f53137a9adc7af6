"""The trusted side of the grading worker: an object with the surface of ``corpus.dedup``, and its outputs.

The checks call the proxy and iterate, ``next()``, ``close()`` and ``read_all()`` its results as if the
module were in-process. Each call is a request to the worker (``exchange``, ``worker/protocol``); its
reply is rebuilt into builtins and ``Doc`` only, so nothing of the submission's making reaches a check
(an ``__eq__`` that is always true stays in the worker). Input goes a batch at a time as the worker
pulls it, so an input that raises mid-way raises at the same point there.

A call is the unit of the budget (``calls``) and of the worker's waking hours. A fault stops the
current incarnation (``exchange.Incarnations``) and a fresh one starts at the next call, so one fault
costs only the check it hits; an output is gone with the incarnation that made it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any, NoReturn

from dedup_harness.grade.client.calls import Budget, Calls
from dedup_harness.grade.client.events import Event, EventLog
from dedup_harness.grade.client.exchange import Exchange, Incarnations, Lent, Reply
from dedup_harness.grade.client.faults import (
    IMPORT_FAILED,
    OutputTooLarge,
    SandboxFailed,
    SubmissionBroken,
    WorkerCrashed,
    WorkerFault,
    WorkerTimeout,
)
from dedup_harness.grade.sandbox import Sandbox
from dedup_harness.grade.worker import protocol as m
from dedup_harness.grade.worker.protocol import OUTPUT, decode, encode, handle, rebuilt

VALUE_ONLY = frozenset({m.VALUE})
BATCHES = frozenset({m.BATCH})
NEXT = "next() on exact_dedup's output"  # what a student reads, for one next() and for read_all alike


class SubmissionProxy:
    """The submission's module surface, one worker behind it (a fresh incarnation after a fault)."""

    def __init__(self, sandbox: Sandbox, *, doc_type: Callable[[], type]) -> None:
        self.sandbox = sandbox
        self.log = EventLog()
        self.budget = Budget(sandbox.limits.submission_seconds)
        self.worker = Incarnations(sandbox, self.log, self.budget)
        self.exchange = Exchange(self.worker, self.budget, self.log, doc_type)
        self.calls = Calls(sandbox, self.budget, self.worker)
        self.surface: dict[str, Any] | None = None
        self.import_error: dict[str, Any] | None = None
        self.broken: str | None = None  # why the submission cannot run at all
        self.broken_by = ""  # the type of the exception its import raised, when that is why

    # -- what the plugin reads and sets -----------------------------------------------------------

    @property
    def current_check(self) -> str:
        """The check now running: its events are filed under it, and it has a byte budget of its own."""
        return self.log.check

    @current_check.setter
    def current_check(self, name: str) -> None:
        self.log.begin(name)
        self.budget.new_check()

    @property
    def events(self) -> list[Event]:
        return self.log.events

    # -- the module's surface -------------------------------------------------------------------

    @property
    def STATS_KEYS(self) -> Any:
        with self.calling("STATS_KEYS"):
            self._ensure_worker()
        entry = (self.surface or {}).get("STATS_KEYS", {})
        if entry.get("kind") != "value" or "value" not in entry:
            self._lacks("STATS_KEYS", "is missing or is not a plain value")
        return decode(entry["value"], self.exchange.doc_type)

    def paragraphs(self, *args: Any, **kwargs: Any) -> Any:
        return self.call("paragraphs", args, kwargs)

    def paragraph_hash(self, *args: Any, **kwargs: Any) -> Any:
        return self.call("paragraph_hash", args, kwargs)

    def bloom_rate(self, *args: Any, **kwargs: Any) -> Any:
        return self.call("bloom_rate", args, kwargs)

    def exact_dedup(self, *args: Any, **kwargs: Any) -> Any:
        return self.call("exact_dedup", args, kwargs)

    def probe(self, tries: dict[str, Any]) -> dict[str, Any]:
        """The isolation probe (``worker/probe``) in this worker: what each try came to, by kind."""
        desc = "the isolation probe"
        with self.calling(desc):
            self._ensure_worker()
            outcomes = self.exchange.outcome(self.exchange.request(desc, lambda n: m.probe(n, tries), VALUE_ONLY), desc)
        if type(outcomes) is not dict:
            self.worker.stop_for_protocol(desc, "a reply that is not a dict")
        return outcomes

    # -- calls ----------------------------------------------------------------------------------

    def calling(self, desc: str) -> contextlib.AbstractContextManager[None]:
        """One call of the module, with every per-call concern (``calls.Calls``)."""
        return self.calls.call(desc)

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        desc = f"{name}()"
        with self.calling(desc):
            self._ensure_worker()
            if (self.surface or {}).get(name, {}).get("kind") != "function":
                self._lacks(name, "is missing or is not a function")
            lent = Lent()
            stage = name == "exact_dedup"
            wire_args = [self._argument(a, lent, docs=(stage and i == 0)) for i, a in enumerate(args)]
            wire_kwargs = {k: self._argument(v, lent, docs=(stage and k == "docs")) for k, v in kwargs.items()}
            if stage and isinstance(kwargs.get("spool_dir"), (str, PurePath)):
                self.sandbox.grant_spool_dir(Path(kwargs["spool_dir"]))
            incarnation = self.worker.incarnation
            reply = self.exchange.request(
                desc, lambda n: m.call(n, name, wire_args, wire_kwargs), frozenset({m.VALUE, m.OUTPUT_MADE})
            )
            if reply.kind == m.OUTPUT_MADE:
                return RemoteOutput(self, reply.value, incarnation, lent)
            return self.exchange.outcome(reply, desc)

    def _argument(self, value: Any, lent: Lent, *, docs: bool) -> Any:
        """An argument on the wire: the docs are lent as an input the worker pulls, a stats dict as a mirror."""
        if isinstance(value, RemoteOutput) and value.incarnation == self.worker.incarnation:
            lent.outputs.append(value)
            return handle(OUTPUT, value.output_id)
        if docs and not isinstance(value, (str, bytes, dict)) and hasattr(value, "__iter__"):
            return self.exchange.lend(lent, value, as_input=True)
        if type(value) is dict and not docs:
            return self.exchange.lend(lent, value, as_input=False)
        return encode(value, self.exchange.doc_type, exact=True)

    def on_output(self, kind: str, output: RemoteOutput, expect: frozenset[str] = VALUE_ONLY) -> Reply | None:
        """A ``next``, ``take`` or ``close`` of ``output``; None when closing an output whose worker is gone."""
        desc = f"{kind}() on exact_dedup's output" if kind != m.TAKE else NEXT
        if output.incarnation != self.worker.incarnation or not self.worker.running:
            if kind == m.CLOSE:
                return None  # its worker is gone, and the spool with it
            raise WorkerCrashed(f"{desc}: the worker behind this output was stopped after an earlier failure")
        return self.exchange.request(desc, lambda n: m.on_output(kind, n, output.output_id), expect)

    # -- the worker's life ------------------------------------------------------------------------

    def start(self) -> None:
        """Start the worker now (it imports the submission) unless it runs already."""
        with self.calling("starting the worker"):
            self._ensure_worker()

    def restart_worker(self) -> None:
        """Stop the worker and start a fresh incarnation."""
        self.worker.stop()
        self.start()

    def worker_pid(self) -> int | None:
        """The running worker's outermost process (bubblewrap's or unshare's, in those tiers), or None.

        It never starts one: the memory gauge asks after a block, and a worker that died in it must not
        be replaced (a start costs the submission's time and could raise out of the gauge).
        """
        return self.worker.pid()

    def _ensure_worker(self) -> None:
        if self.worker.sandbox_error is not None:
            raise SandboxFailed(self.worker.sandbox_error)
        if self.broken is not None:
            raise SubmissionBroken(self.broken, raised=self.broken_by)
        if self.worker.running or self.budget.overdrawn is not None:  # over its bytes: the request says so
            return
        if self.budget.seconds_left <= 0:
            self.worker.stop_for_timeout("starting the worker", None)
        try:
            first = self.exchange.boot()
        except WorkerTimeout:
            if self.budget.seconds_left <= 0:
                raise  # the budget ran out: not the import's fault
            seconds = self.sandbox.limits.call_seconds
            self.broken = f"importing the submission did not finish within {seconds:g} s"
            raise SubmissionBroken(self.broken) from None
        except (WorkerCrashed, OutputTooLarge) as crash:
            self.broken = f"importing the submission failed: {crash}"
            raise SubmissionBroken(self.broken) from None
        self.worker.imported()
        if first[m.KIND] == m.IMPORT_ERROR:
            self.import_error = first[m.ERROR]
            error = rebuilt(self.import_error)
            self.broken, self.broken_by = f"{IMPORT_FAILED}: {type(error).__name__}: {error}", type(error).__name__
            self.log.record("import", self.broken)
            self.worker.stop()
            raise SubmissionBroken(self.broken, raised=self.broken_by)
        if self.surface is None:
            self.surface = first[m.SURFACE]

    def _lacks(self, name: str, what: str) -> NoReturn:
        """The submission lacks ``name``: filed (once, as the report lists it), and raised."""
        detail = f"the submission's {name} {what}"
        self.log.record("missing", detail)
        raise SubmissionBroken(detail)

    def shutdown(self) -> None:
        """Say goodbye (noting threads the submission left running), stop the worker, clean up."""
        self.current_check = "(after the checks)"
        if self.worker.running:
            try:
                with self.calling("the final check-out"):
                    reply = self.exchange.request("the final check-out", m.bye, VALUE_ONLY)
                names = self.exchange.outcome(reply, "the final check-out")
                if names:
                    shown = ", ".join(map(str, list(names)[:5]))
                    self.log.record("threads", f"the submission left {len(names)} thread(s) running: {shown}; killed")
            except (WorkerFault, Exception):
                pass  # whatever the submission did at the end, it is stopped
            self.worker.stop()
        self.log.close()
        printed, limit = self.sandbox.output_bytes(), self.sandbox.limits.output_bytes
        if self.worker.discarded:
            read = self.sandbox.limits.output_read_bytes
            self.log.record(
                "output",
                f"printed more than {printed} bytes; the report keeps the first {limit}, and once a worker had printed "
                f"{read} it was told to discard the rest uncounted",
            )
        elif printed > limit:
            self.log.record("output", f"printed {printed} bytes; the report keeps the first {limit}")


class RemoteOutput:
    """An output of the submission's ``exact_dedup``: an iterator that lives in the worker, seen from here.

    It is named to the worker by its output id, and belongs to the worker's incarnation that made it:
    once that incarnation is stopped, the output is gone (a ``close`` then does nothing, a ``next`` is
    a fault). It keeps alive what its call lent the worker (its input, its stats dict) as long as it
    lives. ``next``, ``close`` and ``read_all`` are each one call of the module.
    """

    def __init__(self, proxy: SubmissionProxy, output_id: int, incarnation: int, lent: Lent) -> None:
        self.proxy = proxy
        self.output_id = output_id
        self.incarnation = incarnation
        self.lent = lent

    def __iter__(self) -> RemoteOutput:
        return self

    def __next__(self) -> Any:
        with self.proxy.calling(NEXT):
            reply = self.proxy.on_output(m.NEXT, self)
            assert reply is not None
            return self.proxy.exchange.outcome(reply, NEXT)

    def close(self) -> None:
        desc = "close() on exact_dedup's output"
        with self.proxy.calling(desc):
            reply = self.proxy.on_output(m.CLOSE, self)
            if reply is not None:
                self.proxy.exchange.outcome(reply, desc)

    def read_all(self) -> list[Any]:
        """Every output still to come, as ``list(self)`` gives it, a batch of documents per round trip."""
        outputs: list[Any] = []
        with self.proxy.calling(NEXT):
            while True:
                reply = self.proxy.on_output(m.TAKE, self, BATCHES)
                assert reply is not None
                if reply.kind == m.STOP:
                    return outputs
                if reply.kind != m.BATCH:
                    self.proxy.exchange.outcome(reply, NEXT)  # raises the submission's error or exit
                outputs += reply.value
                if reply.done:
                    return outputs
