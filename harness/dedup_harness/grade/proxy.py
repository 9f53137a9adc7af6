"""The trusted side of the grading worker: an object with the surface of ``corpus.dedup``.

The checks call ``proxy.paragraphs(text)``, ``proxy.exact_dedup(docs, B, spool_dir=..., stats=...)``
and iterate, ``next()``, ``close()`` and ``read_all()`` the result as if the module were in-process.
Each call goes to the worker (``grade/worker``) as a request (``exchange``); replies are rebuilt here
into builtin types and ``Doc`` only, never unpickled, so no object of the submission's making ever
reaches a check (an ``__eq__`` that is always true stays in the worker). Input documents go to the
worker a batch at a time as it pulls them, so an input that raises mid-way raises at the same point
in the worker.

A fault (the worker died, hung, sent too much or something malformed) stops the worker's current
incarnation (``worker_life``), and a fresh one starts at the next call, so one fault costs only the
check it hits. An output belongs to the incarnation that made it and is gone with it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any

from dedup_harness.grade.budget import Budget
from dedup_harness.grade.exchange import Exchange, Lent, Reply
from dedup_harness.grade.faults import (
    IMPORT_FAILED,
    Event,
    EventLog,
    OutputTooLarge,
    SandboxFailed,
    SubmissionBroken,
    WorkerCrashed,
    WorkerFault,
    WorkerTimeout,
)
from dedup_harness.grade.link import Link
from dedup_harness.grade.remote_output import RemoteOutput
from dedup_harness.grade.sandbox import Sandbox
from dedup_harness.grade.worker import messages as m
from dedup_harness.grade.worker.wire import OUTPUT, decode, encode, handle, rebuilt
from dedup_harness.grade.worker_life import WorkerLife

VALUE_ONLY = frozenset({m.VALUE})


class SubmissionProxy:
    """The submission's module surface, one worker behind it (a fresh incarnation after a fault)."""

    def __init__(self, sandbox: Sandbox, *, doc_type: Callable[[], type]) -> None:
        self.sandbox = sandbox
        self.limits = sandbox.limits
        self.log = EventLog()
        self.budget = Budget(self.limits.submission_seconds)
        self.life = WorkerLife(sandbox, self.log)
        self.exchange = Exchange(Link(self.life, self.budget, self.log), doc_type)
        self.surface: dict[str, Any] | None = None
        self.import_error: dict[str, Any] | None = None
        self.broken: str | None = None  # why the submission cannot run at all

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

    @property
    def starts(self) -> int:
        return self.life.incarnation

    @property
    def start_seconds(self) -> list[float]:
        return self.life.start_seconds

    @property
    def used_seconds(self) -> float:
        return self.budget.used_seconds

    # -- the module's surface -------------------------------------------------------------------

    @property
    def STATS_KEYS(self) -> Any:
        with self.budget.call():
            self._ensure_worker()
        entry = (self.surface or {}).get("STATS_KEYS", {})
        if entry.get("kind") != "value" or "value" not in entry:
            raise self._missing("STATS_KEYS", "is missing or is not a plain value")
        return decode(entry["value"], self.exchange.doc_type)

    def paragraphs(self, *args: Any, **kwargs: Any) -> Any:
        return self.call("paragraphs", args, kwargs)

    def paragraph_hash(self, *args: Any, **kwargs: Any) -> Any:
        return self.call("paragraph_hash", args, kwargs)

    def bloom_rate(self, *args: Any, **kwargs: Any) -> Any:
        return self.call("bloom_rate", args, kwargs)

    def exact_dedup(self, *args: Any, **kwargs: Any) -> Any:
        return self.call("exact_dedup", args, kwargs)

    def probe(self, tries: dict[str, Any]) -> dict[str, str]:
        """The isolation probe (``worker/probe``) in this worker: each try's outcome, by name."""
        desc = "the isolation probe"
        with self.budget.call():
            self._ensure_worker()
            outcomes = self.exchange.outcome(self.exchange.request(desc, lambda n: m.probe(n, tries), VALUE_ONLY), desc)
        if type(outcomes) is not dict:
            raise self.life.protocol(desc, "a reply that is not a dict")
        return {str(key): str(value) for key, value in outcomes.items()}

    # -- calls ----------------------------------------------------------------------------------

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        desc = f"{name}()"
        with self.budget.call():
            self._ensure_worker()
            if (self.surface or {}).get(name, {}).get("kind") != "function":
                raise self._missing(name, "is missing or is not a function")
            lent = Lent()
            stage = name == "exact_dedup"
            wire_args = [self._argument(a, lent, docs=(stage and i == 0)) for i, a in enumerate(args)]
            wire_kwargs = {k: self._argument(v, lent, docs=(stage and k == "docs")) for k, v in kwargs.items()}
            if stage and isinstance(kwargs.get("spool_dir"), (str, PurePath)):
                self.sandbox.grant_spool_dir(Path(kwargs["spool_dir"]))
            incarnation = self.life.incarnation
            reply = self.exchange.request(
                desc, lambda n: m.call(n, name, wire_args, wire_kwargs), frozenset({m.VALUE, m.OUTPUT_MADE})
            )
            if reply.kind == m.OUTPUT_MADE:
                return RemoteOutput(self, reply.value, incarnation, lent)
            return self.exchange.outcome(reply, desc)

    def _argument(self, value: Any, lent: Lent, *, docs: bool) -> Any:
        """An argument on the wire: the docs are lent as an input the worker pulls, a stats dict as a mirror."""
        if isinstance(value, RemoteOutput) and value.incarnation == self.life.incarnation:
            lent.outputs.append(value)
            return handle(OUTPUT, value.output_id)
        if docs and not isinstance(value, (str, bytes, dict)) and hasattr(value, "__iter__"):
            return self.exchange.lend(lent, value, as_input=True)
        if type(value) is dict and not docs:
            return self.exchange.lend(lent, value, as_input=False)
        return encode(value, self.exchange.doc_type, exact=True)

    def on_output(self, kind: str, output: RemoteOutput, expect: frozenset[str] = VALUE_ONLY) -> Reply | None:
        """A ``next``, ``take`` or ``close`` of ``output``; None when closing an output whose worker is gone."""
        desc = f"{kind}() on exact_dedup's output" if kind != m.TAKE else "next() on exact_dedup's output"
        if output.incarnation != self.life.incarnation or not self.life.running:
            if kind == m.CLOSE:
                return None  # its worker is gone, and the spool with it
            raise WorkerCrashed(f"{desc}: the worker behind this output was stopped after an earlier failure")
        return self.exchange.request(desc, lambda n: m.on_output(kind, n, output.output_id), expect)

    # -- the worker's life ------------------------------------------------------------------------

    def start(self) -> None:
        """Start the worker now (it imports the submission) unless it runs already."""
        with self.budget.call():
            self._ensure_worker()

    def restart_worker(self) -> None:
        """Stop the worker and start a fresh incarnation."""
        self.life.stop()
        with self.budget.call():
            self._ensure_worker()

    def worker_pid(self) -> int | None:
        """The running worker's outermost process (bubblewrap's or unshare's, in those tiers), or None.

        It never starts one: the memory gauge asks after a block, and a worker that died in it must not
        be replaced (a start costs the submission's time and could raise out of the gauge).
        """
        return self.life.pid()

    def _ensure_worker(self) -> None:
        if self.life.sandbox_error is not None:
            raise SandboxFailed(self.life.sandbox_error)
        if self.broken is not None:
            raise SubmissionBroken(self.broken)
        if self.life.running or self.budget.overdrawn is not None:  # over its bytes: the request says so
            return
        if self.budget.seconds_left <= 0:
            raise self.life.timed_out("starting the worker", None)
        try:
            first = self.exchange.link.boot()
        except WorkerTimeout:
            if self.budget.seconds_left <= 0:
                raise  # the budget ran out: not the import's fault
            self.broken = f"importing the submission did not finish within {self.limits.call_seconds:g} s"
            raise SubmissionBroken(self.broken) from None
        except (WorkerCrashed, OutputTooLarge) as crash:
            self.broken = f"importing the submission failed: {crash}"
            raise SubmissionBroken(self.broken) from None
        self.life.imported()
        if first[m.KIND] == m.IMPORT_ERROR:
            self.import_error = first[m.ERROR]
            error = rebuilt(self.import_error)
            self.broken = f"{IMPORT_FAILED}: {type(error).__name__}: {error}"
            self.log.record("import", self.broken)
            self.life.stop()
            raise SubmissionBroken(self.broken)
        if self.surface is None:
            self.surface = first[m.SURFACE]
        self.life.sandbox.pause()

    def _missing(self, name: str, what: str) -> SubmissionBroken:
        detail = f"the submission's {name} {what}"
        self.log.record("missing", detail)
        return SubmissionBroken(detail)

    def shutdown(self) -> None:
        """Say goodbye (noting threads the submission left running), stop the worker, clean up."""
        self.current_check = "(after the checks)"
        if self.life.running:
            try:
                with self.budget.call():
                    reply = self.exchange.request("the final check-out", m.bye, VALUE_ONLY)
                names = self.exchange.outcome(reply, "the final check-out")
                if names:
                    shown = ", ".join(map(str, list(names)[:5]))
                    self.log.record("threads", f"the submission left {len(names)} thread(s) running: {shown}; killed")
            except (WorkerFault, Exception):
                pass  # whatever the submission did at the end, it is stopped
            self.life.stop()
        self.log.close()
        if self.sandbox.output_bytes() > self.limits.output_bytes:
            kept = self.limits.output_bytes
            self.log.record("output", f"printed {self.sandbox.output_bytes()} bytes; the report keeps the first {kept}")
