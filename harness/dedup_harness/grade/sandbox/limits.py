"""What one submission's worker may use, and how those limits are set on it before it runs."""

from __future__ import annotations

import ctypes
import functools
import resource
import signal
from dataclasses import dataclass, field
from typing import Any

from dedup_harness.grade import rules

# Beside what the rulebook gives a stage (``grade/rules.toml``), what the worker holds itself: its pipes, the
# interpreter's own files, and its lifeline thread (with bubblewrap's or unshare's processes of the same uid).
WORKER_FILES = 16
WORKER_TASKS = 8


@dataclass(frozen=True)
class Limits:
    """What one submission's worker may use: the rulebook's numbers (``grade/rules.toml``), and the grader's own."""

    call_seconds: float = field(default_factory=lambda: rules.value("call_seconds"))
    submission_seconds: float = field(default_factory=lambda: rules.value("submission_seconds"))
    cpu_seconds: int = field(default_factory=lambda: rules.value("submission_seconds"))
    memory_bytes: int = field(default_factory=lambda: rules.value("memory_mb") << 20)
    file_bytes: int = field(default_factory=lambda: rules.value("file_mb") << 20)
    open_files: int = field(default_factory=lambda: rules.value("open_files") + WORKER_FILES)
    # RLIMIT_NPROC counts threads: the stage's threads, beside the worker's own; its child processes are
    # refused by the seccomp filter and the audit hook (this limit is the backstop against a fork bomb).
    tasks: int = field(default_factory=lambda: rules.value("threads") + WORKER_TASKS)
    output_bytes: int = field(default_factory=lambda: rules.value("output_kb") << 10)  # of its output, in the report
    # read from one incarnation's output before it is told to discard the rest (``quiet``): the report can
    # say exactly how much was cut up to here, and past it printing costs the batch nothing
    output_read_bytes: int = 1 << 20
    disk_bytes: int = field(default_factory=lambda: rules.value("disk_mb") << 20)
    tmpfs_bytes: int = 64 << 20

    def rlimits(self) -> dict[str, int]:
        return {
            "RLIMIT_AS": self.memory_bytes,
            "RLIMIT_CPU": self.cpu_seconds,
            "RLIMIT_FSIZE": self.file_bytes,
            "RLIMIT_NOFILE": self.open_files,
            "RLIMIT_NPROC": self.tasks,
            "RLIMIT_CORE": 0,
        }


PR_SET_PDEATHSIG = 1


@functools.cache
def prctl_function() -> Any:
    """libc's prctl, looked up before any fork (a forked child should not load libraries)."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def set_limits(limits: dict[str, int], prctl: Any) -> None:
    for name, value in limits.items():
        kind = getattr(resource, name)
        # CPU: a soft limit sends SIGXCPU, the hard one a second later SIGKILL.
        hard = value + 1 if name == "RLIMIT_CPU" else value
        resource.setrlimit(kind, (value, hard))
    # If the grader is killed (a run past its wall time), bwrap or unshare dies with it, and their
    # namespaces take the worker along. (The signal follows the thread that started the worker:
    # start workers from the thread that lives as long as the grading does.)
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
