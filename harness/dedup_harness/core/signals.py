"""Termination signals end a run the way Ctrl-C does: its cleanup runs, its children die, it exits 128 + N.

While ``ending_on_signals()`` is in force, SIGINT, SIGTERM, SIGHUP and SIGQUIT raise ``Terminated``
(a ``KeyboardInterrupt``) in the main thread, so whatever cleans up after Ctrl-C cleans up after them.
The processes a run starts are registered with ``track`` and killed at once by the signal, so a
thread waiting on one returns; one registered after the signal is killed as it registers, and
``deferred`` keeps a signal from falling between a start and its registration. Further signals
while the run unwinds are ignored, so the cleanup is not cut short.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from types import FrameType
from typing import Protocol, TypeVar

ENDING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)

_children: dict[int, bool] = {}  # pid -> does it lead its own process group


class _Ending:
    """This run's state: the signal ending it, whether Terminated was raised, open ``deferred`` blocks."""

    signum: int | None = None
    raised = False
    deferring = 0


class Terminated(KeyboardInterrupt):
    """A run ended by a signal; ``signum`` says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_status(interrupt: KeyboardInterrupt) -> int:
    """128 + the signal, as a shell reports a process that a signal ended (130 for a plain Ctrl-C)."""
    return 128 + getattr(interrupt, "signum", signal.SIGINT)


@contextlib.contextmanager
def ending_on_signals() -> Iterator[None]:
    """Make the ending signals raise ``Terminated`` (in the main thread; elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _on_signal) for signum in ENDING}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _Ending.signum, _Ending.raised, _Ending.deferring = None, False, 0


def _on_signal(signum: int, frame: FrameType | None) -> None:
    if _Ending.signum is not None:
        return  # the run is already unwinding: let its cleanup finish
    _Ending.signum = signum
    for pid, group in list(_children.items()):
        _kill(pid, group)
    if not _Ending.deferring:
        _raise()


def _raise() -> None:
    assert _Ending.signum is not None
    _Ending.raised = True
    raise Terminated(_Ending.signum)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """A block of the main thread an ending signal does not cut in two: it raises as the block ends.

    For starting a process and registering it (``track``), so that no process starts unregistered.
    Elsewhere than in the main thread it changes nothing: signals are handled in the main thread only.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _Ending.deferring += 1
    try:
        yield
    finally:
        _Ending.deferring -= 1
    if _Ending.signum is not None and not _Ending.raised and not _Ending.deferring:
        _raise()


def track(pid: int, *, group: bool = True) -> None:
    """From now on an ending signal kills process ``pid`` (its whole group when it leads one)."""
    _children[pid] = group
    if _Ending.signum is not None:
        _kill(pid, group)


def untrack(pid: int) -> None:
    """Process ``pid`` has ended (and been reaped): forget it."""
    _children.pop(pid, None)


class _Started(Protocol):
    """A started process: a subprocess.Popen, or a multiprocessing one (whose pid is None before it starts)."""

    @property
    def pid(self) -> int | None: ...


P = TypeVar("P", bound=_Started)


@contextlib.contextmanager
def tracked(start: Callable[[], P]) -> Iterator[P]:
    """A child process started and registered in one step no ending signal cuts in two (``deferred``), and
    forgotten when the block ends (the block waits for it, or kills it)."""
    with deferred():
        process = start()
        track(process.pid or 0)
    try:
        yield process
    finally:
        untrack(process.pid or 0)


@contextlib.contextmanager
def forked() -> Iterator[int]:
    """``os.fork()`` as ``tracked`` starts a process: the child registered (it is killed with the run), and
    no ending signal raised inside the fork. A signal that lands while ``os.fork`` runs its at-fork
    callbacks (logging's lock release) would raise inside one, where Python prints it and drops it:
    the run would go on as though nothing came. The child (0) gets the block too, and must leave
    it by ``os._exit``. When the block raises (the run ends), the child is killed and reaped."""
    pid = 0
    try:
        with deferred():  # a signal deferred here raises as the block ends: the child must be reaped then too
            pid = os.fork()
            if pid:
                track(pid, group=False)
        yield pid
    except BaseException:
        if pid:  # the run is ending: the child is killed (the signal did), and reaped, for a zombie looks alive
            _kill(pid, group=False)  # to the sweep of scratch, which would leave the child's where it lies
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        raise
    finally:
        if pid:
            untrack(pid)


def _kill(pid: int, group: bool) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if group:
            try:
                os.killpg(pid, signal.SIGKILL)
                return
            except ProcessLookupError:
                pass  # it has not made its own group yet
        os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def thread_pool(workers: int) -> Iterator[ThreadPoolExecutor]:
    """A thread pool that, when the run is interrupted, drops the work not yet started and waits for the rest."""
    pool = ThreadPoolExecutor(max_workers=max(1, workers))
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
