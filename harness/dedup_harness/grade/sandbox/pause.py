"""Pausing a worker between calls: SIGSTOP to its group, then wait until the whole of it has stopped.

``killpg(SIGSTOP)`` returns at once; a thread inside a system call stops only when the call returns
(a 48 MB write to a slow disk takes a while), and until then it may still fill the disk. The worker
is the grader's child in the tiers that pause it, so the grader waits for the kernel to report it
stopped (``waitid`` with WSTOPPED: every thread has stopped), without consuming that report or an
exit (WNOWAIT: ``Popen`` still reaps it). No polling: the wait ends the moment the last thread stops.
"""

from __future__ import annotations

import contextlib
import os
import signal


def pause_child(pid: int) -> None:
    """Stop the group led by our child ``pid`` and return once every thread of the child has stopped (or it ended)."""
    try:
        os.killpg(pid, signal.SIGSTOP)
    except (ProcessLookupError, PermissionError):
        return
    with contextlib.suppress(ChildProcessError, InterruptedError):
        os.waitid(os.P_PID, pid, os.WSTOPPED | os.WEXITED | os.WNOWAIT)
