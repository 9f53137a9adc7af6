"""The trusted side of the grading worker: an object with the surface of ``corpus.dedup``.

The checks call ``proxy.paragraphs(text)``, ``proxy.exact_dedup(docs, B, spool_dir=..., stats=...)``
and iterate, ``next()`` and ``close()`` the result as if the module were in-process. Each call goes
to the worker (``grade/worker``) as tagged JSON (``grade/worker/wire.py``); replies are rebuilt here
into builtin types and ``Doc`` only, never unpickled, so no object of the submission's making ever
reaches a check (an ``__eq__`` that is always true stays in the worker). Input documents go to the
worker a batch at a time as it pulls them, so an input that raises mid-way raises at the same point
in the worker.

A dead or timed-out worker is stopped (a ``WorkerFault``, see ``faults``) and a fresh one starts at
the next call, so one crash costs only the checks it hits.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path, PurePath
from typing import Any

from dedup_harness.grade.channel import WATCH_EVERY, Channel, ChannelClosed, ChannelGarbage, ChannelTimeout
from dedup_harness.grade.faults import (
    Event,
    SandboxFailed,
    SubmissionBroken,
    SubmissionExited,
    WorkerCrashed,
    WorkerFault,
    WorkerTimeout,
    describe_status,
    rebuild_error,
)
from dedup_harness.grade.sandbox import Sandbox, WorkerProcess
from dedup_harness.grade.worker.wire import MAX_ATTEMPTS, WireError, decode, encode, mapped_name

DISK_WATCH = WATCH_EVERY  # seconds between looks at the disk the worker uses
PULL_BATCH = 64  # input documents sent per pull, at most
# ... and text characters, roughly (a pull may end one document past it): what the worker holds of
# its input at a time stays the same whatever the corpus, so its memory tells what the stage keeps.
PULL_CHARACTERS = 1 << 18
TAKE_BATCH = 256  # output documents asked for per round trip by read_all
ONCE = ("attempt", "refused", "missing")  # events said once per submission


# -- the proxy ------------------------------------------------------------------------------------------


class RemoteIterator:
    """The output of the submission's ``exact_dedup``, living in the worker."""

    def __init__(self, proxy: SubmissionProxy, handle: int, generation: int) -> None:
        self.proxy = proxy
        self.handle = handle
        self.generation = generation

    def __iter__(self) -> RemoteIterator:
        return self

    def __next__(self) -> Any:
        return self.proxy.gen_op("next", self)

    def close(self) -> None:
        self.proxy.gen_op("close", self)

    def read_all(self) -> list[Any]:
        """Every output still to come, as ``list(self)`` gives it, fetched many documents per round trip."""
        return self.proxy.take_all(self)


