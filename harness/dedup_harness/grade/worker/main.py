"""The grading worker: imports one submission (``corpus.dedup`` from ROOT) and runs its functions on request.

Standard library only: it imports nothing of dedup_harness, whose files need never be visible to it.
It speaks ``protocol`` messages, requests on REQUEST_FD and replies on REPLY_FD (the submission's
stdout and stderr are other pipes); while a request runs it may pull the caller's input from the
grader, which may make requests of its own before it feeds them.

Before anything else, and before any thread starts, it confines itself as SETTINGS (the last
argument, JSON) asks (``confine``), hands the seccomp listener to the grader over ``refusals_fd``, and
says what is in force in its first message, or that a layer could not be applied, and exits without
importing the submission. Then its audit hook (``audit``) refuses network, new processes and signals
and notes each attempt. The rest is no protection: the submission shares this process. The
protections are the kernel's, and the grader checks whatever this process says.
"""

from __future__ import annotations

import io
import json
import os
import select
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import imports, probe
from . import protocol as m
from .audit import AuditHook
from .protocol import (
    HANDLE_ID,
    INNER,
    INPUT,
    MAX_TEXT,
    MIRROR,
    NAMES,
    OUTPUT,
    Channel,
    ChannelClosed,
    described,
    rebuilt,
    take_batch,
)
from .protocol import decode as decode_value
from .protocol import encode as encode_value
from .surface import surface

HERE = os.path.dirname(os.path.abspath(__file__))
# The session folder: code/ (this package and the submission's root), home/ and shared/ (its spools).
# Wherever the grader's TMPDIR put it, the worker's own files are not attempts; nothing else is its own
# (not /tmp, where a classmate's session may lie).
SESSION = os.path.dirname(os.path.dirname(os.path.realpath(HERE)))


def _ours(filename: str) -> bool:
    """Is this frame's file part of the worker (not the submission's code)?"""
    return os.path.dirname(os.path.abspath(filename)) == HERE


