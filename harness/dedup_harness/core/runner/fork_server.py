"""One warm server that forks a child per suite run: pytest, Hypothesis and the harness imported once.

Only the child imports the implementation root's ``corpus``; the server never touches one. A child
makes itself a session leader, so killing its process group ends whatever the run started. Starting
the server imports nothing heavy here (pytest is the server's and the children's to import), so a
command can start it first and let it warm up while it does its own imports and preparations.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import multiprocessing.forkserver
import os
import resource
import signal
import sys
import tempfile
from collections.abc import Mapping, Sequence
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from pathlib import Path

from dedup_harness.core import signals

# What a forked run leaves in its scratch folder besides the outcomes: pytest's output, the child's CPU time.
LOG_NAME = "pytest.log"
CPU_NAME = "cpu_seconds"
# What the server imports once for every child (see preload).
PRELOAD = ("dedup_harness.core.runner.preload",)


def start_fork_server() -> ForkServerContext:
    """Start the fork server now (its imports and warm-up run while the caller prepares the roots).

    There is one server per process, and every child shares its hash seed; it is fixed at 0 (as the
    grader fixes it for a fresh suite process), so whichever caller starts the server, a child says
    the same words in the same order every time.
    """
    context = multiprocessing.context.ForkServerContext()
    context.set_forkserver_preload(list(PRELOAD))
    saved = os.environ.get("PYTHONHASHSEED")
    os.environ["PYTHONHASHSEED"] = "0"  # the server is a fresh interpreter: it reads this as it starts
    try:
        with signals.deferred():  # a signal as the server is spawned raises once its pid is known, so it is stopped
            multiprocessing.forkserver.ensure_running()
    finally:
        if saved is None:
            os.environ.pop("PYTHONHASHSEED", None)
        else:
            os.environ["PYTHONHASHSEED"] = saved
    return context


def stop_fork_server() -> None:
    """Kill this process's fork server, if one runs, and reap it; the next ``start_fork_server`` starts another.

    A run ended by a signal stops it before sweeping its scratch: a server still warming up would go
    on writing there (Hypothesis's Unicode tables) after the sweep, until it noticed its parent gone.
    """
    server = getattr(multiprocessing.forkserver, "_forkserver", None)
    pid = getattr(server, "_forkserver_pid", None)
    if not isinstance(pid, int):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    server._stop()  # type: ignore[union-attr]  # closes its pipe, reaps it, forgets it


def start_child(
    context: ForkServerContext, args: Sequence[str], cwd: str, env: Mapping[str, str], write_bytecode: bool
) -> BaseProcess:
    """A child of the fork server running pytest with ``args`` in ``cwd``, its output going to LOG_NAME there."""
    child_args = (list(args), str(Path(cwd) / LOG_NAME), cwd, dict(env), write_bytecode)
    process = context.Process(target=_child, args=child_args)
    process.start()
    return process


def child_output(scratch: str) -> str:
    """What a forked run printed (nothing, when it died before opening its log)."""
    log_file = Path(scratch) / LOG_NAME
    return log_file.read_text(encoding="utf-8", errors="replace") if log_file.exists() else ""


def child_cpu_seconds(scratch: str) -> float | None:
    """The CPU time a forked run used, as it wrote it before exiting (None when it did not get there)."""
    cpu_file = Path(scratch) / CPU_NAME
    return float(cpu_file.read_text()) if cpu_file.exists() else None


def kill_child(process: BaseProcess) -> None:
    """Kill the child's whole process group (it made itself a session leader), or at least the child."""
    if process.pid is None:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        if process.exitcode is None:
            process.kill()
    process.join()


def _child(args: list[str], log_file: str, cwd: str, env: Mapping[str, str], write_bytecode: bool) -> None:
    """In the forked child: a session of its own, output to a log file, then pytest in-process."""
    gc.freeze()  # what the fork server built stays out of this child's collections (and its pages unshared)
    os.setsid()
    os.chdir(cwd)
    os.environ.update(env)
    tempfile.tempdir = None  # the server may have cached its own; env may name another (TMPDIR)
    sys.dont_write_bytecode = not write_bytecode
    log = os.open(log_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    import pytest

    code = pytest.main(args)
    usage = resource.getrusage(resource.RUSAGE_SELF)  # this child's own, since the fork
    Path(cwd, CPU_NAME).write_text(f"{usage.ru_utime + usage.ru_stime:.3f}")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(code))
