"""Run a command as a child subreaper, and report every process of it that outlives it.

    python reaper.py OUT ERR -- COMMAND...

The command's standard output and error go to the files OUT and ERR. This process prints three
lines: the command's pid as it starts; ``exit N`` as it ends; then, once every process it left
behind has ended too (or ``DEADLINE`` seconds have passed: those still running are listed, then
killed), a JSON line ``{"status": N, "survivors": ["pid: command line", ...]}``. A process the
command orphans (a daemon, a worker, a fork-server child) is re-parented here
(``PR_SET_CHILD_SUBREAPER``) rather than to init, so no process of the run escapes the count. It
never sleeps: it waits for its children to end.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from types import FrameType

PR_SET_CHILD_SUBREAPER = 36
DEADLINE = 60  # seconds for the run's last processes to end after the command did


class _Deadline(Exception):
    pass


def _expire(signum: int, frame: FrameType | None) -> None:
    raise _Deadline


def children() -> list[int]:
    """The processes whose parent is this one (orphans of the run included)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2 :].split()
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def describe(pid: int) -> str:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        command = "?"
    return f"{pid}: {command.strip()[:300]}"


def main(argv: list[str]) -> int:
    out, err, separator, *command = argv
    assert separator == "--" and command, __doc__
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr)
    print(child.pid, flush=True)
    status = child.wait()
    print(f"exit {status}", flush=True)
    signal.signal(signal.SIGALRM, _expire)
    signal.alarm(DEADLINE)
    try:
        while True:
            os.waitpid(-1, 0)  # the next process of the run that ends (ChildProcessError: none is left)
    except ChildProcessError:
        survivors = []
    except _Deadline:
        survivors = [describe(pid) for pid in children()]
        for pid in children():  # reported: now they go, so a failing test leaves nothing running
            os.kill(pid, signal.SIGKILL)
    print(json.dumps({"status": status, "survivors": survivors}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