class SubmissionProxy:
    """The submission's module surface, one worker behind it (restarted after a fault)."""

    def __init__(self, sandbox: Sandbox, *, doc_type: Callable[[], type]) -> None:
        self.sandbox = sandbox
        self.limits = sandbox.limits
        self._doc_type_factory = doc_type
        self._doc_type: type | None = None
        self.worker: WorkerProcess | None = None
        self.generation = 0
        self.channel: Channel | None = None
        self.used_seconds = 0.0
        self.current_check = "(before the checks)"
        self.events: list[Event] = []
        self.surface: dict[str, Any] | None = None
        self.import_error: dict[str, Any] | None = None
        self.broken: str | None = None  # why the submission cannot run at all
        self.sandbox_error: str | None = None  # why no worker can start here: the grader's failure
        self.mirrors: dict[int, dict[Any, Any]] = {}
        self.inputs: dict[int, Iterator[Any]] = {}
        self.counter = 0
        self.starts = 0
        self.start_seconds: list[float] = []
        self.last_disk_check = 0.0
        self.unlisted = {"refused": 0, "attempt": 0}  # refusals and notes past MAX_ATTEMPTS: counted, not listed

    # -- the module's surface ---------------------------------------------------------------------

    @property
    def STATS_KEYS(self) -> Any:
        self._ensure_worker()
        entry = (self.surface or {}).get("STATS_KEYS", {})
        if entry.get("kind") != "value" or "value" not in entry:
            raise self._missing("STATS_KEYS", "is missing or is not a plain value")
        return decode(entry["value"], self.doc_type)

    def paragraphs(self, *args: Any, **kwargs: Any) -> Any:
        return self.call("paragraphs", args, kwargs)

    def paragraph_hash(self, *args: Any, **kwargs: Any) -> Any:
        return self.call("paragraph_hash", args, kwargs)

    def bloom_rate(self, *args: Any, **kwargs: Any) -> Any:
        return self.call("bloom_rate", args, kwargs)

    def exact_dedup(self, *args: Any, **kwargs: Any) -> Any:
        return self.call("exact_dedup", args, kwargs)

    def probe(self, request: dict[str, Any]) -> dict[str, str]:
        """The isolation probe (``worker/probe``) in this worker: each try's outcome, by name."""
        self._ensure_worker()
        outcomes = self._result(self._request("the isolation probe", {"op": "probe", **request}), "the isolation probe")
        if type(outcomes) is not dict:
            raise self._protocol("the isolation probe", "a reply that is not a dict")
        return {str(key): str(value) for key, value in outcomes.items()}

    # -- calls ----------------------------------------------------------------------------------

    @property
    def doc_type(self) -> type:
        if self._doc_type is None:
            self._doc_type = self._doc_type_factory()
        return self._doc_type

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        self._ensure_worker()
        if (self.surface or {}).get(name, {}).get("kind") != "function":
            raise self._missing(name, "is missing or is not a function")
        wire_args = [self._argument(a, first=(i == 0 and name == "exact_dedup")) for i, a in enumerate(args)]
        wire_kwargs = {k: self._argument(v, first=(k == "docs" and name == "exact_dedup")) for k, v in kwargs.items()}
        if name == "exact_dedup" and isinstance(kwargs.get("spool_dir"), (str, PurePath)):
            self.sandbox.grant_spool_dir(Path(kwargs["spool_dir"]))
        generation = self.generation
        reply = self._request(f"{name}()", {"op": "call", "fn": name, "args": wire_args, "kwargs": wire_kwargs})
        result = reply.get("ok")
        if type(result) is dict and result.get("t") == "gen" and type(result.get("id")) is int:
            return RemoteIterator(self, result["id"], generation)
        return self._result(reply, f"{name}()")

    def _argument(self, value: Any, *, first: bool) -> Any:
        """An argument on the wire: the docs become a pulled iterator, a stats dict is mirrored back."""
        if isinstance(value, RemoteIterator) and value.generation == self.generation:
            return {"t": "gen", "id": value.handle}
        if first and not isinstance(value, (str, bytes, dict)) and hasattr(value, "__iter__"):
            self.counter += 1
            self.inputs[self.counter] = iter(value)
            return {"t": "iter", "id": self.counter}
        if type(value) is dict and not first:
            self.counter += 1
            self.mirrors[self.counter] = value
            return {"t": "mirror", "id": self.counter, "v": encode(value, self.doc_type, exact=True)["v"]}
        return encode(value, self.doc_type, exact=True)

    def gen_op(self, op: str, it: RemoteIterator) -> Any:
        desc = f"{op}() on exact_dedup's output"
        if it.generation != self.generation or self.worker is None:
            if op == "close":
                return None  # its worker is gone, and the spool with it
            raise WorkerCrashed(f"{desc}: the worker behind this output was stopped after an earlier failure")
        return self._result(self._request(desc, {"op": op, "gen": it.handle}), desc)

    def take_all(self, it: RemoteIterator) -> list[Any]:
        desc = "next() on exact_dedup's output"  # what the student reads: the same words as one next()
        outputs: list[Any] = []
        while True:
            if it.generation != self.generation or self.worker is None:
                raise WorkerCrashed(f"{desc}: the worker behind this output was stopped after an earlier failure")
            reply = self._request(desc, {"op": "take", "gen": it.handle, "n": TAKE_BATCH})
            batch = reply.get("ok")
            if "stop" in reply:
                return outputs
            if type(batch) is not dict or batch.get("t") != "take":
                self._result(reply, desc)  # raises the submission's error, exit or StopIteration
                raise self._protocol(desc, "a reply that is not a batch of outputs")
            items, done = batch.get("v"), batch.get("done")
            if type(items) is not list or type(done) is not bool or not (items or done):
                raise self._protocol(desc, "a malformed batch of outputs")
            outputs += [self._result({"ok": item}, desc) for item in items]
            if done:
                return outputs

    def _result(self, reply: dict[str, Any], desc: str) -> Any:
        if "stop" in reply:
            raise StopIteration
        if "error" in reply:
            error = rebuild_error(reply["error"])
            if isinstance(error, MemoryError):
                self._event("memory", f"ran out of memory during {desc} (limit {self.limits.memory_bytes >> 20} MiB)")
            raise error
        if "exit" in reply:
            detail = f"the submission raised {reply['exit']} during {desc}"
            self._event("exit", detail)
            raise SubmissionExited(detail)
        if "ok" not in reply:
            raise self._protocol(desc, "a reply without a result")
        try:
            return decode(reply["ok"], self.doc_type)
        except (WireError, RecursionError, ValueError, TypeError, KeyError, IndexError) as error:
            raise self._protocol(desc, str(error)) from None

    # -- the conversation -----------------------------------------------------------------------

    def _request(self, desc: str, message: dict[str, Any]) -> dict[str, Any]:
        left = self.limits.call_seconds
        self._send(message, desc)
        while True:
            reply, waited = self._receive(desc, left)
            left -= waited
            self._absorb(reply, desc)
            if "pull" not in reply:
                self._check_disk(desc)
                return reply
            self._serve_pull(reply["pull"], desc)

    def _serve_pull(self, handle: Any, desc: str) -> None:
        source = self.inputs.get(handle) if type(handle) is int else None
        if source is None:
            raise self._protocol(desc, "a pull for an unknown input")
        generation = self.generation
        items: list[Any] = []
        then: dict[str, Any] | None = None
        size = 0
        try:
            # A batch at a time: one round trip per document would double the cost of a call.
            while len(items) < PULL_BATCH and size < PULL_CHARACTERS:
                item = encode(next(source), self.doc_type, exact=True)
                items.append(item)
                size += len(item["text"]) if type(item) is dict and type(item.get("text")) is str else 64
        except StopIteration:
            then = {"stop": True}
            del self.inputs[handle]
        except Exception as error:  # the input raised: the worker sees the same failure at the same point
            then = {"raise": {"type": mapped_name(error), "message": str(error)}}
            del self.inputs[handle]
        except BaseException:
            self._stop_worker()  # it waits for an answer it will never get
            raise
        if generation != self.generation:
            raise WorkerCrashed(f"the worker was stopped while {desc} read its input")
        self._send({"items": items, "then": then}, desc)

    def _absorb(self, reply: dict[str, Any], desc: str) -> None:
        try:
            for key, value in reply.get("mirrors", []):
                target = self.mirrors.get(key)
                contents = decode(value, self.doc_type)
                if target is not None and type(contents) is dict:
                    target.clear()
                    target.update(contents)
        except (WireError, RecursionError, ValueError, TypeError, KeyError, IndexError) as error:
            raise self._protocol(desc, str(error)) from None

    def _send(self, message: dict[str, Any], desc: str) -> None:
        try:
            self._channel().send(message, self.limits.call_seconds)
        except ChannelTimeout:
            raise self._timeout(desc, self.limits.call_seconds) from None
        except ChannelClosed:
            raise self._crashed(desc) from None

    def _receive(self, desc: str, left: float) -> tuple[dict[str, Any], float]:
        """The next reply; attempt notices that arrive meanwhile are recorded on the way."""
        waited = 0.0
        while True:
            reply, seconds = self._receive_one(desc, left - waited)
            waited += seconds
            self._kernel_refusals()
            if "attempt" not in reply:
                return reply, waited
            self._event("attempt", str(reply["attempt"])[:300])

    def _kernel_refusals(self) -> None:
        """What the worker's filter refused so far, as the kernel told the grader: events the submission cannot stop."""
        if self.worker is not None:
            for words in self.worker.refusals.take():
                self._event("refused", words)

    def _receive_one(self, desc: str, left: float) -> tuple[dict[str, Any], float]:
        """One reply within the call's time ``left`` and what remains of the submission's budget."""
        channel = self._channel()
        budget = self.limits.submission_seconds - self.used_seconds
        try:
            reply = channel.receive(min(left, budget), watch=lambda: self._check_disk(desc))
        except ChannelTimeout:
            raise self._timeout(desc, None if budget < left else self.limits.call_seconds) from None
        except ChannelClosed:
            raise self._crashed(desc) from None
        except ChannelGarbage as what:
            raise self._protocol(desc, str(what)) from None
        finally:
            self.used_seconds += channel.waited
        return reply, channel.waited

    def _channel(self) -> Channel:
        assert self.channel is not None, "no worker is running"
        return self.channel

    # -- the worker's life ------------------------------------------------------------------------

    def start(self) -> None:
        """Start the worker now (it imports the submission) unless it runs already."""
        self._ensure_worker()

    def restart_worker(self) -> None:
        """Stop the worker and start a fresh one."""
        self._stop_worker()
        self._ensure_worker()

    def worker_pid(self) -> int | None:
        """The running worker's outermost process (bubblewrap's or unshare's, in those tiers), or None.

        It never starts one: the memory probe asks after a block, and a worker that died in it must not
        be replaced (a start costs the submission's time and could raise out of the probe).
        """
        return self.worker.process.pid if self.worker is not None else None

    def _ensure_worker(self) -> None:
        if self.sandbox_error is not None:
            raise SandboxFailed(self.sandbox_error)
        if self.broken is not None:
            raise SubmissionBroken(self.broken)
        if self.worker is not None:
            return
        if self.used_seconds >= self.limits.submission_seconds:
            raise self._timeout("starting the worker", None)
        started = time.monotonic()
        self.worker = self.sandbox.start()
        self.channel = Channel(self.worker.request_fd, self.worker.reply_fd)
        self.generation += 1
        self.starts += 1
        self._await_start()
        try:
            first, _ = self._receive("importing the submission", self.limits.call_seconds)
        except WorkerTimeout:
            if self.used_seconds >= self.limits.submission_seconds:
                raise  # the budget ran out: not the import's fault
            self.broken = f"importing the submission did not finish within {self.limits.call_seconds:g} s"
            raise SubmissionBroken(self.broken) from None
        except WorkerCrashed as crash:
            self.broken = f"importing the submission failed: {crash}"
            raise SubmissionBroken(self.broken) from None
        self.start_seconds.append(time.monotonic() - started)
        self._absorb(first, "importing the submission")
        if "import_error" in first:
            self.import_error = first["import_error"] if type(first["import_error"]) is dict else {}
            error = rebuild_error(self.import_error)
            self.broken = f"the submission could not be imported: {type(error).__name__}: {error}"
            self._event("import", self.broken)
            self._stop_worker()
            raise SubmissionBroken(self.broken)
        if type(first.get("ready")) is not dict:
            raise self._protocol("importing the submission", "no ready message")
        if self.surface is None:
            self.surface = first["ready"]

    def _await_start(self) -> None:
        """The worker's first word, before it imports anything of the submission: it runs, confined.

        Anything else (it died, hung, could not confine itself) is the grader's failure: no student
        code had run yet.
        """
        try:
            first = self._channel().receive(self.limits.call_seconds, watch=lambda: None)
        except ChannelTimeout:
            raise self._sandbox_failed(f"no word from it within {self.limits.call_seconds:g} s", ended=False) from None
        except ChannelClosed:
            raise self._sandbox_failed("it ended before it could say it had started") from None
        except ChannelGarbage as what:
            raise self._sandbox_failed(str(what)) from None
        if "confine_error" in first:
            raise self._sandbox_failed(f"it could not confine itself: {str(first['confine_error'])[:500]}")
        if first.get("started") is not True:
            raise self._sandbox_failed("its first message was not the one a starting worker sends")
        version = ".".join(map(str, first.get("version") or []))
        confinement = first.get("confinement")
        self.sandbox.protections.confined(confinement if type(confinement) is dict else None, version)
        assert self.worker is not None
        # Handed over (or not) before its first word: the wait only lets our thread catch up.
        self.sandbox.protections.refusals_reported(self.worker.refusals.listening(self.limits.call_seconds))

    def _sandbox_failed(self, what: str, *, ended: bool = True) -> SandboxFailed:
        status = self._exit_status(5 if ended else 0)
        output = self.sandbox.output().strip()
        said = f"; it printed: {output[-800:]}" if output else ""
        words = describe_status(status, str(self.sandbox.tier)) if status is not None else "did not end"
        self.sandbox_error = f"the worker could not start ({self.sandbox.tier} tier): {what} (it {words}){said}"
        self._event("sandbox", self.sandbox_error)
        return SandboxFailed(self.sandbox_error)

    def _exit_status(self, wait: float) -> int | None:
        """The worker's exit status if it ends within ``wait`` seconds (else None); it is stopped either way."""
        assert self.worker is not None
        try:
            status: int | None = self.worker.process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            status = None
        self._stop_worker()
        return status

    def _stop_worker(self) -> None:
        if self.worker is not None:
            self.sandbox.stop(self.worker)
            self._kernel_refusals()  # the last of them: the watch has stopped
            self.worker = None
            self.channel = None
            self.generation += 1

    def _timeout(self, desc: str, seconds: float | None) -> WorkerTimeout:
        self._stop_worker()
        if seconds is None:
            detail = f"the submission used up its {self.limits.submission_seconds:g} s of worker time ({desc})"
        else:
            detail = f"{desc} did not answer within {seconds:g} s"
        self._event("timeout", detail)
        return WorkerTimeout(detail)

    def _crashed(self, desc: str) -> WorkerFault:
        status = self._exit_status(5)
        words = describe_status(status, str(self.sandbox.tier))
        kind = WorkerCrashed if "killed" in words or status is None else SubmissionExited
        detail = f"the worker {words} during {desc}"
        self._event(kind.kind, detail)
        return kind(detail)

    def _protocol(self, desc: str, what: str) -> WorkerCrashed:
        self._stop_worker()
        detail = f"the worker sent {what} during {desc}; it was stopped"
        self._event("protocol", detail)
        return WorkerCrashed(detail)

    def _check_disk(self, desc: str) -> None:
        now = time.monotonic()
        if now - self.last_disk_check < DISK_WATCH:
            return
        self.last_disk_check = now
        used = self.sandbox.disk_used()
        if used > self.limits.disk_bytes:
            self._stop_worker()
            # Not how much: that depends on when the watch looked, and a grade must read the same every time.
            detail = f"the submission wrote more than its {self.limits.disk_bytes >> 20} MiB of disk during {desc}"
            self._event("disk", detail)
            raise WorkerCrashed(detail)

    def _missing(self, name: str, what: str) -> SubmissionBroken:
        detail = f"the submission's {name} {what}"
        self._event("missing", detail)
        return SubmissionBroken(detail)

    def _event(self, kind: str, detail: str) -> None:
        event = Event(self.current_check, kind, detail)
        if kind in ONCE and any(e.kind == kind and e.detail == detail for e in self.events):
            return  # once per submission is enough to say it
        # Attempt notices come from the worker, which the submission can make send anything: a few do. The
        # kernel's refusals count apart, so a flood of notices cannot crowd them out.
        if kind in self.unlisted and sum(e.kind == kind for e in self.events) >= MAX_ATTEMPTS:
            self.unlisted[kind] += 1
            return
        self.events.append(event)

    def shutdown(self) -> None:
        """Say goodbye (noting threads the submission left running), stop the worker, clean up."""
        self.current_check = "(after the checks)"
        if self.worker is not None:
            try:
                names = self._result(self._request("the final check-out", {"op": "bye"}), "the final check-out")
                if names:
                    shown = ", ".join(map(str, list(names)[:5]))
                    self._event("threads", f"the submission left {len(names)} thread(s) running: {shown}; killed")
            except (WorkerFault, Exception):
                pass
            self._stop_worker()
        for kind, more in self.unlisted.items():
            if more:  # a flood of refusals must not pass for a few: it is said how many went unlisted
                self.events.append(Event(self.current_check, kind, f"and {more} more, not listed one by one"))
        if self.sandbox.output_bytes() > self.limits.output_bytes:
            kept = self.limits.output_bytes
            self._event("output", f"printed {self.sandbox.output_bytes()} bytes; the report keeps the first {kept}")