class Worker:
    """The submission's module, run on the grader's requests.

    An output is what a call of the submission returned that has a ``__next__`` (exact_dedup's
    generator): it stays here, named to the grader by its id. A mirror is the caller's stats dict:
    its contents travel with every pull and reply until the output it was given with is over.
    """

    def __init__(self, root: str, channel: Channel, lifeline: threading.Thread, packages: dict[str, Any]) -> None:
        self.root = root
        self.packages = imports.on_path(packages)  # the allowed packages' folder, modules, and what is imported
        self.channel = channel
        self.lifeline = lifeline  # our own thread: not one the submission left running
        self.module: Any = None
        self.doc_type: Any = None
        self.outputs: dict[int, Any] = {}  # whatever the submission returned that has a __next__
        self.mirrors: dict[int, dict[Any, Any]] = {}
        self.mirrors_of_output: dict[int, list[int]] = {}
        self.drop: list[int] = []  # mirrors to forget once the current reply is sent
        self.serving: list[int] = []  # the ids of the grader's requests being served, innermost last
        self.pulls = 0
        allowed = [os.path.realpath(root), os.path.realpath(os.getcwd()), SESSION, "/dev/null", "/proc/self"]
        notify = lambda note, category: self.channel.send(m.attempt(note, category))  # noqa: E731
        self.audit = AuditHook(notify, allowed, imports.folders(packages))

    # -- values ---------------------------------------------------------------------------------

    def encode(self, value: Any) -> Any:
        return encode_value(value, self.doc_type, exact=False)

    def decode(self, value: Any) -> Any:
        return decode_value(value, self.doc_type, resolve=self.resolve)

    def resolve(self, tag: str, value: dict[str, Any]) -> Any:
        """A handle from the grader: its input to pull from, an output of ours, or a stats dict to mirror."""
        if tag == INPUT:
            return RemoteInput(self, value[HANDLE_ID])
        if tag == OUTPUT:
            return self.outputs[value[HANDLE_ID]]
        assert tag == MIRROR
        mirrored = {self.decode(k): self.decode(v) for k, v in value[INNER]}
        self.mirrors[value[HANDLE_ID]] = mirrored
        return mirrored

    # -- replies --------------------------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        """Send a pull or a reply, with the mirrors' contents; a reply forgets the mirrors it was the last for."""
        try:
            mirrors = [[key, self.encode(d)] for key, d in self.mirrors.items()]
        except Exception as error:  # a stats value that cannot cross is the submission's fault
            message, mirrors = m.error(message[m.RE], self.describe(error)), []
        try:
            self.channel.send(m.with_mirrors(message, mirrors))
        except ChannelClosed:
            os._exit(0)  # the grader has gone: nothing left to do
        if message[m.KIND] != m.PULL:
            for key in self.drop:
                self.mirrors.pop(key, None)
            self.drop = []

    def describe(self, error: BaseException) -> dict[str, Any]:
        error = imports.in_course_words(error, self.packages)
        frames = traceback.extract_tb(error.__traceback__)
        where = [f"{Path(f.filename).name}:{f.lineno} in {f.name}" for f in frames if not _ours(f.filename)]
        return described(error, " < ".join(reversed(where[-3:])), self.site(error))

    def site(self, error: BaseException) -> list[Any] | None:
        """The innermost frame of the student's dedup.py in ``error``'s traceback: [file name, line, function]
        (a course module it called, or the standard library, is never the student's line)."""
        theirs = os.path.realpath(os.path.join(self.root, "corpus", "dedup.py"))
        found = None
        tb = error.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            if os.path.realpath(code.co_filename) == theirs:
                found = [os.path.basename(code.co_filename), tb.tb_lineno, code.co_qualname]
            tb = tb.tb_next
        return found

    def guarded(self, request: int, action: Callable[[], dict[str, Any]], output: int | None = None) -> None:
        """Run one piece of the submission and reply with what it made or what went wrong."""
        try:
            self.send(action())
            return
        except StopIteration:
            message = m.stop(request)
        except Exception as error:
            message = m.error(request, self.describe(error))
        except BaseException as error:  # SystemExit, KeyboardInterrupt, GeneratorExit raised by the submission
            detail = f"{type(error).__name__}({', '.join(map(repr, error.args))})"
            message = m.exit_(request, detail[:MAX_TEXT])
        if output is not None:  # the output is over: its stats dict need not travel any more
            self.drop += self.mirrors_of_output.pop(output, [])
        self.send(message)

    # -- requests -------------------------------------------------------------------------------

    def handle(self, request: dict[str, Any]) -> None:
        kind, number = m.checked(request, m.FROM_GRADER)[m.KIND], request.get(m.ID, 0)
        self.serving.append(number)
        try:
            self.dispatch(kind, number, request)
        finally:
            self.serving.pop()

    def dispatch(self, kind: str, number: int, request: dict[str, Any]) -> None:
        output: int = request.get(m.OUTPUT, 0)
        if kind == m.CALL:
            self.guarded(number, lambda: self.call(number, request[m.FN], request[m.ARGS], request[m.KWARGS]))
        elif kind == m.NEXT:
            self.guarded(number, lambda: m.value(number, self.encode(next(self.outputs[output]))), output)
        elif kind == m.TAKE:
            self.guarded(number, lambda: self.take(number, output), output)
        elif kind == m.CLOSE:
            self.guarded(number, lambda: self.close(number, output), output)
        elif kind == m.PROBE:
            self.audit.refusing = False  # the grader's probe tests the kernel's layers, not this hook
            try:
                self.send(m.value(number, self.encode(probe.run(request[m.TRIES]))))
            finally:
                self.audit.refusing = True
        elif kind == m.BYE:
            ours = (threading.main_thread(), self.lifeline)
            alive = [t.name for t in threading.enumerate() if t not in ours and t.is_alive()]
            self.send(m.value(number, self.encode(alive)))
            os._exit(0)  # never wait for the submission's threads
        elif kind == m.QUIET:
            discard_output()
        # A feed for a pull no longer waited for cannot come from the grader: nothing to do.

    def call(self, number: int, name: str, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        function = getattr(self.module, name)
        before = set(self.mirrors)
        try:
            result = function(*[self.decode(a) for a in args], **{k: self.decode(v) for k, v in kwargs.items()})
        except BaseException:
            self.drop += [key for key in self.mirrors if key not in before]
            raise
        mine = [key for key in self.mirrors if key not in before]
        if hasattr(type(result), "__next__") and not isinstance(result, (str, bytes, list, tuple, dict)):
            self.outputs[id(result)] = result
            self.mirrors_of_output[id(result)] = mine
            return m.output_made(number, id(result))
        self.drop += mine
        return m.value(number, self.encode(result))

    def take(self, number: int, output: int) -> dict[str, Any]:
        """A batch of outputs (``batches``), and whether the output is over (its stats then travel one last time)."""
        documents, batch = self.outputs[output], take_batch()
        while not batch.full:
            try:
                batch.add(self.encode(next(documents)))
            except StopIteration:
                self.drop += self.mirrors_of_output.pop(output, [])
                return m.batch(number, batch.items, True)
        return m.batch(number, batch.items, False)

    def close(self, number: int, output: int) -> dict[str, Any]:
        self.outputs[output].close()
        self.drop += self.mirrors_of_output.pop(output, [])
        return m.value(number, None)

    def pull(self, input_id: int) -> tuple[list[Any], Any]:
        """The next input documents, asked of the grader; its requests meanwhile are served.

        Returns a batch and how the input goes on after it: None (more to come), STOP, or the error
        it raised (to raise once the batch is used up).
        """
        self.pulls += 1
        number = self.pulls
        self.send(m.pull(self.serving[-1] if self.serving else 0, number, input_id))
        while True:
            message = self.receive()
            if message.get(m.KIND) == m.FEED and message.get(m.RE) == number:
                return [self.decode(item) for item in message[m.ITEMS]], message[m.END]
            self.handle(message)

    def receive(self) -> dict[str, Any]:
        """The grader's next message; when the grader has gone, the worker ends (the submission cannot
        catch that)."""
        try:
            return self.channel.receive()
        except ChannelClosed:
            os._exit(0)

    # -- start ----------------------------------------------------------------------------------

    def start(self) -> None:
        sys.path.insert(0, self.root)
        try:
            import corpus.doc

            self.doc_type = corpus.doc.Doc
            steady_temp_names()
            imports.before_hook(self.packages)
            sys.addaudithook(self.audit)
            import corpus.dedup

            self.module = corpus.dedup
        except BaseException as error:  # a syntax error, an exception, sys.exit at import
            self.channel.send(m.import_error(self.describe(error)))
            os._exit(0)
        self.channel.send(m.ready({name: surface(self.module, name, self.encode) for name in NAMES}))
        while True:
            self.handle(self.receive())


class RemoteInput:
    """The input documents, pulled from the grader a batch at a time as the submission asks for them."""

    def __init__(self, worker: Worker, input_id: int) -> None:
        self.worker = worker
        self.input_id = input_id
        self.batch: list[Any] = []
        self.end: Any = None

    def __iter__(self) -> RemoteInput:
        return self

    def __next__(self) -> Any:
        if not self.batch and self.end is None:
            self.batch, self.end = self.worker.pull(self.input_id)
            self.batch.reverse()
        if self.batch:
            return self.batch.pop()
        if type(self.end) is dict:
            error, self.end = rebuilt(self.end), m.STOP
            raise error
        raise StopIteration


class Nowhere(io.TextIOBase):
    """``sys.stdout`` and ``sys.stderr`` once the grader reads no more: text printed goes nowhere, unencoded."""

    encoding = "utf-8"
    errors = "strict"

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.buffer = io.FileIO(fd, "wb", closefd=False)  # bytes written to it go to /dev/null too

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        return len(text)

    def fileno(self) -> int:
        return self.buffer.fileno()


def discard_output() -> None:
    """From now on what the submission prints goes nowhere: fds 1 and 2 are /dev/null, and ``print`` writes to
    streams that drop text without encoding it. Printing then costs next to nothing, not a trip through a pipe
    to a grader that keeps none of it."""
    try:
        null = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        return  # the grader goes on reading (and dropping) it
    for fd in (1, 2):
        os.dup2(null, fd)
    os.close(null)
    sys.stdout, sys.stderr = Nowhere(1), Nowhere(2)


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
            grader_decides_files=asked.get("grader_decides_files", False),
        )
    except (ConfinementError, OSError) as error:
        channel.send(m.confine_error(f"{type(error).__name__}: {error}"))
        os._exit(3)
    return report.as_dict()


def main() -> None:
    root, read_fd, write_fd = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    settings = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
    channel = Channel(read_fd, write_fd)
    confinement = lock_down(settings, channel)  # before the lifeline: Landlock binds only this thread
    channel.send(m.started(list(sys.version_info[:3]), confinement))
    lifeline = die_with_grader(read_fd)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    del sys.argv[1:]
    Worker(root, channel, lifeline, settings.get("packages") or {}).start()
