"""What one submission's worker may use, and how those limits are set on it before it runs."""

from __future__ import annotations

import ctypes
import functools
import resource
import signal
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Limits:
    """What one submission's worker may use."""

    call_seconds: float = 10.0
    submission_seconds: float = 120.0
    cpu_seconds: int = 120
    memory_bytes: int = 1 << 30
    file_bytes: int = 64 << 20
    open_files: int = 64
    processes: int = 32
    output_bytes: int = 16 << 10  # of the submission's output, kept for the report
    # read from one incarnation's output before it is told to discard the rest (``quiet``): the report can
    # say exactly how much was cut up to here, and past it printing costs the batch nothing
    output_read_bytes: int = 1 << 20
    disk_bytes: int = 256 << 20
    tmpfs_bytes: int = 64 << 20

    def rlimits(self) -> dict[str, int]:
        return {
            "RLIMIT_AS": self.memory_bytes,
            "RLIMIT_CPU": self.cpu_seconds,
            "RLIMIT_FSIZE": self.file_bytes,
            "RLIMIT_NOFILE": self.open_files,
            "RLIMIT_NPROC": self.processes,
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
