"""The rulebook (``grade/rules.toml``) applied in ``check``'s own process, where a student's code runs unsandboxed.

What grade's worker enforces with the kernel, check applies here with what every platform has (Linux and
macOS: ``resource``, signals, ``threading``), so ordinary code meets the same numbers in both: a file
size and an open-files limit; one thread more than the rulebook's fails to start as in grade; each call of
the student's module runs on the same clock (``Timed``: a call past its seconds, or past what is left of the
submission's, ends its check as a timeout); and the stage's home, working and temp folder is a folder of
check's own (``stage_home``), as the worker's is its own.
"""

from __future__ import annotations

import os
import resource
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from dedup_harness.grade import rules

CHECKS_OWN_FILES = 16  # what check itself may open while a student's files are open (its outcomes, a spool folder)


class CallTimeout(BaseException):
    """A call of the student's code ran past the rulebook's seconds: a BaseException, as grade's timeout is, so
    neither a check nor Hypothesis catches and replays it."""

    outcome = "timeout"  # how the outcome recorder classifies a check it ends


def apply_limits() -> None:
    """The rulebook's file limits on this process, and its thread limit on every thread started from now on."""
    for kind, soft in limits_here().items():
        _lower(kind, soft)
    start, base, most = threading._start_new_thread, threading.active_count(), rules.value("threads")  # type: ignore[attr-defined]

    def started(*args: Any, **kwargs: Any) -> Any:
        if threading.active_count() - base >= most:
            raise RuntimeError("can't start new thread")  # what grade's worker says at its limit
        return start(*args, **kwargs)

    threading._start_new_thread = started  # type: ignore[attr-defined]


def limits_here() -> dict[int, int]:
    """The resource limits check sets on its own process: the rulebook's open files beside those it holds now (and
    a few of its own), and the rulebook's largest file."""
    used = sum(_open(fd) for fd in range(min(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 4096)))
    return {
        resource.RLIMIT_NOFILE: used + CHECKS_OWN_FILES + rules.value("open_files"),
        resource.RLIMIT_FSIZE: rules.value("file_mb") << 20,
    }


def _open(fd: int) -> bool:
    """Is ``fd`` open here? (``fstat`` works on Linux and macOS alike, /proc or not.)"""
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _lower(kind: int, soft: int) -> None:
    hard = resource.getrlimit(kind)[1]
    resource.setrlimit(kind, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def stage_home(run_folder: Path) -> Path:
    """A fresh folder for the stage, as grade's worker has its own: HOME, TMPDIR and the working folder."""
    home = run_folder / "stage-home"
    home.mkdir()
    os.environ["HOME"] = os.environ["TMPDIR"] = str(home)
    os.chdir(home)
    return home


class Clock:
    """The rulebook's seconds for one call and for the submission's calls together, kept with SIGALRM."""

    def __init__(self) -> None:
        self.left = float(rules.value("submission_seconds"))
        self.depth = 0  # a call made while one lasts (an output read as another stage's input) is part of it

    def timed(self, desc: str, action: Callable[[], Any]) -> Any:
        if self.depth or threading.current_thread() is not threading.main_thread():
            return action()
        seconds = min(float(rules.value("call_seconds")), self.left)
        if seconds <= 0:
            raise CallTimeout(
                f"the submission used up its {rules.value('submission_seconds')} s of worker time ({desc})"
            )
        outer, _ = signal.getitimer(signal.ITIMER_REAL)
        ours = not outer or seconds < outer  # a case's own limit that comes first stays in charge
        started = time.monotonic()

        def late(signum: int, frame: FrameType | None) -> None:
            raise CallTimeout(f"{desc} did not answer within {seconds:g} s")

        previous = signal.signal(signal.SIGALRM, late) if ours else None
        if ours:
            signal.setitimer(signal.ITIMER_REAL, seconds)
        self.depth += 1
        try:
            return action()
        finally:
            self.depth -= 1
            spent = time.monotonic() - started
            self.left -= spent
            if ours:
                signal.setitimer(signal.ITIMER_REAL, max(outer - spent, 1e-3) if outer else 0)
                signal.signal(signal.SIGALRM, previous)


class Timed:
    """The student's module, each call of it on the clock; exact_dedup's output too, one ``next`` at a time."""

    def __init__(self, load: Callable[[], Any]) -> None:
        self.load, self.module, self.clock = load, None, Clock()

    def __getattr__(self, name: str) -> Any:
        if self.module is None:
            self.module = self.load()
        found = getattr(self.module, name)
        if not callable(found):
            return found
        return lambda *args, **kwargs: self._call(name, found, args, kwargs)

    def _call(self, name: str, function: Callable[..., Any], args: Any, kwargs: Any) -> Any:
        result = self.timed(f"{name}()", lambda: function(*args, **kwargs))
        return TimedOutput(result, self.timed) if hasattr(type(result), "__next__") else result

    def timed(self, desc: str, action: Callable[[], Any]) -> Any:
        try:
            return self.clock.timed(desc, action)
        except CallTimeout:
            self.module = None  # grade stops a worker past its time: the next call imports the module anew there
            raise


class TimedOutput:
    """An output of the student's exact_dedup: each ``next`` and the ``close`` one call on the clock."""

    def __init__(self, output: Iterator[Any], timed: Callable[[str, Callable[[], Any]], Any]) -> None:
        self.output, self.timed = output, timed

    def __iter__(self) -> TimedOutput:
        return self

    def __next__(self) -> Any:
        return self.timed("next() on exact_dedup's output", lambda: next(self.output))

    def close(self) -> None:
        close = getattr(self.output, "close", None)
        if close is not None:
            self.timed("close() on exact_dedup's output", close)
