"""Pausing a worker's process group between calls: SIGSTOP, then wait until every thread has stopped.

``killpg(SIGSTOP)`` returns at once; a thread inside a system call stops only when the call returns
(a 48 MB write to a slow disk takes a while). Until then it may still fill the disk, so the grader
waits, reading each thread's state in /proc, until every thread of the group's leader is stopped or
gone, for at most ``PATIENCE`` seconds (a thread stuck in uninterruptible sleep is not waited for).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

PATIENCE = 2.0
STOPPED = frozenset("TtZX")  # stopped, traced, zombie, dead


def _states(pid: int) -> list[str]:
    """The state letter of each thread of ``pid`` (none when it is gone)."""
    states = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                stat = (task / "stat").read_text(encoding="ascii", errors="replace")
                states.append(stat[stat.rfind(")") + 2])
    return states


def pause_group(pid: int) -> None:
    """Stop process group ``pid`` and wait until its leader's every thread has stopped."""
    try:
        os.killpg(pid, signal.SIGSTOP)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + PATIENCE
    while any(state not in STOPPED for state in _states(pid)) and time.monotonic() < deadline:
        time.sleep(0.001)
