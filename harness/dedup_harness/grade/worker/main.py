"""The grading worker: imports one submission and runs its functions on request.

It runs in the sandbox (see this package's ``__init__``), standard library only: it imports nothing
of dedup_harness, so the harness's own files never need to be visible to it. The submission's
``corpus.dedup`` is imported from ROOT.

Protocol: one JSON object per line. Requests come on REQUEST_FD and replies go on REPLY_FD; the
submission's stdout and stderr are separate pipes the grader only captures. Values are tagged JSON
(``wire``): only builtin types and Doc cross; anything else is refused with a TypeError.

Requests: ``call`` (fn, args, kwargs), ``next`` / ``close`` (gen), ``take`` (gen, n: a batch of up
to n outputs and whether the output is over, for a caller that reads it to the end), ``bye``.
While a call runs, the worker may ask the grader for the next input document (``pull``); the
grader answers ``item``, ``stop`` or ``raise`` and may itself send nested requests first. Every
reply carries the current contents of the mirrored dicts (the caller's ``stats``) and the new
attempts an audit hook noticed.

Before anything else, and before any thread starts, the worker confines itself as SETTINGS (a JSON
object, the last argument) asks: Landlock and seccomp (``confine``), handing the seccomp filter's
listener to the grader over the socket ``refusals_fd`` names, so the kernel itself tells the grader
of every refused call. It tells the grader what is in force in its first message, or, when a layer
asked for cannot be applied, says so and exits without importing the submission. Then an audit
hook (``audit``) refuses network, process creation and signals, and notes every attempt: the
worker's own word, which the submission can silence.

The rest is no protection: the submission shares this process and can tamper with it. The
protections are the kernel's (uid, namespaces, Landlock, seccomp, limits); whatever this process
says is checked by the grader.
"""

from __future__ import annotations

import json
import os
import select
import sys
import threading
import traceback
from pathlib import Path
from typing import Any

from . import probe
from .audit import AuditHook
from .surface import surface
from .wire import MAX_TEXT, NAMES, decode, encode, mapped_name, mapped_type

HERE = os.path.dirname(os.path.abspath(__file__))
# The session folder: code/ (this package and the submission's root), home/ and shared/ (its spools).
# Wherever the grader's TMPDIR put it, the worker's own files are not attempts.
SESSION = os.path.dirname(os.path.dirname(os.path.realpath(HERE)))
TAKE_MAX = 4096  # outputs in one ``take`` reply, at most
TAKE_CHARACTERS = 1 << 20  # ... and text characters, roughly (a batch may end one document past it)


def _ours(filename: str) -> bool:
    """Is this frame's file part of the worker (not the submission's code)?"""
    return os.path.dirname(os.path.abspath(filename)) == HERE


class Channel:
    """Line-delimited JSON over two file descriptors."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.reader = os.fdopen(read_fd, "rb", buffering=1 << 16)
        self.write_fd = write_fd
        self.lock = threading.Lock()  # a submission's thread may set off an attempt message mid-reply

    def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, ensure_ascii=True, allow_nan=False) + "\n").encode("ascii")
        view = memoryview(data)
        with self.lock:
            while view:
                view = view[os.write(self.write_fd, view) :]

    def receive(self) -> dict[str, Any]:
        line = self.reader.readline()
        if not line:
            os._exit(0)  # the grader has gone: nothing left to do
        message: dict[str, Any] = json.loads(line)
        return message


class Worker:
    def __init__(self, root: str, channel: Channel, lifeline: threading.Thread) -> None:
        self.root = root
        self.channel = channel
        self.lifeline = lifeline  # our own thread: not one the submission left running
        self.module: Any = None
        self.doc_type: Any = None
        self.gens: dict[int, Any] = {}
        self.mirrors: dict[int, dict[Any, Any]] = {}
        self.mirrors_by_gen: dict[int, list[int]] = {}
        self.drop: list[int] = []  # mirrors to forget once the current reply is sent
        allowed = [os.path.realpath(root), os.path.realpath(os.getcwd()), SESSION, "/tmp", "/dev/null", "/proc/self"]
        self.audit = AuditHook(lambda note: self.channel.send({"attempt": note}), allowed)

    # -- values ---------------------------------------------------------------------------------

    def encode(self, value: Any) -> Any:
        return encode(value, self.doc_type, exact=False)

    def decode(self, value: Any) -> Any:
        return decode(value, self.doc_type, handle=self.resolve)

    def resolve(self, tag: str, value: dict[str, Any]) -> Any:
        """A handle from the grader: its input to pull from, an output of ours, or a stats dict to mirror."""
        if tag == "iter":
            return RemoteInput(self, value["id"])
        if tag == "gen":
            return self.gens[value["id"]]
        mirrored = {self.decode(k): self.decode(v) for k, v in value["v"]}
        self.mirrors[value["id"]] = mirrored
        return mirrored

    # -- replies --------------------------------------------------------------------------------

    def reply(self, message: dict[str, Any]) -> None:
        try:
            message["mirrors"] = [[key, self.encode(d)] for key, d in self.mirrors.items()]
        except Exception as error:  # a stats value that cannot cross is the submission's fault
            message = {"error": self.describe(error), "mirrors": []}
        self.channel.send(message)
        for key in self.drop:
            self.mirrors.pop(key, None)
        self.drop = []

    def describe(self, error: BaseException) -> dict[str, str]:
        text = repr(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
        frames = traceback.extract_tb(error.__traceback__)
        where = [f"{Path(f.filename).name}:{f.lineno} in {f.name}" for f in frames if not _ours(f.filename)]
        return {
            "type": mapped_name(error),
            "origin": type(error).__qualname__,
            "message": text[:MAX_TEXT],
            "where": " < ".join(reversed(where[-3:])),
        }

    def guarded(self, action: Any, gen: int | None = None) -> None:
        """Run one piece of the submission and reply with its value or what went wrong."""
        try:
            self.reply({"ok": action()})
            return
        except StopIteration:
            message: dict[str, Any] = {"stop": True}
        except Exception as error:
            message = {"error": self.describe(error)}
        except BaseException as error:  # SystemExit, KeyboardInterrupt, GeneratorExit raised by the submission
            detail = f"{type(error).__name__}({', '.join(map(repr, error.args))})"
            message = {"exit": detail[:MAX_TEXT]}
        if gen is not None:  # the output is over: its stats dict need not travel any more
            self.drop += self.mirrors_by_gen.pop(gen, [])
        self.reply(message)

    # -- requests -------------------------------------------------------------------------------

    def handle(self, request: dict[str, Any]) -> None:
        op = request.get("op")
        if op == "call":
            self.guarded(lambda: self.call(request["fn"], request["args"], request["kwargs"]))
        elif op == "next":
            self.guarded(lambda: self.encode(next(self.gens[request["gen"]])), request["gen"])
        elif op == "take":
            self.guarded(lambda: self.take(request["gen"], request["n"]), request["gen"])
        elif op == "close":
            self.guarded(lambda: self.close(request["gen"]), request["gen"])
        elif op == "probe":
            self.audit.refusing = False  # the grader's probe tests the kernel's layers, not this hook
            try:
                self.reply({"ok": self.encode(probe.run(request))})
            finally:
                self.audit.refusing = True
        elif op == "bye":
            ours = (threading.main_thread(), self.lifeline)
            alive = [t.name for t in threading.enumerate() if t not in ours and t.is_alive()]
            self.reply({"ok": {"t": "list", "v": alive}})
            os._exit(0)  # never wait for the submission's threads
        else:
            self.reply({"error": {"type": "ValueError", "origin": "protocol", "message": f"unknown op {op!r}"}})

    def call(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        function = getattr(self.module, name)
        before = set(self.mirrors)
        try:
            result = function(*[self.decode(a) for a in args], **{k: self.decode(v) for k, v in kwargs.items()})
        except BaseException:
            self.drop += [key for key in self.mirrors if key not in before]
            raise
        mine = [key for key in self.mirrors if key not in before]
        if hasattr(type(result), "__next__") and not isinstance(result, (str, bytes, list, tuple, dict)):
            self.gens[id(result)] = result
            self.mirrors_by_gen[id(result)] = mine
            return {"t": "gen", "id": id(result)}
        self.drop += mine
        return self.encode(result)

    def take(self, gen: int, n: int) -> Any:
        """Up to ``n`` outputs at once, and whether the output is over (its stats then travel one last time).

        A batch also ends once its texts pass TAKE_CHARACTERS, so a reply stays far below the
        grader's limit on one reply.
        """
        outputs, size, done = self.gens[gen], 0, False
        taken: list[Any] = []
        while len(taken) < min(int(n), TAKE_MAX) and size < TAKE_CHARACTERS:
            try:
                item = self.encode(next(outputs))
            except StopIteration:
                self.drop += self.mirrors_by_gen.pop(gen, [])
                done = True
                break
            taken.append(item)
            text = item.get("text") if type(item) is dict else None
            size += len(text) if type(text) is str else 64
        return {"t": "take", "v": taken, "done": done}

    def close(self, gen: int) -> Any:
        self.gens[gen].close()
        self.drop += self.mirrors_by_gen.pop(gen, [])
        return None

    def pull(self, handle: int) -> tuple[list[Any], dict[str, Any] | None]:
        """The next input documents, asked of the grader; nested requests are served meanwhile.

        Returns a batch and how the input goes on after it: None (more to come), or a message
        ``{"stop": true}`` or ``{"raise": {"type", "message"}}`` to act on once the batch is used up.
        """
        self.reply({"pull": handle})
        while True:
            message = self.channel.receive()
            if "items" in message:
                return [self.decode(item) for item in message["items"]], message.get("then")
            self.handle(message)

    # -- start ----------------------------------------------------------------------------------

    def start(self) -> None:
        sys.path.insert(0, self.root)
        try:
            import corpus.doc

            self.doc_type = corpus.doc.Doc
            steady_temp_names()
            sys.addaudithook(self.audit)
            import corpus.dedup

            self.module = corpus.dedup
        except BaseException as error:  # a syntax error, an exception, sys.exit at import
            self.channel.send({"import_error": self.describe(error)})
            os._exit(0)
        self.channel.send({"ready": {name: self.surface(name) for name in NAMES}})
        while True:
            self.handle(self.channel.receive())

    def surface(self, name: str) -> dict[str, Any]:
        """What the module holds under ``name``: its kind, value or parameters, as data."""
        return surface(self.module, name, self.encode)


class RemoteInput:
    """The input documents, pulled one by one from the grader as the submission asks for them."""

    def __init__(self, worker: Worker, handle: int) -> None:
        self.worker = worker
        self.handle = handle
        self.batch: list[Any] = []
        self.then: dict[str, Any] | None = None

    def __iter__(self) -> RemoteInput:
        return self

    def __next__(self) -> Any:
        if not self.batch and self.then is None:
            self.batch, self.then = self.worker.pull(self.handle)
            self.batch.reverse()
        if self.batch:
            return self.batch.pop()
        if "raise" in (self.then or {}):
            raised, self.then = self.then["raise"], {"stop": True}  # type: ignore[index]
            raise mapped_type(raised["type"])(raised["message"])
        raise StopIteration


def steady_temp_names() -> None:
    """tempfile's random folder names from a fixed seed: the same submission, the same report, byte for byte.

    (A spool left behind is named in the feedback; its name must not change from one grading to the next.)
    """
    import random
    import tempfile

    names = getattr(tempfile, "_RandomNameSequence")()  # noqa: B009 (private, stable since 3.x)
    names._rng, names._rng_pid = random.Random(0), os.getpid()
    setattr(tempfile, "_name_sequence", names)  # noqa: B010


def die_with_grader(request_fd: int) -> threading.Thread:
    """Exit as soon as the grader's end of the request pipe closes, even while the submission runs.

    A killed grader must not leave a worker stuck in the submission's code. (The submission could
    stop this thread; the next grader's sweep of stale sessions kills what is left of its uid.)
    """

    def watch() -> None:
        watcher = select.poll()
        watcher.register(request_fd, 0)  # no events asked for: only hang-up and errors wake us
        while True:
            if any(event & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, event in watcher.poll()):
                os._exit(0)

    lifeline = threading.Thread(target=watch, name="dedup-harness-lifeline", daemon=True)
    lifeline.start()
    return lifeline


def lock_down(settings: dict[str, Any], channel: Channel) -> dict[str, Any] | None:
    """Confine this process as ``settings["confine"]`` asks (None: not at all); what is in force, as data.

    A layer that was asked for and cannot be applied ends the worker here, before any submission
    code, with a message saying why.
    """
    asked = settings.get("confine")
    report_to = settings.get("refusals_fd")  # a socket to the grader for the filter's listener
    if not asked:
        if type(report_to) is int:
            os.close(report_to)  # no filter: the grader hears of no refusal, and knows it
        return None
    from .confine import confine
    from .syscalls import ConfinementError

    try:
        report = confine(
            asked["read_only"],
            asked["read_write"],
            hidden=asked.get("hidden", []),
            landlock_on=asked.get("landlock", True),
            seccomp_on=asked.get("seccomp", True),
            require_landlock=asked.get("require_landlock", False),
            audit_log=False,
            report_to=report_to if type(report_to) is int else None,
        )
    except (ConfinementError, OSError) as error:
        channel.send({"confine_error": f"{type(error).__name__}: {error}"})
        os._exit(3)
    # Forgotten, so a submission's own ``import ctypes`` loads it afresh and the audit hook sees it.
    for name in [name for name in sys.modules if name == "ctypes" or name.startswith("ctypes.")]:
        del sys.modules[name]
    return report.as_dict()


def main() -> None:
    root, read_fd, write_fd = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    settings = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
    channel = Channel(read_fd, write_fd)
    confinement = lock_down(settings, channel)  # before the lifeline: Landlock binds only this thread
    channel.send({"started": True, "version": list(sys.version_info[:3]), "confinement": confinement})
    lifeline = die_with_grader(read_fd)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    del sys.argv[1:]
    Worker(root, channel, lifeline).start()
